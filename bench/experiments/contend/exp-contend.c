// SPDX-License-Identifier: MIT
/*
 * contend: C callers issue barriers of one mechanism at full speed at the
 * same time, as threads of one process or as C processes, while spinner
 * threads keep the CPUs busy. Since the fix for CVE-2024-26602 every
 * expedited membarrier IPI in the system is serialized by one kernel mutex
 * (membarrier_ipi_mutex), so aggregate expedited barriers/s stop growing
 * with C; signal and mprotect are not behind that mutex. Per-caller rates
 * also show fairness.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "barrier.h"
#include "contend.h"
#include "experiment.h"
#include "pinned.h"
#include "points.h"
#include "results.h"
#include "util.h"
#include "workdone.h"

#define MAX_CALLERS 1024
/*
 * Processes mode gives each caller process its own spinners; with C up to
 * 2 x PUs that would be 2 x PUs^2 threads (131072 on 256 PUs). Each process
 * keeps at most PROC_THREADS_PER_PU x PUs / C - 1 spinners, so a point starts
 * at most 4 x PUs threads in all (what 2 PUs always ran: C=4, 1 spinner each).
 */
#define PROC_THREADS_PER_PU 4

static const struct col contend_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY_IN("mode", "threads|processes", COL_REQ,
		"`threads` (C caller threads in one process, with `spinners` spinning threads) or `processes` (C processes, each one caller plus `spinners` spinning threads)"),
	COL_KEY("callers", COL_INT, "", COL_REQ | COL_POS, "C"),
	COL_KEY("spinners", COL_INT, "", COL_REQ | COL_SETTING,
		"spinning threads in the process (threads mode) or in each caller process (processes mode: `--spinners`, at most 4 x PUs / C - 1)"),
	COL_INFO("cpus", COL_STR, "", 0, "OS CPU of each thread (callers first), `;`-separated"),
	COL_INFO("oversubscribed", COL_INT, "", 0, "1 when some CPU carries more than one thread"),
	COL_COUNT("repeats", COL_INT, COL_POS, "repeats measured"),
	COL_MEASURE("aggregate_calls_per_s", COL_NUM, "1/s", HIGHER, MEAN, COL_REQ,
		    "barriers per second summed over the callers, mean over repeats"),
	COL_CI95("aggregate_calls_per_s_ci95", "aggregate_calls_per_s", "1/s", 0, "its 95% CI half-width over repeats"),
	COL_MEASURE("per_caller_calls_per_s", COL_NUM, "1/s", HIGHER, NONE, 0, "mean per caller"),
	COL_MEASURE("per_caller_min_calls_per_s", COL_NUM, "1/s", HIGHER, NONE, 0, "slowest caller in any repeat (fairness)"),
	COL_MEASURE("per_caller_max_calls_per_s", COL_NUM, "1/s", NONE, NONE, 0, "fastest caller in any repeat (fairness)"),
	COL_MEASURE("p50_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "median latency of one barrier over all callers"),
	COL_MEASURE("p99_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "99th percentile latency of one barrier over all callers"),
	COL_MEASURE("max_ns", COL_NUM, "ns", LOWER, NONE, 0, "maximum latency of one barrier over all callers"),
	WORK_COLS,
	COL_STATUS("status", COL_REQ, WORK_STATUS_DOC),
	COL_STATUS("skip_reason", 0, "why a skipped or degraded row has no figure"),
	TOPOLOGY_COLS,
	COL_INFO("ci_target_pct", COL_NUM, "%", 0,
		 "with `--ci-target`: the target, 95% CI half-width as % of the aggregate's mean; empty otherwise"),
	COL_INFO("ci_achieved_pct", COL_NUM, "%", 0, "with `--ci-target`: the half-width reached, % of the aggregate's mean"),
	COL_INFO("ci_target_met", COL_INT, "", 0,
		 "with `--ci-target`: 1 if met within `--max-repeat` (after one discarded warm-up repeat), else 0"),
	COL_MEASURE("serialization_factor", COL_NUM, "", HIGHER, NONE, 0,
		    "processes mode: `aggregate_calls_per_s` over that of C=1 (same mechanism); 1 = the callers take turns, C = they run side by side; empty in threads mode and where `serialization_skip_reason` says why"),
	COL_CI95("serialization_factor_ci95", "serialization_factor", "", 0,
		 "its 95% CI half-width, from both aggregates' (first order); empty at C=1"),
	COL_INFO("serialization_skip_reason", COL_STR, "", 0,
		 "processes mode, an `ok` row: why it has no factor (oversubscribed, no C=1 point)"),
};

const struct table_schema contend_table = {
	.name = "contend", .experiment = "contend", .analysed = 1,
	.rows = "One row per (mechanism, mode, callers). C callers issue barriers at full speed for `--duration`; spinners keep the other CPUs busy. The topology columns count the other callers and every spinner, in all processes. The work columns count IPIs on the spinners' CPUs that no caller shares, per barrier of all callers (a membarrier command is due one per such CPU of the caller's process), and the spinners' on-CPU share.",
	.notes = "serialization_factor (processes mode) = aggregate_calls_per_s at C / aggregate_calls_per_s at C=1 of the same mechanism, computed once every point is measured (and, in a sweep's merged table, from the merged means); its CI half-width is factor x sqrt((h_C/a_C)^2 + (h_1/a_1)^2). It is left empty, with serialization_skip_reason, where the C point or the C=1 point is oversubscribed (callers and their spinners cannot each have a CPU) or has no spinners (nothing to target: a one-thread process's barrier returns before the kernel's mutex).",
	.cols = contend_cols, .ncols = NCOLS(contend_cols),
};

struct contend_args {
	int *callers, ncallers;
	int threads_mode, processes_mode;
	int spinners;	/* -1: one per CPU beyond the callers */
	struct repeats rep;	/* --ci-target, --max-repeat */
};

static const char *const contend_modes[] = { "threads", "processes", "both", NULL };
enum { MODE_THREADS, MODE_PROCESSES, MODE_BOTH };

/* Spinners in each caller process: --spinners, within the bound above. */
static int proc_spinners(int spinners, int callers, int npus)
{
	int most = PROC_THREADS_PER_PU * npus / callers - 1;

	return spinners < most ? spinners : (most > 0 ? most : 0);
}

static int point(struct results *res, struct table *t, const struct opts *o,
		 const struct contend_args *a, const struct mechanism *m,
		 int processes, int C, int S, double dur)
{
	/* Processes mode: S spinners in each caller process. */
	struct run r = { .m = m, .topo = o->topo, .callers = C,
			 .spinners = processes ? C * S : S };
	struct placement pl;
	char reason[256] = "", *cpus = NULL;
	/* With a CI target: one discarded warm-up repeat, then at least
	 * --repeat and at most --max-repeat until the CI is within it. */
	int warm = a->rep.ci_target > 0, cap = repeats_cap(&a->rep, o);
	double *agg = xcalloc((size_t)cap, sizeof(double));
	double per_sum = 0, per_min = 1e300, per_max = 0;
	struct hist all;
	int row, err = 0, ok = 1, nrep = 0;
	struct summary s;
	struct workdone w = { 0 };
	struct worksum ws;
	char what[128];

	hist_init(&all);
	worksum_reset(&ws);
	if (placement_compute(o->topo, o->placement, C + r.spinners, &pl, reason,
			      sizeof(reason)))
		ok = 0;
	if (ok)
		contend_work(&w, &r, &pl, processes);
	for (int at = -warm; ok && at < work_attempts(cap) && nrep < cap; at++) {
		double sum = 0;
		struct work k;
		char why[200] = "";
		int bad;

		r.pl = &pl;
		r.sh = shared_map(C, C + r.spinners);
		r.work = &w;
		r.done = &k;
		if (run_once(&r, processes, dur, reason, sizeof(reason))) {
			ok = 0;
		} else if (at < 0) {
			/* the warm-up: measured, not kept */
		} else {
			/* A degraded repeat is counted, left out, measured again. */
			bad = work_degraded(&w, &k, why, sizeof(why));
			worksum_add(&ws, &k, bad, why);
			for (int c = 0; c < C && (!bad || o->keep_degraded); c++) {
				struct caller_slot *cs = &r.sh->slot[c];
				double rate = cs->calls ? (double)cs->calls / dur : 0;

				if (cs->err)
					err = cs->err;
				sum += rate;
				per_sum += rate;
				if (rate < per_min)
					per_min = rate;
				if (rate > per_max)
					per_max = rate;
				hist_merge(&all, &cs->h);
			}
			if (!bad || o->keep_degraded)
				agg[nrep++] = sum;
		}
		munmap(r.sh, shared_size(C, C + r.spinners));
		if (ok && ci_target_reached(agg, nrep, o->repeat, a->rep.ci_target))
			break;
	}
	row = table_add_row(t);
	table_set_str(t, row, "mechanism", m->name);
	table_set_str(t, row, "mode", processes ? "processes" : "threads");
	table_set_int(t, row, "callers", C);
	table_set_int(t, row, "spinners", S);
	if (ok) {
		cpus = placement_cpus_str(&pl, 0, pl.n);
		table_set_str(t, row, "cpus", cpus);
		table_set_topology(t, row, o->topo, &pl);
		table_set_int(t, row, "oversubscribed", pl.oversubscribed);
	}
	if (ok && err) {
		snprintf(reason, sizeof(reason), "barrier failed: %s", strerror(-err));
		ok = 0;
	}
	if (ok && !all.count && !ws.degraded) {
		snprintf(reason, sizeof(reason), "no barrier completed in %.3g s", dur);
		ok = 0;
	}
	snprintf(what, sizeof(what), "%s %s C=%d", m->name, processes ? "processes" : "threads", C);
	if (!ok) {
		row_skip(t, row, reason);
	} else if (work_fill(t, row, &ws, nrep, o->repeat < cap ? o->repeat : cap, what, res)) {
		/* degraded: no figure */
	} else {
		summarize(agg, nrep, &s);
		table_set_int(t, row, "repeats", nrep);
		table_set_num(t, row, "aggregate_calls_per_s", s.mean);
		table_set_num(t, row, "aggregate_calls_per_s_ci95", s.ci95);
		table_set_num(t, row, "per_caller_calls_per_s", per_sum / (C * nrep));
		if (a->rep.ci_target)
			table_set_ci_target(t, row, res, a->rep.ci_target, &s, nrep, what);
		table_set_num(t, row, "per_caller_min_calls_per_s", per_min);
		table_set_num(t, row, "per_caller_max_calls_per_s", per_max);
		table_set_num(t, row, "p50_ns", hist_percentile(&all, 50));
		table_set_num(t, row, "p99_ns", hist_percentile(&all, 99));
		table_set_num(t, row, "max_ns", (double)all.max);
		table_set_str(t, row, "status", "ok");
		if (pl.oversubscribed)
			results_note(res, "%s %s C=%d: oversubscribed (%d callers + %d spinners on %d CPUs)",
				     m->name, processes ? "processes" : "threads", C, C, r.spinners,
				     topo_npus(o->topo));
	}
	if (pl.n)
		placement_free(&pl);
	if (w.cpus)
		workdone_free(&w);
	free(cpus);
	free(agg);
	hist_free(&all);
	return ok ? 0 : -1;
}

static int exp_contend_main(int argc, char **argv)
{
	struct contend_args a = { .spinners = -1, .rep = REPEATS_INIT };
	int mode_arg = MODE_THREADS;
	const struct exp_opt contend_opts[] = {
		OPT_INT_LIST("callers", "LIST", "caller counts C (default: from the topology and\n"
			     "powers of two up to 2 x CPUs; at most 1024)",
			     &a.callers, &a.ncallers, 1, MAX_CALLERS,
			     "(caller counts 1..1024 like 1,2,4 or 1-4)"),
		OPT_CHOICE("mode", "threads|processes|both",
			   "callers as threads of one process or as processes",
			   &mode_arg, contend_modes, "(use threads, processes or both)"),
		OPT_INT("spinners", "N", "spinning threads besides the callers, in the\n"
			"process (threads mode) or in each caller\n"
			"process (processes mode, at most 4 x CPUs / C - 1);\n"
			"default CPUs - 1",
			&a.spinners, 0, 4096, "(a count from 0 to 4096)"),
		REPEATS_OPTS(&a.rep),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "contend",
		.synopsis = "Concurrent callers: C callers (threads or processes) issue barriers at once.",
		.common = CO_MECH | CO_PLACEMENT | CO_DURATION | CO_REPEAT | CO_FORMAT |
			  CO_JSON | CO_OUTPUT | CO_WORK | CO_PLANT_SYSCALL,
		.opts = contend_opts,
		.def_mech = "membarrier-private-expedited,signal,mprotect",
		.def_duration_s = 0.3,
		.def_repeat = 3,
	};
	struct opts o;
	struct table t;
	struct results res;
	int npus, npoints, pointno = 0, spinners_default;

	opts_parse(argc, argv, &spec, &o);
	repeats_check(&a.rep, &o);
	a.threads_mode = mode_arg == MODE_THREADS || mode_arg == MODE_BOTH;
	a.processes_mode = mode_arg == MODE_PROCESSES || mode_arg == MODE_BOTH;
	if (o.iterations)
		die("contend runs for a --duration (every caller at full speed); --iterations does not apply");
	npus = topo_npus(o.topo);
	if (!a.callers) {
		/* Where the topology changes and powers of two, up to 2 x PUs. */
		struct tpoint *p;
		char err[256];

		a.ncallers = topo_caller_points(o.topo, o.placement, &p, err, sizeof(err));
		if (a.ncallers < 0)
			die("%s", err);
		a.callers = xcalloc((size_t)a.ncallers, sizeof(int));
		for (int i = 0; i < a.ncallers; i++)
			a.callers[i] = p[i].t;
		free(p);
	}
	/* An explicit --spinners is measured as given, or refused. */
	if (a.spinners >= 0 && a.processes_mode)
		for (int ci = 0; ci < a.ncallers; ci++) {
			int C = a.callers[ci], S = proc_spinners(a.spinners, C, npus);

			if (S < a.spinners) {
				int maxc = PROC_THREADS_PER_PU * npus / (a.spinners + 1);
				char alt[64] = "";

				if (maxc >= 1)
					snprintf(alt, sizeof(alt), ", or --callers up to %d", maxc);
				die("--spinners %d in processes mode: each caller process keeps at most 4 x CPUs / C - 1 spinners, %d at C=%d on %d CPUs (give --spinners %d or fewer%s)",
					  a.spinners, S, C, npus, S, alt);
			}
		}
	spinners_default = a.spinners < 0;
	if (a.spinners < 0)
		a.spinners = npus - 1;
	table_init(&t, contend_cols, (int)(sizeof(contend_cols) / sizeof(contend_cols[0])));
	results_begin(&res, &o, &t);
	if (spinners_default && a.processes_mode)
		for (int ci = 0; ci < a.ncallers; ci++) {
			int C = a.callers[ci], S = proc_spinners(a.spinners, C, npus);

			if (S < a.spinners)
				results_note(&res, "processes mode, %d callers: %d spinners in each caller process, not CPUs - 1 = %d (at most 4 x CPUs / C - 1)",
					     C, S, a.spinners);
		}
	npoints = o.nmechs * a.ncallers * (a.threads_mode + a.processes_mode);
	for (int mi = 0; mi < o.nmechs; mi++) {
		const struct mechanism *m = o.mechs[mi];
		char reason[256];

		for (int mode = 0; mode < 2; mode++) {
			if ((mode == 0 && !a.threads_mode) || (mode == 1 && !a.processes_mode))
				continue;
			for (int ci = 0; ci < a.ncallers; ci++) {
				int S = mode ? proc_spinners(a.spinners, a.callers[ci], npus) :
					       a.spinners;

				progress("contend", ++pointno, npoints, m->name);
				if (mech_prepare(m, reason, sizeof(reason))) {
					int row = table_add_row(&t);

					table_set_str(&t, row, "mechanism", m->name);
					table_set_str(&t, row, "mode", mode ? "processes" : "threads");
					table_set_int(&t, row, "callers", a.callers[ci]);
					table_set_int(&t, row, "spinners", S);
					row_skip(&t, row, reason);
					continue;
				}
				point(&res, &t, &o, &a, m, mode, a.callers[ci], S, o.duration_s);
				if (m->teardown)
					m->teardown(m);
			}
		}
	}
	contend_serialization(&t, npus);
	results_note(&res, "expedited membarrier commands share one kernel mutex (membarrier_ipi_mutex) since the CVE-2024-26602 fix; signal takes a per-process user-space lock (as liburcu does) and mprotect the mm lock instead");
	results_emit(&res);
	table_free(&t);
	free(a.callers);
	opts_free(&o);
	return 0;
}

/* The sweep: the expedited mutex against the schemes not behind it (no
 * membarrier command), at every caller count, threads and processes; and
 * the targeted command (one CPU) against the whole-process one, for the
 * serialization factor. */
static const struct mech_pick contend_picks[] = {
	{ .all = MC_IPI, .cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED },
	{ .all = MC_IPI, .none = MC_PROCESS_WIDE, .cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ },
	{ .all = MC_IPI, .cmd = PICK_NO_CMD },
};

static double contend_cost(const struct preset *p, const struct plan_host *h,
			   const struct mechanism *m)
{
	int n, *c = plan_counts(h->callers, &n), N = h->npus;
	/* at most, with the warm-up */
	int reps = p->ci_target > 0 ? p->max_repeat + 1 : p->repeat;
	double s = 0.1;

	(void)m;
	for (int i = 0; i < n; i++) {
		int t = c[i], sp = (int)(4.0 * N / t) - 1;

		s += reps * (p->duration + 0.035 + PLAN_TH * (t + N - 1));	/* threads */
		if (sp > N - 1)
			sp = N - 1;
		if (sp < 0)
			sp = 0;
		s += reps * (p->duration + 0.035 + PLAN_TH * t * (1 + sp) + 0.001 * t);
	}
	free(c);
	return s;
}

static void contend_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	fprintf(f, " --placement %s", h->placement);
	plan_repeat_options(f, p, p->ci_target > 0 && p->max_repeat > p->repeat);
	fprintf(f, " --mode both --callers %s", h->callers);
}

const struct experiment exp_contend = {
	.tables = (const struct table_schema *const[]){ &contend_table, NULL },
	.name = "contend",
	.summary = "C concurrent callers: aggregate and per-caller barriers/s",
	.main = exp_contend_main,
	.quick = { .duration = 0.02, .repeat = 1 },
	.full = { .duration = 1, .repeat = 3 },
	.floor = 0.05,
	.cut = CUT_HALVE,
	.picks = contend_picks,
	.npicks = NPICKS(contend_picks),
	.cost = contend_cost,
	.options = contend_options,
};
