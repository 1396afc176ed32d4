/* SPDX-License-Identifier: MIT */
/*
 * The default thread counts of an experiment, chosen from the topology, and
 * where each thread of a team sits relative to the caller. Pure functions of
 * a topology and a placement policy, so a plan for a 256-CPU host can be
 * computed (and tested) on a synthetic topology anywhere.
 */
#ifndef MBBENCH_POINTS_H
#define MBBENCH_POINTS_H

#include <stddef.h>

#include "topo.h"

/* Why a thread count is a point: a set of these bits. */
enum {
	TP_ALONE = 1 << 0,		/* T = 1: the caller alone */
	TP_OTHER_CORE = 1 << 1,		/* first T with a thread off the caller's core */
	TP_SMT = 1 << 2,		/* first T with the caller's SMT sibling */
	TP_L3_FULL = 1 << 3,		/* last T before the placement leaves the caller's L3 */
	TP_OTHER_L3 = 1 << 4,		/* first T with a thread in another L3 */
	TP_NUMA_FULL = 1 << 5,		/* last T inside the caller's NUMA node */
	TP_OTHER_NUMA = 1 << 6,		/* first T with a thread on another NUMA node */
	TP_PACKAGE_FULL = 1 << 7,	/* last T inside the caller's package */
	TP_OTHER_PACKAGE = 1 << 8,	/* first T with a thread on another package */
	TP_ALL = 1 << 9,		/* T = every PU */
	TP_LADDER = 1 << 10,		/* a power of two */
	TP_OVERSUB = 1 << 11,		/* every PU plus one: oversubscribed */
	TP_TWICE = 1 << 12,		/* twice the PUs (contend's callers) */
};

struct tpoint {
	int t;
	unsigned why;
};

/*
 * The thread counts for placement `policy` on `topo`: 1, the first count
 * that crosses each boundary of the topology (another core, the caller's
 * SMT sibling, the caller's L3, NUMA node and package filled and left), all
 * PUs, and the powers of two up to max_t; with oversub, also all PUs + 1.
 * Sorted, without duplicates; *out is freed by the caller. The count, or -1
 * with err (a CPU list naming an absent CPU).
 */
int topo_thread_points(hwloc_topology_t topo, const char *policy, int max_t,
		       int oversub, struct tpoint **out, char *err, size_t len);

/*
 * contend's caller counts: the thread points with the oversubscribed one,
 * the powers of two up to twice the PUs, and twice the PUs.
 */
int topo_caller_points(hwloc_topology_t topo, const char *policy,
		       struct tpoint **out, char *err, size_t len);

/* "another core; power of two" for a point's bits. */
void topo_point_why(unsigned why, char *buf, size_t len);

/* "1,2,4" for the counts of n points. */
char *topo_points_str(const struct tpoint *p, int n);

/*
 * Where threads first..first+count-1 of a placement sit relative to thread
 * 0 (the caller). Each count is of other threads, nested: same_l3 includes
 * same_core. -1 when the topology has no such level (no L3 object, or no
 * NUMA node covering the caller). remote: on another package or another
 * NUMA node than the caller's.
 */
struct relations {
	int same_core, same_l3, same_package, same_numa, remote;
};
void placement_relations(hwloc_topology_t topo, const struct placement *p,
			 int first, int count, struct relations *r);
/* "0;2;4" (hwloc logical PU numbers), for CSV cells. */
char *placement_logical_str(const struct placement *p, int first, int count);

/*
 * distance: the levels a second CPU can sit at relative to the caller's,
 * nearest first. Each pair of CPUs has one level, the outermost domain they
 * do not share: another package; else another NUMA node; else another L3;
 * else another core; else the caller's SMT sibling. An L3 holding a single
 * core is that core's own cache, not a domain cores share, so on a topology
 * where no L3 holds two cores there is no l3 level and two cores are core.
 */
enum dist_level { DL_SMT, DL_CORE, DL_L3, DL_NUMA, DL_PACKAGE, DL_COUNT };

/* "smt", "core", "l3", "numa", "package"; dist_level_parse: -1 if none. */
const char *dist_level_name(int level);
int dist_level_parse(const char *name);

struct dist_pair {
	int caller_os, spinner_os;		/* OS CPU numbers; -1 when skipped */
	int caller_logical, spinner_logical;	/* hwloc logical PU indexes */
	char reason[160];			/* why there is no pair; "" if there is */
};

/*
 * The CPU pair of each level on topo (the CPUs this process may use): the
 * caller is the first PU in logical order that has a partner at the level
 * (the first PU, whenever it has one), the spinner that partner's first.
 * A level without a pair gets a reason: what the host lacks, from whole
 * (the uncut topology; NULL: topo is the whole host), or that the affinity
 * mask leaves no pair when whole has one.
 */
void distance_pairs(hwloc_topology_t topo, hwloc_topology_t whole,
		    struct dist_pair out[DL_COUNT]);

#endif
