// SPDX-License-Identifier: MIT
/*
 * latency: the distribution of one barrier's cost, per mechanism, in a
 * log-bucketed histogram (<= 0.8% bucket width). The seed put non-expedited
 * at 16 ms per call, "5000-8000 times slower" than expedited; the ratio of
 * membarrier-global to membarrier-private-expedited is derived here.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results.h"
#include "util.h"

static const struct col lat_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY("threads", COL_INT, "", COL_REQ | COL_POS, "T: the caller plus T-1 other threads"),
	COL_KEY_IN("behaviour", "spin|sleep", COL_REQ | COL_SETTING, "`spin` or `sleep`, as in calls.csv"),
	COL_KEY_IN("scope", "same-process|other-process", COL_REQ | COL_SETTING, "`same-process` or `other-process`, as in calls.csv"),
	COL_INFO("cpus", COL_STR, "", 0, "OS CPU of each thread, caller first, `;`-separated"),
	COL_INFO("oversubscribed", COL_INT, "", 0, "1 when some CPU carries more than one thread of the team"),
	COL_COUNT("samples", COL_INT, COL_REQ, "barriers timed"),
	COL_MEASURE("min_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "exact minimum"),
	COL_MEASURE("p50_ns", COL_NUM, "ns", LOWER, PCT, COL_REQ,
		    "median: nearest-rank percentile from the histogram, bucket midpoint (error <= 0.4%)"),
	COL_MEASURE("p90_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "90th percentile, as `p50_ns`"),
	COL_MEASURE("p99_ns", COL_NUM, "ns", LOWER, PCT, COL_REQ, "99th percentile, as `p50_ns`"),
	COL_MEASURE("p999_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "99.9th percentile, as `p50_ns`"),
	COL_MEASURE("max_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "exact maximum"),
	COL_MEASURE("mean_ns", COL_NUM, "ns", LOWER, NONE, 0, "exact mean"),
	COL_COUNT("repeats", COL_INT, COL_POS,
		  "batches the samples were taken in (`--repeat`, each `--duration` long)"),
	COL_CI95("p50_ns_ci95", "p50_ns", "ns", 0,
		 "95% CI half-width of `p50_ns`: the spread of the batches' own percentiles (t over `repeats`, the batch-percentile method); empty with one batch"),
	COL_CI95("p90_ns_ci95", "p90_ns", "ns", 0, "95% CI half-width of `p90_ns`, as `p50_ns_ci95`"),
	COL_CI95("p99_ns_ci95", "p99_ns", "ns", 0, "95% CI half-width of `p99_ns`, as `p50_ns_ci95`"),
	COL_CI95("p999_ns_ci95", "p999_ns", "ns", 0,
		 "95% CI half-width of `p999_ns`; a batch too short to hold ~1000 samples makes it little more than its max"),
	WORK_COLS,
	COL_STATUS("status", COL_REQ, WORK_STATUS_DOC),
	COL_STATUS("skip_reason", 0, "why a skipped or degraded row has no figure"),
	TOPOLOGY_COLS,
};

/* The percentiles reported, and their CI columns. */
#define NPCT 4
static const double pcts[NPCT] = { 50, 90, 99, 99.9 };
static const char *const pct_ci[NPCT] = { "p50_ns_ci95", "p90_ns_ci95", "p99_ns_ci95", "p999_ns_ci95" };

static const struct col hist_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "the point's mechanism"),
	COL_KEY("threads", COL_INT, "", COL_POS, "the point's T"),
	COL_KEY("bucket_lo_ns", COL_INT, "ns", 0, "inclusive lower bound of the bucket"),
	COL_INFO("bucket_hi_ns", COL_INT, "ns", 0, "inclusive upper bound of the bucket"),
	COL_COUNT("count", COL_INT, 0, "samples in the bucket"),
	COL_MEASURE("cumulative_fraction", COL_NUM, "", NONE, NONE, 0,
		    "fraction of the point's samples at or below `bucket_hi_ns`"),
};

const struct table_schema latency_table = {
	.name = "latency", .experiment = "latency", .analysed = 1,
	.rows = "One row per (mechanism, threads); every sample is one barrier timed with two CLOCK_MONOTONIC reads (the `null` row shows that floor).",
	.notes = "Derived: `global_over_private_expedited_p50`: p50 of membarrier-global over p50 of membarrier-private-expedited at the same T (the seed put it at 5000-8000x).",
	.cols = lat_cols, .ncols = NCOLS(lat_cols),
};

const struct table_schema latency_histogram_table = {
	.name = "latency-histogram", .experiment = "latency", .analysed = 1,
	.rows = "Non-empty buckets of each (mechanism, threads) histogram, for CDF plots.",
	.cols = hist_cols, .ncols = NCOLS(hist_cols),
};

struct latency_run {
	const struct opts *o;
	struct table *t, *ht;
	struct results *res;
	struct hist h;		/* the point's calls */
	struct hist cur;	/* one repeat's */
	struct pct_batches bp;	/* each repeat's percentiles */
	struct worksum work;	/* what the barriers did, the degraded repeats */
};

static int latency_row(void *ctx, const struct mechanism *m, int threads)
{
	struct latency_run *l = ctx;
	struct table *t = l->t;
	int r = table_add_row(t);

	table_set_str(t, r, "mechanism", m->name);
	table_set_int(t, r, "threads", threads);
	table_set_str(t, r, "behaviour", behaviour_name(l->o->beh));
	table_set_str(t, r, "scope", l->o->other_process ? "other-process" : "same-process");
	return r;
}

static void hist_rows(struct table *ht, const struct mechanism *m, int T,
		      const struct hist *h)
{
	uint64_t seen = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo, hi;
		int r;

		if (!h->b[i])
			continue;
		seen += h->b[i];
		hist_bucket_bounds(i, &lo, &hi);
		r = table_add_row(ht);
		table_set_str(ht, r, "mechanism", m->name);
		table_set_int(ht, r, "threads", T);
		table_set_int(ht, r, "bucket_lo_ns", (long long)lo);
		table_set_int(ht, r, "bucket_hi_ns", (long long)hi);
		table_set_int(ht, r, "count", (long long)h->b[i]);
		table_set_num(ht, r, "cumulative_fraction", (double)seen / (double)h->count);
	}
}

static int latency_measure(void *ctx, const struct mechanism *m, int T, const struct team *team)
{
	struct latency_run *l = ctx;
	const struct opts *o = l->o;
	struct workdone w;
	int err, good = 0;

	(void)T;
	hist_reset(&l->h);
	pct_batches_reset(&l->bp);
	worksum_reset(&l->work);
	err = harness_warmup(m, o->iterations ? 0.02 : o->duration_s / 10);
	workdone_init(&w, team);
	/*
	 * Each good repeat is a batch: its percentiles give the spread from
	 * which the pooled percentiles' CIs come (batch-percentile method). A
	 * degraded repeat is left out and measured again.
	 */
	for (int a = 0; a < work_attempts(o->repeat) && good < o->repeat && !err; a++) {
		struct measure me;
		struct work k;
		char why[200] = "";
		int bad;

		hist_reset(&l->cur);
		workdone_begin(&w);
		harness_measure(m, o->iterations, o->duration_s, &l->cur, &me);
		workdone_end(&w, me.calls, &k);
		err = me.err;
		if (!l->cur.count)
			continue;
		bad = work_degraded(&w, &k, why, sizeof(why));
		worksum_add(&l->work, &k, bad, why);
		if (bad && !o->keep_degraded)
			continue;
		good++;
		pct_batches_add(&l->bp, &l->cur);
		hist_merge(&l->h, &l->cur);
	}
	workdone_free(&w);
	return err ? err : l->h.count || l->work.degraded ? 0 : -EIO;
}

static void latency_fill(void *ctx, int row, const struct mechanism *m, int T,
			 const struct placement *pl)
{
	struct latency_run *l = ctx;
	struct table *t = l->t;
	const struct hist *h = &l->h;
	char what[128];

	table_set_int(t, row, "oversubscribed", pl->oversubscribed);
	snprintf(what, sizeof(what), "%s T=%d", m->name, T);
	if (work_fill(t, row, &l->work, l->bp.n, l->o->repeat, what, l->res))
		return;
	table_set_int(t, row, "samples", (long long)h->count);
	table_set_num(t, row, "min_ns", (double)h->min);
	table_set_num(t, row, "p50_ns", hist_percentile(h, 50));
	table_set_num(t, row, "p90_ns", hist_percentile(h, 90));
	table_set_num(t, row, "p99_ns", hist_percentile(h, 99));
	table_set_num(t, row, "p999_ns", hist_percentile(h, 99.9));
	table_set_num(t, row, "max_ns", (double)h->max);
	table_set_num(t, row, "mean_ns", h->sum / (double)h->count);
	table_set_int(t, row, "repeats", l->bp.n);
	/* With one repeat there is no spread to take a CI from: empty cells. */
	if (l->bp.n >= 2)
		for (int k = 0; k < NPCT; k++)
			table_set_num(t, row, pct_ci[k], pct_batches_ci95(&l->bp, k));
	hist_rows(l->ht, m, T, h);
	if (h->count < 1000)
		results_note(l->res, "%s T=%d: only %llu samples; p99.9 is the max", m->name, T, (unsigned long long)h->count);
	if (pl->oversubscribed)
		results_note(l->res, "%s T=%d: oversubscribed", m->name, T);
}

/* membarrier-global / membarrier-private-expedited at the same T. */
static void derive_ratio(struct results *res, const struct table *t)
{
	for (int a = 0; a < t->nrows; a++) {
		const char *st = table_get(t, a, "status");

		if (strcmp(table_get(t, a, "mechanism"), "membarrier-global") ||
		    strcmp(st, "ok"))
			continue;
		for (int b = 0; b < t->nrows; b++) {
			double g, p;

			if (strcmp(table_get(t, b, "mechanism"),
				   "membarrier-private-expedited") ||
			    strcmp(table_get(t, b, "status"), "ok") ||
			    strcmp(table_get(t, a, "threads"), table_get(t, b, "threads")))
				continue;
			g = table_get_num(t, a, "p50_ns");
			p = table_get_num(t, b, "p50_ns");
			results_derived(res, "global_over_private_expedited_p50", g / p,
					"membarrier-global / membarrier-private-expedited at T=%s: p50 %.0f ns / %.0f ns = %.0fx (seed 2010: 5000-8000x)",
					table_get(t, a, "threads"), g, p, g / p);
			return;
		}
	}
}

static int exp_latency_main(int argc, char **argv)
{
	struct exp_spec spec = {
		.name = "latency",
		.synopsis = "Per-call latency distribution of each mechanism (min, p50, p90, p99, p99.9, max).",
		.common = CO_ALL,
		.def_mech = "all",
		.def_threads = "ncpus",
		.def_duration_s = 1.0,
		.def_repeat = 1,
	};
	struct opts o;
	struct table t, ht;
	struct results res;
	struct latency_run l = { 0 };
	struct point_ops ops = {
		.exp = "latency", .t = &t, .ctx = &l,
		.row = latency_row, .measure = latency_measure, .fill = latency_fill,
	};

	opts_parse(argc, argv, &spec, &o);
	opts_apply_membind(&o);
	table_init(&t, lat_cols, (int)(sizeof(lat_cols) / sizeof(lat_cols[0])));
	table_init(&ht, hist_cols, (int)(sizeof(hist_cols) / sizeof(hist_cols[0])));
	results_begin(&res, &o, &t);
	results_add_table(&res, "histogram", &ht);
	hist_init(&l.h);
	hist_init(&l.cur);
	pct_batches_init(&l.bp, pcts, NPCT, o.repeat);
	l.o = &o;
	l.t = &t;
	l.ht = &ht;
	l.res = &res;
	for_each_point(&o, &ops);
	derive_ratio(&res, &t);
	results_note(&res, "each sample includes two CLOCK_MONOTONIC reads; the null row shows that floor");
	results_emit(&res);
	hist_free(&l.h);
	hist_free(&l.cur);
	pct_batches_free(&l.bp);
	table_free(&t);
	table_free(&ht);
	opts_free(&o);
	return 0;
}

/* The sweep: every mechanism, its duration in --repeat batches whose
 * spread gives the percentiles' CIs. */
static double latency_cost(const struct preset *p, const struct plan_host *h,
			   const struct mechanism *m)
{
	(void)m;
	return p->duration + 0.08 + PLAN_TH * h->npus;
}

static void latency_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	fprintf(f, " --placement %s%s --duration %g --repeat %d", h->placement, h->behaviour,
		p->duration / p->repeat, p->repeat);
}

const struct experiment exp_latency = {
	.tables = (const struct table_schema *const[]){ &latency_table, &latency_histogram_table, NULL },
	.name = "latency",
	.summary = "per-call latency distribution per mechanism",
	.main = exp_latency_main,
	.quick = { .duration = 0.03, .repeat = 2 },
	.full = { .duration = 3, .repeat = 5 },
	.floor = 0.1,
	.cost = latency_cost,
	.options = latency_options,
};
