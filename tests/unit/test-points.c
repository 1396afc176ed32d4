// SPDX-License-Identifier: MIT
/*
 * The default thread and caller counts are a pure function of the
 * topology: check them on synthetic topologies, and that a 2-PU host keeps
 * the counts the sweep always had (1, 2 and the oversubscribed 3). And
 * distance's CPU pair at each level, or the reason a level has none.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "points.h"
#include "tap.h"

static char *points(const char *syn, const char *policy, int callers, int oversub)
{
	hwloc_topology_t topo;
	struct tpoint *p;
	char err[256], *s;
	int n;

	setenv("MBBENCH_SYNTHETIC", syn, 1);
	if (topo_load(&topo, err, sizeof(err)))
		return strdup(err);
	if (callers)
		n = topo_caller_points(topo, policy, &p, err, sizeof(err));
	else
		n = topo_thread_points(topo, policy, topo_npus(topo), oversub, &p, err,
				       sizeof(err));
	s = n < 0 ? strdup(err) : topo_points_str(p, n);
	if (n >= 0)
		free(p);
	hwloc_topology_destroy(topo);
	return s;
}

static const struct {
	const char *syn, *policy;
	int callers, oversub;
	const char *want, *what;
} cases[] = {
	/* This host's shape (2 L3s, one core each) and a plain 2-core one. */
	{ "pack:1 l3:2 core:1 pu:1", "compact", 0, 1, "1,2,3", "2 PUs: the sweep's 1,2,3" },
	{ "pack:1 core:2 pu:1", "compact", 0, 0, "1,2", "2 PUs without oversubscription" },
	{ "pack:1 core:2 pu:1", "compact", 1, 0, "1,2,3,4", "2 PUs: callers 1..4" },
	{ "pack:1 core:1 pu:2", "compact", 0, 1, "1,2,3", "one core with 2 PUs: the sibling is T=2" },
	/* 16 PUs: another core at 2, package filled at 4, left at 5, sibling at 9. */
	{ "pack:2 core:4 pu:2", "compact", 0, 1, "1,2,4,5,8,9,16,17", "2x4x2 compact" },
	{ "pack:2 core:4 pu:2", "smt", 0, 1, "1,2,3,4,8,9,16,17", "2x4x2 smt: sibling at 2" },
	{ "pack:2 core:4 pu:2", "scatter", 0, 1, "1,2,4,8,9,16,17", "2x4x2 scatter: another package at 2, sibling at 9" },
	{ "pack:2 core:4 pu:2", "compact", 1, 0, "1,2,4,5,8,9,16,17,32", "2x4x2 callers" },
	/* 256 PUs, 8 L3s of 8 cores per package. */
	{ "pack:2 l3:8 core:8 pu:2", "compact", 0, 1,
	  "1,2,4,8,9,16,32,64,65,128,129,256,257", "2x8x8x2 compact: 13 points" },
	/* 4 NUMA nodes: the node is left at 17, the package at 33. */
	{ "pack:2 node:2 core:16 pu:2", "compact", 0, 1,
	  "1,2,4,8,16,17,32,33,64,65,128,129", "4 NUMA nodes" },
};

/*
 * distance's pairs as "smt=0:1 core=0:2 l3=- ..." (OS numbers, caller:spinner)
 * and the reasons of the levels without one, "|"-separated. With cut, the
 * topology is restricted to the OS CPUs listed there, as an affinity mask
 * does, and the uncut one is the whole host.
 */
static void distance(const char *syn, const char *cut, char *pairs, size_t plen,
		     char *why, size_t wlen, char *logical, size_t llen)
{
	hwloc_topology_t topo, whole = NULL;
	struct dist_pair p[DL_COUNT];
	char err[256];
	size_t used = 0, wused = 0, lused = 0;

	setenv("MBBENCH_SYNTHETIC", syn, 1);
	pairs[0] = why[0] = logical[0] = '\0';
	if (topo_load(&topo, err, sizeof(err))) {
		snprintf(pairs, plen, "%s", err);
		return;
	}
	if (cut) {
		hwloc_bitmap_t set = hwloc_bitmap_alloc();

		hwloc_bitmap_list_sscanf(set, cut);
		whole = topo;
		if (topo_load(&topo, err, sizeof(err)) || hwloc_topology_restrict(topo, set, 0))
			snprintf(pairs, plen, "cannot restrict to %s", cut);
		hwloc_bitmap_free(set);
	}
	distance_pairs(topo, whole, p);
	for (int l = 0; l < DL_COUNT; l++) {
		if (p[l].caller_os < 0) {
			used += (size_t)snprintf(pairs + used, plen - used, "%s%s=-", l ? " " : "",
						 dist_level_name(l));
			wused += (size_t)snprintf(why + wused, wlen - wused, "%s%s", wused ? "|" : "",
						  p[l].reason);
		} else {
			used += (size_t)snprintf(pairs + used, plen - used, "%s%s=%d:%d", l ? " " : "",
						 dist_level_name(l), p[l].caller_os, p[l].spinner_os);
			lused += (size_t)snprintf(logical + lused, llen - lused, "%s%d:%d",
						  lused ? " " : "", p[l].caller_logical,
						  p[l].spinner_logical);
		}
	}
	hwloc_topology_destroy(topo);
	if (whole)
		hwloc_topology_destroy(whole);
}

static const struct {
	const char *syn, *cut;
	const char *pairs, *why, *logical, *what;
} dcases[] = {
	{ "pack:2 l3:2 core:4 pu:2", NULL,
	  "smt=0:1 core=0:2 l3=0:8 numa=- package=0:16", "one NUMA node", "0:1 0:2 0:8 0:16",
	  "2 packages, 2 L3s each, SMT2: every level but NUMA" },
	{ "pack:2 core:4 pu:2", NULL,
	  "smt=0:1 core=0:2 l3=- numa=- package=0:8", "no L3 cache in this host's topology|one NUMA node",
	  "0:1 0:2 0:8", "2 packages SMT2 without L3" },
	{ "pack:2 node:2 l3:2 core:8 pu:2", NULL,
	  "smt=0:1 core=0:2 l3=0:16 numa=0:32 package=0:64", "", "0:1 0:2 0:16 0:32 0:64",
	  "4 NUMA nodes: every level" },
	{ "pack:2 node:2 core:2 pu:1", NULL,
	  "smt=- core=0:1 l3=- numa=0:2 package=0:4",
	  "no SMT on this host: each core has one PU|no L3 cache in this host's topology", "0:1 0:2 0:4",
	  "4 NUMA nodes without SMT" },
	{ "pack:1 core:2 pu:1", NULL,
	  "smt=- core=0:1 l3=- numa=- package=-",
	  "no SMT on this host: each core has one PU|no L3 cache in this host's topology|one NUMA node|one package",
	  "0:1", "2 cores, no SMT: core only" },
	{ "pack:1 l3:2 core:1 pu:1", NULL,
	  "smt=- core=0:1 l3=- numa=- package=-",
	  "no SMT on this host: each core has one PU|each L3 holds one core: no L3 is shared by cores|one NUMA node|one package",
	  "0:1", "an L3 per core (this host's shape): the other core is core" },
	{ "pack:1 core:1 pu:1", NULL,
	  "smt=- core=- l3=- numa=- package=-",
	  "no SMT on this host: each core has one PU|one core on this host|no L3 cache in this host's topology|one NUMA node|one package",
	  "", "one PU: nothing" },
	{ "pack:2 core:2 pu:2", "0,2,4",
	  "smt=- core=0:2 l3=- numa=- package=0:4",
	  "the affinity mask leaves no CPU pair at this level (widen it with taskset)|no L3 cache in this host's topology|one NUMA node",
	  "0:1 0:2", "a mask without siblings: smt cut by the mask, logical ids renumbered" },
	{ "pack:2 core:2 pu:2", "1-3",
	  "smt=2:3 core=1:2 l3=- numa=- package=-",
	  "no L3 cache in this host's topology|one NUMA node|the affinity mask leaves no CPU pair at this level (widen it with taskset)",
	  "1:2 0:1", "a mask inside one package: the caller moves to the first CPU with a sibling" },
};

int main(void)
{
	const size_t n = sizeof(cases) / sizeof(cases[0]);
	const size_t nd = sizeof(dcases) / sizeof(dcases[0]);

	plan((int)(n + nd));
	for (size_t i = 0; i < nd; i++) {
		char pairs[512], why[1024], logical[256];

		distance(dcases[i].syn, dcases[i].cut, pairs, sizeof(pairs), why, sizeof(why),
			 logical, sizeof(logical));
		if (!ok(!strcmp(pairs, dcases[i].pairs) && !strcmp(why, dcases[i].why) &&
			!strcmp(logical, dcases[i].logical), "distance, %s: %s", dcases[i].what, pairs))
			diag("\"%s\" cut %s: want %s (%s) [%s], got %s (%s) [%s]", dcases[i].syn,
			     dcases[i].cut ? dcases[i].cut : "-", dcases[i].pairs, dcases[i].why,
			     dcases[i].logical, pairs, why, logical);
	}
	for (size_t i = 0; i < n; i++) {
		char *got = points(cases[i].syn, cases[i].policy, cases[i].callers,
				   cases[i].oversub);

		if (!ok(!strcmp(got, cases[i].want), "%s: %s", cases[i].what, got))
			diag("\"%s\" %s: want %s", cases[i].syn, cases[i].policy, cases[i].want);
		free(got);
	}
	return done_testing();
}
