// SPDX-License-Identifier: MIT
/*
 * calls: barrier calls per second with one caller and T-1 other threads,
 * per mechanism and T. The seed's v5 table (10,000,000 expedited calls,
 * T = 1..7 busy-looping threads, 2-3 us per call on a Xeon E5405) is this
 * experiment on that machine.
 *
 * With --ci-target PCT a point repeats until the 95% CI half-width of its
 * ns/call is within PCT% of the mean (at least --repeat times, at most
 * --max-repeat), after one warm-up repeat that is discarded; the row records
 * the target, what was reached and whether it was met.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results.h"
#include "util.h"

static const struct col calls_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY("threads", COL_INT, "", COL_REQ | COL_POS, "T: the caller plus T-1 other threads"),
	COL_KEY_IN("behaviour", "spin|sleep", COL_REQ | COL_SETTING,
		"`spin` (user-space busy loop) or `sleep` (blocked in a futex)"),
	COL_KEY_IN("scope", "same-process|other-process", COL_REQ | COL_SETTING,
		"`same-process`, or `other-process` when the T-1 threads live in another process"),
	COL_KEY("placement", COL_STR, "", COL_SETTING,
		"`compact` (one thread per core first, SMT siblings last), `smt` (PUs in logical order), `scatter` or the CPU list given"),
	COL_INFO("cpus", COL_STR, "", 0, "OS CPU of each thread, caller first, `;`-separated"),
	COL_INFO("oversubscribed", COL_INT, "", 0, "1 when some CPU carries more than one thread of the team"),
	COL_COUNT("repeats", COL_INT, COL_POS, "repeats measured"),
	COL_COUNT("calls_per_repeat", COL_NUM, 0, "mean barriers issued per repeat"),
	COL_MEASURE("ns_per_call", COL_NUM, "ns", LOWER, MEAN, COL_REQ,
		    "mean over repeats of (time in the barrier loop / calls)"),
	COL_INFO("ns_per_call_stddev", COL_NUM, "ns", 0, "sample standard deviation of `ns_per_call` over repeats"),
	COL_CI95("ns_per_call_ci95", "ns_per_call", "ns", COL_REQ,
		 "half-width of the 95% confidence interval of `ns_per_call` (Student t)"),
	COL_MEASURE("calls_per_s", COL_NUM, "1/s", HIGHER, NONE, 0,
		    "1e9 / `ns_per_call`: the same figure as a rate (not the mean of the repeats' rates, which reads higher than the mean cost when the repeats differ)"),
	COL_CI95("calls_per_s_ci95", "calls_per_s", "1/s", 0,
		 "its 95% CI half-width, carried from `ns_per_call_ci95` (first order: calls_per_s x ns_per_call_ci95 / ns_per_call)"),
	NS_PER_CALL_REPEAT_COLS,
	WORK_COLS,
	FLOOR_COLS,
	COL_STATUS("status", COL_REQ, WORK_STATUS_DOC),
	COL_STATUS("skip_reason", 0, "why a skipped or degraded row has no figure"),
	KERNEL_FINDING_COL,
	TOPOLOGY_COLS,
};

const struct table_schema calls_table = {
	.name = "calls", .experiment = "calls", .analysed = 1,
	.rows = "One row per (mechanism, threads).",
	.notes = "Derived: `harness_overhead_ratio` (when `null` is measured): `null` through the harness divided by the same calls in a bare loop.",
	.cols = calls_cols, .ncols = NCOLS(calls_cols),
};

struct calls_run {
	const struct opts *o;
	struct table *t;
	struct results *res;
	struct repeats rp;
	const struct mechanism *null_mech;	/* measured: check the harness */
};

static int calls_row(void *ctx, const struct mechanism *m, int threads)
{
	struct calls_run *c = ctx;
	struct table *t = c->t;
	int r = table_add_row(t);

	table_set_str(t, r, "mechanism", m->name);
	table_set_int(t, r, "threads", threads);
	table_set_str(t, r, "behaviour", behaviour_name(c->o->beh));
	table_set_str(t, r, "scope", c->o->other_process ? "other-process" : "same-process");
	table_set_str(t, r, "placement", c->o->placement);
	return r;
}

static int calls_measure(void *ctx, const struct mechanism *m, int T, const struct team *team)
{
	struct calls_run *c = ctx;

	(void)T;
	return repeats_measure(&c->rp, c->o, m, team);
}

static void calls_fill(void *ctx, int row, const struct mechanism *m, int T,
		       const struct placement *pl)
{
	struct calls_run *c = ctx;
	struct table *t = c->t;
	struct summary s_ns;
	char what[128];

	snprintf(what, sizeof(what), "%s T=%d", m->name, T);
	table_set_int(t, row, "oversubscribed", pl->oversubscribed);
	if (!strcmp(m->name, "null"))
		c->null_mech = m;
	if (repeats_fill(&c->rp, t, row, c->res, what, &s_ns))
		return;
	/*
	 * One cost, one number: the rate is the mean cost's, so the table, the
	 * figure and the other experiments read the same point alike.
	 */
	if (s_ns.mean > 0) {
		table_set_num(t, row, "calls_per_s", 1e9 / s_ns.mean);
		if (s_ns.n > 1)
			table_set_num(t, row, "calls_per_s_ci95", 1e9 / s_ns.mean * s_ns.ci95 / s_ns.mean);
	}
	if (pl->oversubscribed)
		results_note(c->res, "%s T=%d: oversubscribed (%d threads on %d CPU%s): numbers include scheduling", m->name, T, T,
			     placement_distinct_cpus(pl), placement_distinct_cpus(pl) == 1 ? "" : "s");
}

/* Harness overhead: null through the harness vs the plainest loop. */
static void overhead_check(struct results *res, const struct opts *o,
			   const struct mechanism *null_mech)
{
	struct team t;
	struct placement pl;
	char reason[256];
	double h_ns = 0, b_ns = 0;
	const int reps = 5;

	if (team_for(&t, o, null_mech, 1, &pl, reason, sizeof(reason)))
		return;
	for (int i = 0; i < reps; i++) {
		struct measure a, b;

		harness_measure(null_mech, 0, o->iterations ? 0.2 : o->duration_s, NULL, &a);
		harness_bare_loop(null_mech, a.calls, &b);
		h_ns += (double)a.ns / (double)a.calls;
		b_ns += (double)b.ns / (double)b.calls;
	}
	team_stop(&t);
	placement_free(&pl);
	results_derived(res, "harness_overhead_ratio", h_ns / b_ns,
			"harness overhead: null %.3f ns/call through the harness, %.3f ns/call in a bare loop, ratio %.3f (goal <= 1.02)",
			h_ns / reps, b_ns / reps, h_ns / b_ns);
}

static int exp_calls_main(int argc, char **argv)
{
	struct opts o;
	struct table t;
	struct results res;
	struct calls_run c = { .rp = REPEATS_INIT };
	const struct exp_opt calls_opts[] = {
		REPEATS_OPTS(&c.rp),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "calls",
		.synopsis = "Barrier calls per second: one caller, T-1 other threads running --behaviour.",
		.common = CO_ALL,
		.def_mech = "all",
		.def_duration_s = 0.5,
		.def_repeat = 3,
		.opts = calls_opts,
	};
	struct point_ops ops = {
		.exp = "calls", .t = &t, .ctx = &c,
		.row = calls_row, .measure = calls_measure, .fill = calls_fill,
	};

	opts_parse(argc, argv, &spec, &o);
	opts_apply_membind(&o);
	table_init(&t, calls_cols, (int)(sizeof(calls_cols) / sizeof(calls_cols[0])));
	results_begin(&res, &o, &t);
	c.o = &o;
	c.t = &t;
	c.res = &res;
	repeats_begin(&c.rp, &o);
	for_each_point(&o, &ops);
	repeats_end(&c.rp);
	if (c.null_mech)
		overhead_check(&res, &o, c.null_mech);
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return 0;
}

/*
 * The sweep: every mechanism at every thread count, modelled at
 * --max-repeat repeats, the most its CI target can take.
 */
static double calls_cost(const struct preset *p, const struct plan_host *h,
			 const struct mechanism *m)
{
	int n, *t = plan_counts(h->threads, &n), ci = p->ci_target > 0;
	int reps = ci ? p->max_repeat : p->repeat;
	double s = 0.05;

	for (int i = 0; i < n; i++)
		s += (reps + ci) * p->duration + p->duration / 10 + 0.03 + PLAN_TH * t[i];
	free(t);
	/* null's harness check (overhead_check): ten durations more */
	if (!strcmp(m->name, "null"))
		s += 10 * p->duration;
	return s;
}

static void calls_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	fprintf(f, " --threads %s --placement %s%s", h->threads, h->placement, h->behaviour);
	plan_repeat_options(f, p, p->ci_target > 0);
}

const struct experiment exp_calls = {
	.tables = (const struct table_schema *const[]){ &calls_table, NULL },
	.name = "calls",
	.summary = "barrier calls/s vs thread count, per mechanism",
	.main = exp_calls_main,
	.quick = { .duration = 0.02, .repeat = 1 },
	.full = { .duration = 0.5, .repeat = 3 },
	.floor = 0.02,
	.cut = CUT_MAX,
	.cost = calls_cost,
	.options = calls_options,
};
