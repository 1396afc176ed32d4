/* SPDX-License-Identifier: MIT */
/*
 * Topology discovery (hwloc), placement policies and binding.
 *
 * Placement is a pure function of a topology, a policy and a thread count,
 * so it can be tested on synthetic topologies; binding is a separate step.
 * Thread 0 of a placement is the caller (the thread issuing barriers).
 */
#ifndef MBBENCH_TOPO_H
#define MBBENCH_TOPO_H

#include <hwloc.h>
#include <stddef.h>

struct placement {
	int n;
	int *pu_logical;	/* hwloc logical index of each thread's PU */
	int *pu_os;		/* OS (Linux) CPU number */
	int oversubscribed;	/* some PU carries more than one thread */
};

/*
 * Load the machine's topology; MBBENCH_SYNTHETIC or HWLOC_SYNTHETIC (e.g.
 * "pack:2 core:4 pu:2") loads a synthetic one instead, for tests.
 */
/* 0, or -1 (the host failed) or -2 (a topology named in the environment is bad) with err. */
int topo_load(hwloc_topology_t *topo, char *err, size_t len);
/*
 * Is a synthetic description within max_pus PUs (product of its arities) and
 * max_index (its indexes= lists)? 0; 1 for too many PUs, 2 for too large an
 * index, with *at at the number.
 */
int topo_synthetic_check(const char *syn, unsigned long long max_pus,
			 unsigned long long max_index, const char **at);
/* The same, not cut to the affinity mask: what the host has. */
int topo_load_whole(hwloc_topology_t *topo, char *err, size_t len);

/*
 * policy: "compact" (one thread per core first, cores in logical order,
 * SMT siblings last), "smt" (PUs in logical order: the caller's SMT
 * siblings first), "scatter" (hwloc_distrib over the machine), or an
 * explicit list of OS CPU numbers ("0,2-3"), used in order and repeated
 * when there are more threads than CPUs listed. compact and smt also wrap
 * around when there are more threads than PUs.
 */
int placement_compute(hwloc_topology_t topo, const char *policy, int n,
		      struct placement *out, char *err, size_t len);
void placement_free(struct placement *p);
/*
 * Where OS CPU b is from OS CPU a: "remote" on another package or NUMA
 * node, "local" otherwise, "caller" when they are the same CPU.
 */
const char *topo_where(hwloc_topology_t topo, int a, int b);
/* How many different CPUs the threads are on. */
int placement_distinct_cpus(const struct placement *p);
/* "0;1;1" (OS numbers), for CSV cells. */
char *placement_cpus_str(const struct placement *p, int first, int count);

/* Is every CPU of the placement in this process's affinity mask? */
int placement_check_affinity(const struct placement *p, char *err, size_t len);
/* Bind the calling thread to one OS CPU. */
int topo_bind_self(hwloc_topology_t topo, int pu_os);
/* An empty hwloc bitmap, or exit 1 with "out of memory" (never NULL). */
hwloc_bitmap_t topo_bitmap(void);
int topo_npus(hwloc_topology_t topo);
/* "1 package, 2 cores, 2 PUs, 1 NUMA node" */
void topo_summary(hwloc_topology_t topo, char *buf, size_t len);

#endif
