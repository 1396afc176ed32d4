// SPDX-License-Identifier: MIT
/*
 * The default thread and caller counts are a pure function of the
 * topology: check them on synthetic topologies, and that a 2-PU host keeps
 * the counts the sweep always had (1, 2 and the oversubscribed 3).
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

int main(void)
{
	const size_t n = sizeof(cases) / sizeof(cases[0]);

	plan((int)n);
	for (size_t i = 0; i < n; i++) {
		char *got = points(cases[i].syn, cases[i].policy, cases[i].callers,
				   cases[i].oversub);

		if (!ok(!strcmp(got, cases[i].want), "%s: %s", cases[i].what, got))
			diag("\"%s\" %s: want %s", cases[i].syn, cases[i].policy, cases[i].want);
		free(got);
	}
	return done_testing();
}
