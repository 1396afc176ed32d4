// SPDX-License-Identifier: MIT
/*
 * points: the thread counts (calls) and caller counts (contend) the sweep
 * measures on this topology, why each is there and where its threads sit
 * relative to the caller. Nothing is bound or measured and the affinity
 * mask is not consulted, so MBBENCH_SYNTHETIC, HWLOC_SYNTHETIC or
 * HWLOC_XMLFILE can name a host of any size: this is how `mbbench sweep
 * --plan` plans a 256-CPU run on a laptop.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "disturb-plan.h"
#include "experiment.h"
#include "points.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mbbench points [--placement compact|smt|scatter|CPUS] [--format human|csv|xml]\n"
		"                      [--list threads|callers|npus|disturb-rounds|distance-levels]\n"
		"The thread counts (calls, with the oversubscribed one) and caller counts\n"
		"(contend) chosen from the topology, why each is there, and where the\n"
		"threads of each count sit relative to the caller. Measures nothing; the\n"
		"topology is this host's, or MBBENCH_SYNTHETIC / HWLOC_SYNTHETIC /\n"
		"HWLOC_XMLFILE's.\n\n"
		"  --placement P   as for the experiments (default compact)\n"
		"  --format F      human (default), csv: one row per list and count, or xml:\n"
		"                  the whole topology as hwloc XML (what lstopo --of xml\n"
		"                  writes), for a host without lstopo\n"
		"  --list L        print one value and nothing else: the threads or callers\n"
		"                  list (1,2,4), the PU count, disturb's rounds, or how\n"
		"                  many levels distance can measure\n");
}

static int any_cpu(void *arg, int cpu)
{
	(void)arg;
	(void)cpu;
	return 1;
}

/* disturb's rounds with every role on this topology (every CPU usable). */
int points_disturb_rounds(hwloc_topology_t topo)
{
	struct dplan_in in = { .topo = topo, .cpu_ok = any_cpu, .caller_cpu = -1 };
	struct round *r = NULL;
	char err[512];
	int n = disturb_plan(&in, &r, err, sizeof(err));

	free(r);
	return n;
}

/* The levels distance finds a CPU pair at on this topology. */
int points_distance_levels(hwloc_topology_t topo)
{
	struct dist_pair p[DL_COUNT];
	int n = 0;

	distance_pairs(topo, NULL, p);
	for (int l = 0; l < DL_COUNT; l++)
		n += p[l].caller_os >= 0;
	return n;
}

/* The nearest level distance finds a CPU pair at here, or -1. */
int points_distance_nearest(hwloc_topology_t topo)
{
	struct dist_pair p[DL_COUNT];

	distance_pairs(topo, NULL, p);
	for (int l = 0; l < DL_COUNT; l++)
		if (p[l].caller_os >= 0)
			return l;
	return -1;
}

static void print_list(hwloc_topology_t topo, const struct tpoint *p, int n,
		       const char *list, const char *policy, int csv)
{
	for (int i = 0; i < n; i++) {
		struct placement pl;
		struct relations r;
		char why[256], err[256], *lg = NULL;

		topo_point_why(p[i].why, why, sizeof(why));
		if (placement_compute(topo, policy, p[i].t, &pl, err, sizeof(err)))
			die("%s", err);
		placement_relations(topo, &pl, 0, pl.n, &r);
		if (csv) {
			printf("%s,%d,%s,%d,%d,%d,%d,%d\n", list, p[i].t, why, r.same_core,
			       r.same_l3, r.same_package, r.same_numa, r.remote);
		} else {
			lg = placement_logical_str(&pl, 0, pl.n < 8 ? pl.n : 8);
			printf("%-8s %5d  %-5d %-5d %-5d %-5d %-6d %s%s  %s\n", list, p[i].t,
			       r.same_core, r.same_l3, r.same_package, r.same_numa, r.remote,
			       lg, pl.n > 8 ? ";..." : "", why);
		}
		free(lg);
		placement_free(&pl);
	}
}

static int exp_points_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "list", required_argument, NULL, 'l' },
		{ "placement", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy = "compact", *list = NULL;
	int csv = 0, xml = 0, c, rc, nt, nc;
	hwloc_topology_t topo;
	struct tpoint *tp, *cp;
	char err[256], sum[256];

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'f':
			if (strcmp(optarg, "human") && strcmp(optarg, "csv") && strcmp(optarg, "xml"))
				die("unknown --format '%s' (use human, csv or xml)", optarg);
			csv = !strcmp(optarg, "csv");
			xml = !strcmp(optarg, "xml");
			break;
		case 'l':
			if (strcmp(optarg, "threads") && strcmp(optarg, "callers") &&
			    strcmp(optarg, "npus") && strcmp(optarg, "disturb-rounds") &&
			    strcmp(optarg, "distance-levels"))
				die("unknown --list '%s' (use threads, callers, npus, disturb-rounds or distance-levels)",
					  optarg);
			list = optarg;
			break;
		case 'p':
			policy = optarg;
			break;
		default:
			getopt_bad("points", c, argv);
		}
	}
	getopt_no_args("points", argc, argv);
	if (xml && list)
		die("--format xml prints the topology only: drop --list");
	rc = xml ? topo_load_whole(&topo, err, sizeof(err)) : topo_load(&topo, err, sizeof(err));
	if (rc == -2)
		die("%s", err);
	if (rc)
		fail("%s", err);
	if (xml) {
		char *buf = NULL;
		int n = 0;

		if (hwloc_topology_export_xmlbuffer(topo, &buf, &n, 0))
			fail("hwloc cannot export the topology as XML");
		rc = fwrite(buf, 1, n > 0 ? (size_t)n - 1 : 0, stdout) == (n > 0 ? (size_t)n - 1 : 0);
		hwloc_free_xmlbuffer(topo, buf);
		hwloc_topology_destroy(topo);
		if (!rc || fflush(stdout))
			fail("cannot write the XML: %s", strerror(errno));
		return 0;
	}
	nt = topo_thread_points(topo, policy, topo_npus(topo), 1, &tp, err, sizeof(err));
	if (nt < 0)
		die("%s", err);
	nc = topo_caller_points(topo, policy, &cp, err, sizeof(err));
	if (nc < 0)
		die("%s", err);
	if (list) {
		char *s = NULL;

		if (!strcmp(list, "threads"))
			s = topo_points_str(tp, nt);
		else if (!strcmp(list, "callers"))
			s = topo_points_str(cp, nc);
		if (s)
			printf("%s\n", s);
		else if (!strcmp(list, "npus"))
			printf("%d\n", topo_npus(topo));
		else if (!strcmp(list, "distance-levels"))
			printf("%d\n", points_distance_levels(topo));
		else
			printf("%d\n", points_disturb_rounds(topo));
		free(s);
	} else if (csv) {
		printf("list,count,why,n_same_core,n_same_l3,n_same_package,n_same_numa,n_remote\n");
		print_list(topo, tp, nt, "threads", policy, 1);
		print_list(topo, cp, nc, "callers", policy, 1);
	} else {
		topo_summary(topo, sum, sizeof(sum));
		printf("# topology: %s; placement %s\n", sum, policy);
		printf("# counts of the other threads: on the caller's core, L3, package, NUMA node; remote\n");
		printf("# (-1: the topology has no such level); cpus: hwloc logical PUs, caller first\n");
		printf("%-8s %5s  %-5s %-5s %-5s %-5s %-6s %s  %s\n", "# list", "count",
		       "core", "l3", "pkg", "numa", "remote", "cpus", "why");
		print_list(topo, tp, nt, "threads", policy, 0);
		print_list(topo, cp, nc, "callers", policy, 0);
	}
	free(tp);
	free(cp);
	hwloc_topology_destroy(topo);
	return 0;
}

const struct experiment exp_points = {
	.name = "points",
	.summary = "thread and caller counts chosen from the topology (measures nothing)",
	.main = exp_points_main,
};
