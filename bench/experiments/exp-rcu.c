// SPDX-License-Identifier: MIT
/*
 * rcu: reads/s and writes/s of a userspace RCU per read-side/write-side
 * scheme, ours and liburcu's side by side. It reproduces the seed's closing
 * table (6 readers, 2 writers, 10 s on 8 CPUs: smp_mb in the reader 973 M
 * reads / 892 K writes, signals 6.29 G / 1251, sys_membarrier expedited
 * 4.32 G / 504 K, non-expedited 8.70 G / 313) and its two ratios, on any
 * host. Every run is also a torture test: a reader that sees a freed
 * (poisoned) object is a violation, and any violation fails the run.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "rcu.h"
#include "results.h"
#include "util.h"
#include "workdone.h"

static const struct col rcu_cols[] = {
	COL_KEY("scheme", COL_STR, "", COL_REQ,
		"`mb`, `signal`, `signal-spin`, `membarrier-private-expedited`, `membarrier-global`, `mprotect`, `seed-v5-expedited`, `seed-v1-ipi-all`, `seed-v5-sched`, `qsbr`, `liburcu-mb`, `liburcu-signal`, `liburcu-memb`, `liburcu-qsbr` (and, with `--allow-broken` only, `broken-no-wait`, `broken-no-barrier`)"),
	COL_INFO("family", COL_STR, "", COL_REQ, "`ours`, `liburcu` or `broken`"),
	COL_KEY("readers", COL_INT, "", COL_REQ | COL_SETTING, "reader threads R"),
	COL_KEY("writers", COL_INT, "", COL_REQ | COL_SETTING, "writer threads W"),
	COL_INFO("placement", COL_STR, "", 0, "placement policy"),
	COL_INFO("cpus", COL_STR, "", 0, "OS CPU of each thread, readers first, `;`-separated"),
	COL_INFO("oversubscribed", COL_INT, "", 0, "1 when R + W threads share fewer CPUs"),
	COL_KEY("cs_ns", COL_INT, "ns", COL_SETTING, "read-side critical section (0 = none)"),
	COL_KEY("writer_delay_ns", COL_INT, "ns", COL_SETTING, "writer pause (0 = none)"),
	COL_COUNT("repeats", COL_INT, COL_POS, "repeats measured"),
	COL_INFO("duration_s", COL_NUM, "s", 0, "mean measured wall time of one repeat"),
	COL_COUNT("reads", COL_NUM, COL_REQ, "reads, mean per repeat, summed over readers (the seed's table)"),
	COL_COUNT("writes", COL_NUM, COL_REQ, "writes, mean per repeat, summed over writers (the seed's table)"),
	COL_MEASURE("reads_per_s", COL_NUM, "1/s", HIGHER, MEAN, 0, "reads per second, mean over repeats"),
	COL_CI95("reads_per_s_ci95", "reads_per_s", "1/s", 0, "its 95% CI half-width (empty with one repeat)"),
	COL_MEASURE("writes_per_s", COL_NUM, "1/s", HIGHER, MEAN, 0, "writes per second, mean over repeats"),
	COL_CI95("writes_per_s_ci95", "writes_per_s", "1/s", 0, "its 95% CI half-width (empty with one repeat)"),
	COL_INFO("ci_target_pct", COL_NUM, "%", 0, "with `--ci-target`: the target; empty without it"),
	COL_INFO("ci_achieved_pct", COL_NUM, "%", 0,
		 "with `--ci-target`: the wider of the two rates' 95% CI half-widths reached (% of its mean)"),
	COL_INFO("ci_target_met", COL_INT, "", 0,
		 "with `--ci-target`: 1 if both met it within `--max-repeat` (after one discarded warm-up run, whose torture check still counts)"),
	COL_MEASURE("violations", COL_INT, "", LOWER, NONE, COL_REQ,
		    "reads, over all repeats, that saw a poisoned (retired) object; any > 0 fails the run (exit 1)"),
	COL_INFO("peak_quarantine", COL_INT, "", 0, "most retired objects one writer held poisoned at once"),
	WORK_COLS,
	COL_STATUS("status", COL_REQ, "`ok`, `failed` (violations, in any run), `degraded` (fewer good repeats than --repeat: no figure; `skip_reason` says why) or `skipped`"),
	COL_STATUS("skip_reason", 0, "e.g. `needs the patched kernel (kernel-patch/)`, `built without liburcu ...`"),
};

const struct table_schema rcu_table = {
	.name = "rcu", .experiment = "rcu", .analysed = 1,
	.rows = "One row per scheme. Readers run on the first `readers` CPUs of the placement, writers on the next `writers`. In the work columns a barrier is one write (one grace period): `ipis_per_barrier` counts the IPIs the readers' CPUs (those no writer shares) received per write, and a membarrier scheme is due one per such CPU; `target_oncpu_share` is the least reader's.",
	.notes = "Derived: `write_ratio_membarrier_over_signal` (writes/s of membarrier-private-expedited over signal; the seed: 400:1) and `read_ratio_membarrier_over_mb` (reads/s of membarrier-private-expedited over mb; the seed: 4.5:1), when both rows were measured. Notes compare each of our schemes with its liburcu counterpart.",
	.cols = rcu_cols, .ncols = NCOLS(rcu_cols),
};

struct rcu_args {
	int allow_broken;
	int readers, writers;	/* 0 = default rule */
	uint64_t cs_ns, writer_delay_ns;
	const char *schemes;
};

/* --scheme LIST|all into a list; bad names and broken ones exit 2. */
static int parse_schemes(const char *arg, int allow_broken,
			 const struct rcu_scheme **out)
{
	char *copy = xstrdup(arg), *save = NULL;
	int n = 0;

	if (!strcmp(arg, "all")) {
		for (size_t i = 0; i < nr_rcu_schemes; i++)
			if (!rcu_scheme_is_broken(rcu_schemes[i]))
				out[n++] = rcu_schemes[i];
		free(copy);
		return n;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct rcu_scheme *s = rcu_scheme_find(tok);

		if (!s)
			die("unknown --scheme '%s' (valid: %s, all)", tok,
				  rcu_scheme_names(0));
		if (rcu_scheme_is_broken(s) && !allow_broken)
			die("--scheme %s is deliberately broken: only with --allow-broken (tests)",
				  tok);
		for (int i = 0; i < n; i++)
			if (out[i] == s)
				s = NULL;
		if (s)
			out[n++] = s;
	}
	free(copy);
	if (!n)
		die("--scheme needs at least one name (valid: %s, all)",
			  rcu_scheme_names(0));
	return n;
}

static int base_row(struct table *t, const struct rcu_scheme *s, int R, int W,
		    const char *placement, const struct rcu_args *a)
{
	int r = table_add_row(t);

	table_set_str(t, r, "scheme", s->name);
	table_set_str(t, r, "family", s->family);
	table_set_int(t, r, "readers", R);
	table_set_int(t, r, "writers", W);
	table_set_str(t, r, "placement", placement);
	table_set_int(t, r, "cs_ns", (long long)a->cs_ns);
	table_set_int(t, r, "writer_delay_ns", (long long)a->writer_delay_ns);
	return r;
}

static double row_num(const struct table *t, const char *scheme, const char *col)
{
	for (int r = 0; r < t->nrows; r++) {
		if (strcmp(table_get(t, r, "scheme"), scheme) ||
		    strcmp(table_get(t, r, "status"), "ok"))
			continue;
		return table_get_num(t, r, col);
	}
	return NAN;
}

static void derive(struct results *res, const struct table *t)
{
	double pe_w = row_num(t, "membarrier-private-expedited", "writes_per_s");
	double pe_r = row_num(t, "membarrier-private-expedited", "reads_per_s");
	double sig_w = row_num(t, "signal", "writes_per_s");
	double mb_r = row_num(t, "mb", "reads_per_s");
	static const char *const pairs[][2] = {
		{ "mb", "liburcu-mb" },
		{ "signal", "liburcu-signal" },
		{ "membarrier-private-expedited", "liburcu-memb" },
		{ "qsbr", "liburcu-qsbr" },
	};

	if (isfinite(pe_w) && isfinite(sig_w) && sig_w > 0)
		results_derived(res, "write_ratio_membarrier_over_signal", pe_w / sig_w,
				"write side: membarrier-private-expedited / signal = %.1f:1 (seed: 400:1)",
				pe_w / sig_w);
	if (isfinite(pe_r) && isfinite(mb_r) && mb_r > 0)
		results_derived(res, "read_ratio_membarrier_over_mb", pe_r / mb_r,
				"read side: membarrier-private-expedited / mb = %.2f:1 (seed: 4.5:1)",
				pe_r / mb_r);
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		double or = row_num(t, pairs[i][0], "reads_per_s");
		double ow = row_num(t, pairs[i][0], "writes_per_s");
		double lr = row_num(t, pairs[i][1], "reads_per_s");
		double lw = row_num(t, pairs[i][1], "writes_per_s");

		if (isfinite(or) && isfinite(lr) && lr > 0 && lw > 0)
			results_note(res, "ours/liburcu: %s / %s = %.2fx reads/s, %.2fx writes/s",
				     pairs[i][0], pairs[i][1], or / lr, ow / lw);
	}
}

/* The work of one run (workdone.h), marked from the readers' start to stop. */
struct rcu_work {
	struct workdone w;
	struct work k;
};

static void rcu_mark(void *arg, const pid_t *tids)
{
	struct rcu_work *rw = arg;

	if (tids) {
		rw->w.tids = tids;
		workdone_begin(&rw->w);
	} else {
		/* per write, once the run's writes are known */
		workdone_end(&rw->w, 1, &rw->k);
	}
}

/*
 * What a scheme's writes should do: a membarrier scheme's forced barrier
 * interrupts each reader's CPU (those no writer shares) once per write;
 * other schemes' IPIs are counted, not judged. Readers should stay on
 * their CPUs; an oversubscribed run is marked, never judged.
 */
static void rcu_work_init(struct workdone *w, const struct rcu_scheme *s, const struct placement *pl,
			  int R, int W)
{
	const struct mechanism *m = rcu_scheme_mech(s);
	int *cpus = xcalloc((size_t)R + 1, sizeof(int)), n = 0;
	double expect = -1;

	for (int i = 0; i < R; i++) {
		int shared = 0;

		for (int j = R; j < R + W; j++)
			shared |= pl->pu_os[j] == pl->pu_os[i];
		if (!shared)
			cpus[n++] = pl->pu_os[i];
	}
	if (m && m->membarrier_cmd && mech_has(m, MC_IPI, 0) && mech_has(m, MC_PROCESS_WIDE, 0))
		expect = n;
	workdone_init_cpus(w, cpus, n, NULL, R, !pl->oversubscribed, expect);
	free(cpus);
}

static int exp_rcu_main(int argc, char **argv)
{
	struct rcu_args a = { 0 };
	struct repeats rp = REPEATS_INIT;
	const struct exp_opt rcu_opts[] = {
		OPT_FLAG("allow-broken", "accept the broken-* schemes (tests only)", &a.allow_broken),
		OPT_U64("cs-ns", "N", "read-side critical section length, ns (default 0)",
			&a.cs_ns, 0, 1000000000ull, "(nanoseconds, 0 to 1000000000)"),
		OPT_INT("readers", "R", "reader threads (default: CPUs minus writers, >= 1)",
			&a.readers, 1, MAX_THREADS, "(a thread count from 1 to 4096)"),
		OPT_STRING("scheme", "LIST|all", "schemes, comma separated (default all):\n"
			   "mb, signal, signal-spin,\n"
			   "membarrier-private-expedited, membarrier-global,\n"
			   "mprotect, seed-v5-expedited,\n"
			   "seed-v1-ipi-all, seed-v5-sched, qsbr, liburcu-mb,\n"
			   "liburcu-signal, liburcu-memb, liburcu-qsbr", &a.schemes),
		OPT_U64("writer-delay-ns", "N", "writer pause between updates, ns (default 0)",
			&a.writer_delay_ns, 0, 1000000000ull, "(nanoseconds, 0 to 1000000000)"),
		OPT_INT("writers", "W", "writer threads (default: CPUs / 4, >= 1)",
			&a.writers, 1, MAX_THREADS, "(a thread count from 1 to 4096)"),
		REPEATS_OPTS(&rp),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "rcu",
		.synopsis = "Userspace RCU reads/s and writes/s per scheme (ours and liburcu's), with a torture check on every read.",
		.common = CO_DURATION | CO_REPEAT | CO_FORMAT | CO_JSON | CO_OUTPUT |
			  CO_PLACEMENT | CO_MEMBIND | CO_WORK,
		.opts = rcu_opts,
		.def_duration_s = 1.0,
		.def_repeat = 3,
	};
	const struct rcu_scheme **schemes;
	struct opts o;
	struct table t;
	struct results res;
	struct placement pl;
	char err[256];
	int nschemes, R, W, ncpus, failed = 0, cap;
	char *cpus;

	opts_parse(argc, argv, &spec, &o);
	repeats_check(&rp, &o);
	cap = repeats_cap(&rp, &o);
	if (o.iterations)
		die("rcu runs for a time: use --duration, not --iterations");
	schemes = xcalloc(nr_rcu_schemes, sizeof(*schemes));
	nschemes = parse_schemes(a.schemes ? a.schemes : "all", a.allow_broken, schemes);
	/* The seed ran 6 readers and 2 writers on 8 CPUs: keep that 3:1 split. */
	ncpus = topo_npus(o.topo);
	W = a.writers ? a.writers : (ncpus / 4 > 1 ? ncpus / 4 : 1);
	R = a.readers ? a.readers : (ncpus - W > 1 ? ncpus - W : 1);
	if (placement_compute(o.topo, o.placement, R + W, &pl, err, sizeof(err)) ||
	    placement_check_affinity(&pl, err, sizeof(err)))
		die("%s", err);
	o.nmechs = 0;	/* params: the schemes are in the points */
	opts_apply_membind(&o);
	table_init(&t, rcu_cols, (int)(sizeof(rcu_cols) / sizeof(rcu_cols[0])));
	results_begin(&res, &o, &t);
	cpus = placement_cpus_str(&pl, 0, pl.n);
	results_note(&res, "%d readers on CPUs %s..., %d writers after them (cpus column: readers first)",
		     R, cpus, W);
	if (pl.oversubscribed)
		results_note(&res, "oversubscribed: %d threads on %d CPU%s; reads and writes include scheduling",
			     R + W, placement_distinct_cpus(&pl), placement_distinct_cpus(&pl) == 1 ? "" : "s");

	for (int si = 0; si < nschemes; si++) {
		const struct rcu_scheme *s = schemes[si];
		double *rps = xcalloc((size_t)cap, sizeof(double));
		double *wps = xcalloc((size_t)cap, sizeof(double));
		double reads = 0, writes = 0, secs = 0;
		int n = 0;
		uint64_t viol = 0, peakq = 0;
		struct summary sr, sw;
		char reason[256] = "";
		int row = base_row(&t, s, R, W, o.placement, &a), ok = 1;
		struct rcu_work rw;
		struct rcu_marks marks = { rcu_mark, &rw };
		struct worksum ws;

		progress("rcu", si + 1, nschemes, s->name);
		table_set_str(&t, row, "cpus", cpus);
		if (rcu_scheme_probe(s, reason, sizeof(reason)))
			ok = 0;
		/*
		 * With --ci-target: a warm-up run whose rates are discarded (its
		 * torture check still counts), then runs until both rates' CIs
		 * are within the target (at least --repeat and 3 runs).
		 */
		rcu_work_init(&rw.w, s, &pl, R, W);
		worksum_reset(&ws);
		/* A degraded run is counted, left out and run again. */
		for (int at = rp.ci_target ? -1 : 0; at < work_attempts(cap) && n < cap && ok; at++) {
			struct rcu_result rr;
			char why[200] = "";
			int bad;

			if (rcu_run_once(s, R, W, o.topo, pl.pu_os, o.duration_s,
					 a.cs_ns, a.writer_delay_ns, &marks, &rr, reason,
					 sizeof(reason))) {
				ok = 0;
				break;
			}
			viol += rr.violations;
			if (rr.peak_quarantined > peakq)
				peakq = rr.peak_quarantined;
			if (at < 0)
				continue;
			rw.k.ipis_per_barrier = rr.writes ? rw.k.ipis_per_barrier / (double)rr.writes : NAN;
			bad = work_degraded(&rw.w, &rw.k, why, sizeof(why));
			worksum_add(&ws, &rw.k, bad, why);
			if (bad && !o.keep_degraded)
				continue;
			rps[n] = (double)rr.reads / ((double)rr.ns / 1e9);
			wps[n] = (double)rr.writes / ((double)rr.ns / 1e9);
			reads += (double)rr.reads;
			writes += (double)rr.writes;
			secs += (double)rr.ns / 1e9;
			n++;
			/* Both rates within the target. */
			if (ci_target_reached(rps, n, o.repeat, rp.ci_target) &&
			    ci_target_reached(wps, n, o.repeat, rp.ci_target))
				break;
		}
		workdone_free(&rw.w);
		if (!ok) {
			row_skip(&t, row, reason);
		} else if (work_fill(&t, row, &ws, n, o.repeat < cap ? o.repeat : cap, s->name, &res)) {
			table_set_int(&t, row, "oversubscribed", pl.oversubscribed);
			table_set_int(&t, row, "violations", (long long)viol);
			if (viol) {
				table_set_str(&t, row, "status", "failed");
				failed = 1;
			}
		} else {
			summarize(rps, n, &sr);
			summarize(wps, n, &sw);
			table_set_int(&t, row, "oversubscribed", pl.oversubscribed);
			table_set_int(&t, row, "repeats", n);
			table_set_num(&t, row, "duration_s", secs / n);
			table_set_num(&t, row, "reads", reads / n);
			table_set_num(&t, row, "writes", writes / n);
			table_set_num(&t, row, "reads_per_s", sr.mean);
			table_set_num(&t, row, "reads_per_s_ci95", sr.ci95);
			table_set_num(&t, row, "writes_per_s", sw.mean);
			table_set_num(&t, row, "writes_per_s_ci95", sw.ci95);
			/* The target is met when both rates meet it: report the wider. */
			if (rp.ci_target)
				table_set_ci_target(&t, row, &res, rp.ci_target,
						    sw.mean > 0 && sw.ci95 / sw.mean > sr.ci95 / sr.mean ? &sw : &sr,
						    n, s->name);
			table_set_int(&t, row, "violations", (long long)viol);
			table_set_int(&t, row, "peak_quarantine", (long long)peakq);
			table_set_str(&t, row, "status", viol ? "failed" : "ok");
			if (viol) {
				failed = 1;
				results_note(&res, "%s: %llu reads saw a freed (poisoned) object: the scheme does not protect readers",
					     s->name, (unsigned long long)viol);
			}
			if (sr.cv > 0.10 || sw.cv > 0.10)
				results_note(&res, "%s: CV %.0f%% reads, %.0f%% writes is high; more --repeat or a quieter host",
					     s->name, sr.cv * 100, sw.cv * 100);
		}
		free(rps);
		free(wps);
	}
	derive(&res, &t);
	results_emit(&res);
	free(cpus);
	placement_free(&pl);
	table_free(&t);
	free(schemes);
	opts_free(&o);
	return failed ? 1 : 0;
}

/* The sweep: one point, every scheme; at most, with the warm-up. A scheme
 * whose mechanism is absent is a skipped row. */
static double rcu_cost(const struct preset *p, const struct plan_host *h,
		       const struct mechanism *m)
{
	int runs = 0, reps = p->ci_target > 0 ? p->max_repeat + 1 : p->repeat;

	(void)m;
	for (size_t i = 0; i < nr_rcu_schemes; i++) {
		const struct mechanism *sm = rcu_scheme_mech(rcu_schemes[i]);

		if (!rcu_scheme_is_broken(rcu_schemes[i]) && (!sm || h->available(h, sm)))
			runs++;
	}
	return runs * reps * (p->duration + 0.013 + PLAN_TH * h->npus) + 0.1;
}

static void rcu_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	fprintf(f, " --placement %s", h->placement);
	plan_repeat_options(f, p, p->ci_target > 0 && p->max_repeat > p->repeat);
}

const struct experiment exp_rcu = {
	.tables = (const struct table_schema *const[]){ &rcu_table, NULL },
	.name = "rcu",
	.summary = "userspace RCU reads/s and writes/s per scheme, with torture",
	.main = exp_rcu_main,
	.quick = { .duration = 0.05, .repeat = 1 },
	.full = { .duration = 4, .repeat = 3 },
	.floor = 0.1,
	.cut = CUT_HALVE,
	.all_opt = "--scheme",
	.cost = rcu_cost,
	.options = rcu_options,
};
