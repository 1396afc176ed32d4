// SPDX-License-Identifier: MIT
/*
 * distance: the cost of one barrier by how far its IPI travels. One caller
 * issues barriers while one other thread spins at each distance the host
 * has from the caller: its SMT sibling, another core of its L3, another L3,
 * another NUMA node, another package (topology/points.c picks the pairs).
 * calls mixes these distances as T grows; here each is alone, so a step in
 * the curve can be read as the price of one level of the topology.
 *
 * Only IPI-based mechanisms are measured by default: membarrier-global and
 * seed-v5-sched wait for a grace period, fence and null send nothing, so
 * the spinner's place does not enter their cost (they are accepted when
 * asked for by name). Repeats and the CI target are calls'.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results.h"
#include "util.h"

static const struct col distance_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`); by default the process-wide ones that do not wait for a grace period (`process_wide` 1, `grace_period` 0 in `mbbench list`)"),
	COL_KEY_IN("level", "smt|core|l3|numa|package", COL_REQ,
		"where the spinner sits relative to the caller: `smt` (its SMT sibling), `core` (another core sharing its L3), `l3` (another L3 in its NUMA node and package), `numa` (another NUMA node in its package), `package` (another package); a pair's level is the outermost domain the two CPUs do not share, and an L3 holding a single core counts as that core's cache"),
	COL_INFO("caller_cpu", COL_INT, "", COL_REQ, "OS CPU number of the caller; empty when the level has no pair"),
	COL_INFO("spinner_cpu", COL_INT, "", COL_REQ, "OS CPU number of the spinner; empty when the level has no pair"),
	COL_INFO("caller_logical", COL_INT, "", 0, "the caller's hwloc logical PU (in the topology cut to the affinity mask)"),
	COL_INFO("spinner_logical", COL_INT, "", 0, "the spinner's hwloc logical PU"),
	COL_COUNT("repeats", COL_INT, COL_POS, "repeats measured (as in calls.csv: `--repeat`, `--ci-target`, `--max-repeat`)"),
	COL_COUNT("calls_per_repeat", COL_NUM, 0, "mean barriers issued per repeat"),
	COL_MEASURE("ns_per_call", COL_NUM, "ns", LOWER, MEAN, COL_REQ,
		    "mean over repeats of (time in the barrier loop / calls)"),
	COL_INFO("ns_per_call_stddev", COL_NUM, "ns", 0, "sample standard deviation of `ns_per_call` over repeats"),
	COL_CI95("ns_per_call_ci95", "ns_per_call", "ns", COL_REQ,
		 "half-width of the 95% confidence interval of `ns_per_call` (Student t)"),
	NS_PER_CALL_REPEAT_COLS,
	WORK_COLS,
	FLOOR_COLS,
	COL_STATUS("status", COL_REQ, WORK_STATUS_DOC),
	COL_STATUS("skip_reason", 0,
		   "why: degraded (its repeats, see `degraded_reason`), the host lacks the level (`no SMT on this host: each core has one PU`, `one package`, ...), the affinity mask leaves no CPU pair at it, or the mechanism cannot run here"),
};

const struct table_schema distance_table = {
	.name = "distance", .experiment = "distance", .analysed = 1,
	.rows = "One row per (mechanism, level): the caller issues barriers while one other thread of the process spins on the CPU at that level from the caller's.",
	.cols = distance_cols, .ncols = NCOLS(distance_cols),
};

/* By default the heavy barriers that do not wait for a grace period. */
#define DEFAULT_ALL MC_PROCESS_WIDE
#define DEFAULT_NONE MC_GRACE_PERIOD

/* --level: "core,package" or "all" into a bit per level. */
static int parse_levels(const char *arg, void *dest)
{
	char *copy = xstrdup(arg), *save = NULL;
	unsigned *mask = dest;
	size_t len = strlen(arg);
	int bad = !len || arg[0] == ',' || arg[len - 1] == ',' || strstr(arg, ",,");

	*mask = 0;
	if (!strcmp(arg, "all")) {
		*mask = (1u << DL_COUNT) - 1;
		free(copy);
		return 0;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int l = dist_level_parse(tok);

		if (l < 0)
			bad = 1;
		else
			*mask |= 1u << l;
	}
	free(copy);
	return bad || !*mask ? -1 : 0;
}

static int add_row(struct table *t, const struct mechanism *m, int level,
		   const struct dist_pair *p)
{
	int r = table_add_row(t);

	table_set_str(t, r, "mechanism", m->name);
	table_set_str(t, r, "level", dist_level_name(level));
	if (p->caller_os >= 0) {
		table_set_int(t, r, "caller_cpu", p->caller_os);
		table_set_int(t, r, "spinner_cpu", p->spinner_os);
		table_set_int(t, r, "caller_logical", p->caller_logical);
		table_set_int(t, r, "spinner_logical", p->spinner_logical);
	}
	return r;
}

/* One mechanism at one level: a team of the caller and the spinner. */
static void measure_level(const struct opts *o, struct repeats *rp, struct table *t,
			  struct results *res, const struct mechanism *m, int level,
			  const struct dist_pair *p)
{
	struct opts pinned = *o;
	struct team team;
	struct placement pl;
	struct summary s;
	char cpus[32], reason[256], what[160];
	int r, err;

	snprintf(cpus, sizeof(cpus), "%d,%d", p->caller_os, p->spinner_os);
	pinned.placement = cpus;
	if (team_for(&team, &pinned, m, 2, &pl, reason, sizeof(reason))) {
		row_skip(t, add_row(t, m, level, p), reason);
		return;
	}
	err = repeats_measure(rp, o, m, &team);
	team_stop(&team);
	placement_free(&pl);
	r = add_row(t, m, level, p);
	if (err) {
		snprintf(reason, sizeof(reason), "barrier failed: %s", strerror(-err));
		row_skip(t, r, reason);
		return;
	}
	table_set_str(t, r, "status", "ok");
	snprintf(what, sizeof(what), "%s %s (CPUs %d,%d)", m->name, dist_level_name(level),
		 p->caller_os, p->spinner_os);
	repeats_fill(rp, t, r, res, what, &s);
}

static int exp_distance_main(int argc, char **argv)
{
	struct opts o;
	struct table t;
	struct results res;
	struct repeats rp = REPEATS_INIT;
	struct dist_pair pairs[DL_COUNT];
	hwloc_topology_t whole = NULL;
	unsigned levels = (1u << DL_COUNT) - 1;
	char err[256], def_mech[1024];
	int npoints = 0, point = 0;
	const struct exp_opt distance_opts[] = {
		REPEATS_OPTS(&rp),
		OPT_CALLBACK("level", "LIST", "the levels to measure: smt, core, l3, numa, package,\n"
			     "comma-separated, or all (default)", &levels, parse_levels,
			     "(smt, core, l3, numa, package, comma-separated, or all)"),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "distance",
		.synopsis = "The cost of one barrier with one other thread spinning at each distance\n"
			    "(SMT sibling, another core, L3, NUMA node, package) from the caller.",
		.common = CO_MECH | CO_DURATION | CO_REPEAT | CO_FORMAT | CO_JSON | CO_OUTPUT | CO_WORK |
			  CO_PLANT | CO_PLANT_SYSCALL,
		.def_mech = mech_names_with(DEFAULT_ALL, DEFAULT_NONE, def_mech,
					    sizeof(def_mech)),
		.def_duration_s = 0.2,
		.def_repeat = 3,
		.opts = distance_opts,
	};

	opts_parse(argc, argv, &spec, &o);
	repeats_begin(&rp, &o);
	table_init(&t, distance_cols, (int)(sizeof(distance_cols) / sizeof(distance_cols[0])));
	results_begin(&res, &o, &t);
	if (topo_load_whole(&whole, err, sizeof(err)))
		whole = NULL;	/* the reasons then speak of the mask's topology */
	distance_pairs(o.topo, whole, pairs);
	if (whole)
		hwloc_topology_destroy(whole);
	for (int l = 0; l < DL_COUNT; l++)
		if (levels & (1u << l))
			npoints += o.nmechs;
	for (int mi = 0; mi < o.nmechs; mi++) {
		const struct mechanism *m = o.mechs[mi];
		char reason[256];
		int usable = !mech_prepare(m, reason, sizeof(reason));

		for (int l = 0; l < DL_COUNT; l++) {
			if (!(levels & (1u << l)))
				continue;
			progress("distance", ++point, npoints, m->name);
			if (pairs[l].caller_os < 0)
				row_skip(&t, add_row(&t, m, l, &pairs[l]), pairs[l].reason);
			else if (!usable)
				row_skip(&t, add_row(&t, m, l, &pairs[l]), reason);
			else
				measure_level(&o, &rp, &t, &res, m, l, &pairs[l]);
		}
		if (usable && m->teardown)
			m->teardown(m);
	}
	repeats_end(&rp);
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return 0;
}

/* The sweep: the IPI mechanisms, the expedited one first, each at every
 * level the host has; like calls at each level. */
static const struct mech_pick distance_picks[] = {
	{ .all = MC_IPI, .cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED },
	{ .all = MC_IPI, .cmd = PICK_ANY },
};

static double distance_cost(const struct preset *p, const struct plan_host *h,
			    const struct mechanism *m)
{
	int ci = p->ci_target > 0, reps = ci ? p->max_repeat : p->repeat;

	(void)m;
	return 0.05 + (h->distance_level ? 1 : h->distance_levels) *
		((reps + ci) * p->duration + p->duration / 10 + 0.03);
}

static void distance_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	if (h->distance_level)
		fprintf(f, " --level %s", h->distance_level);
	plan_repeat_options(f, p, p->ci_target > 0);
}

const struct experiment exp_distance = {
	.tables = (const struct table_schema *const[]){ &distance_table, NULL },
	.name = "distance",
	.summary = "cost of one barrier by IPI distance: SMT sibling, core, L3, NUMA, package",
	.main = exp_distance_main,
	.quick = { .duration = 0.02, .repeat = 1 },
	.full = { .duration = 0.25, .repeat = 3 },
	.floor = 0.02,
	.cut = CUT_MAX,
	.picks = distance_picks,
	.npicks = NPICKS(distance_picks),
	.cost = distance_cost,
	.options = distance_options,
};
