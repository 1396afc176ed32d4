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
#include "rcu-readcost.h"
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

static const struct col model_cols[] = {
	COL_KEY("scheme", COL_STR, "", COL_REQ, "as in `rcu.csv`"),
	COL_INFO("family", COL_STR, "", COL_REQ, "`ours` or `liburcu`"),
	COL_KEY("readers", COL_INT, "", COL_REQ | COL_SETTING, "reader threads R of the measured run"),
	COL_KEY("writers", COL_INT, "", COL_REQ | COL_SETTING, "writer threads W of the measured run"),
	COL_INFO("rmw_per_read", COL_NUM, "", 0, "our smp_mb_full() per read with a store pending, from the code (a locked add on x86-64)"),
	COL_INFO("rmw_idle_per_read", COL_NUM, "", 0, "our smp_mb_full() per read with no store pending"),
	COL_INFO("mfence_per_read", COL_NUM, "", 0, "liburcu's cmm_smp_mb() per read with a store pending, from the code (mfence on x86-64)"),
	COL_INFO("mfence_idle_per_read", COL_NUM, "", 0, "liburcu's cmm_smp_mb() per read with no store pending"),
	COL_INFO("lines_per_write", COL_NUM, "", 0, "cache lines one grace period takes from a running reader, from the code"),
	COL_INFO("interrupts_per_write", COL_NUM, "", 0, "interruptions of each reader per write (IPIs, signals), from the code"),
	COL_INFO("interrupt", COL_STR, "", 0, "the mechanism whose interruption is priced (empty: none)"),
	COL_INFO("counts_from", COL_STR, "", 0, "where in the code the counts come from"),
	COL_MEASURE("loop_ns", COL_NUM, "ns", NONE, NONE, 0, "one pass of the reader loop with compiler barriers only, one reader alone"),
	COL_CI95("loop_ns_ci95", "loop_ns", "ns", 0, "its 95% CI half-width over the rounds"),
	COL_MEASURE("rmw_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "one smp_mb_full() with a store pending, over a compiler barrier"),
	COL_CI95("rmw_ns_ci95", "rmw_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("mfence_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "one cmm_smp_mb() with a store pending, over a compiler barrier"),
	COL_CI95("mfence_ns_ci95", "mfence_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("rmw_idle_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "one smp_mb_full() with no store pending"),
	COL_MEASURE("mfence_idle_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "one cmm_smp_mb() with no store pending"),
	COL_MEASURE("line_ns", COL_NUM, "ns", NONE, NONE, 0, "one cache line handed between the first reader's CPU and the first writer's (ping-pong)"),
	COL_CI95("line_ns_ci95", "line_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("line_paid_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "one cache line as a running reader pays for it: the publish probe (a writer that moves the pointer's and the new object's lines and nothing else), the reader's time per write over the loop alone, halved; the model's price of a line"),
	COL_CI95("line_paid_ns_ci95", "line_paid_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("interruption_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "what one barrier of `interrupt` takes from a reader running on another CPU (the gap probe, with against without)"),
	COL_CI95("interruption_ns_ci95", "interruption_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("writes_per_read", COL_NUM, "", NONE, NONE, 0, "writes per read of one reader in the measured run (writes/s x R / reads/s)"),
	COL_MEASURE("fence_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "model: the fences of one read, each at its price (pending or idle)"),
	COL_MEASURE("model_solo_ns", COL_NUM, "ns", NONE, NONE, 0, "model, alone: loop_ns + fence_ns"),
	COL_MEASURE("solo_read_ns", COL_NUM, "ns", NONE, NONE, 0, "measured: ns per read of the scheme's reader alone (no writer), what model_solo_ns predicts"),
	COL_CI95("solo_read_ns_ci95", "solo_read_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("transfer_ns", COL_NUM, "ns", NONE, NONE, 0, "model: writes_per_read x lines_per_write x line_paid_ns"),
	COL_MEASURE("interrupt_ns", COL_NUM, "ns", NONE, NONE, COL_SIGNED, "model: writes_per_read x interrupts_per_write x interruption_ns"),
	COL_MEASURE("model_read_ns", COL_NUM, "ns", NONE, NONE, 0, "model, running: solo_read_ns + transfer_ns + interrupt_ns, ns per read of one reader"),
	COL_CI95("model_read_ns_ci95", "model_read_ns", "ns", 0, "its 95% CI half-width, from its measured terms' (solo, line, interruption)"),
	COL_MEASURE("model_reads_per_s", COL_NUM, "1/s", NONE, NONE, 0, "model: R x 1e9 / model_read_ns"),
	COL_MEASURE("lines_implied", COL_NUM, "", NONE, NONE, COL_SIGNED, "the lines per write the measured read rate implies, with the interruptions priced: (read_ns - solo_read_ns - interrupt_ns) / (writes_per_read x line_paid_ns)"),
	COL_MEASURE("read_ns", COL_NUM, "ns", NONE, NONE, 0, "measured: ns per read of one reader in the run (R x 1e9 / reads_per_s)"),
	COL_MEASURE("reads_per_s", COL_NUM, "1/s", NONE, NONE, 0, "measured, as in `rcu.csv`"),
	COL_CI95("reads_per_s_ci95", "reads_per_s", "1/s", 0, "its 95% CI half-width, as in `rcu.csv`"),
	COL_STATUS("status", COL_REQ, "`ok` or `skipped`"),
	COL_STATUS("skip_reason", 0, "e.g. `the rcu row was skipped`, `readers and writers share a CPU`"),
};

const struct table_schema rcu_model_table = {
	.name = "rcu-model", .experiment = "rcu", .analysed = 1,
	.rows = "One row per scheme measured in `rcu.csv`: what one read executes (from the code), this host's price of each (measured), and the read rate the sum predicts beside the one measured.",
	.notes = "The report judges agreement: the model's rate and the measured one agree when their difference is within the 95% interval of the difference (both half-widths in quadrature). The model, in two steps each checked by a measurement: alone, ns per read = loop_ns + fence_ns (against solo_read_ns); running, ns per read = solo_read_ns + writes per read x (lines x line_paid_ns + interruptions x interruption_ns) (against the run's read rate). The unit costs are measured once per run, on the first reader's and the first writer's CPUs.",
	.cols = model_cols, .ncols = NCOLS(model_cols),
};

struct rcu_args {
	int allow_broken, no_model;
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

/* One interruption's price per mechanism, measured once a run. */
struct stolen_cache {
	const char *mech[8];
	struct rcu_cost cost[8];
	char reason[8][200];
	int ok[8], n;
};

static const struct rcu_cost *stolen_for(struct stolen_cache *sc, const char *mech,
					 hwloc_topology_t topo, int rc, int wc, double secs,
					 const char **why)
{
	for (int i = 0; i < sc->n; i++)
		if (!strcmp(sc->mech[i], mech)) {
			*why = sc->reason[i];
			return sc->ok[i] ? &sc->cost[i] : NULL;
		}
	if (sc->n == 8) {
		*why = "too many mechanisms to price";
		return NULL;
	}
	sc->mech[sc->n] = mech;
	sc->ok[sc->n] = !rcu_stolen_measure(mech, topo, rc, wc, secs, 3, &sc->cost[sc->n],
					    sc->reason[sc->n], sizeof(sc->reason[0]));
	*why = sc->reason[sc->n];
	return sc->ok[sc->n++] ? &sc->cost[sc->n - 1] : NULL;
}

static int row_of(const struct table *t, const char *scheme)
{
	for (int r = 0; r < t->nrows; r++)
		if (!strcmp(table_get(t, r, "scheme"), scheme))
			return r;
	return -1;
}

static void set_cost(struct table *mt, int row, const char *col, const char *ci,
		     const struct rcu_cost *c)
{
	table_set_num(mt, row, col, c->mean);
	if (isfinite(c->ci95))
		table_set_num(mt, row, ci, c->ci95);
}

/*
 * The read side explained: for every scheme measured, price what one read
 * executes with this host's unit costs and set the predicted read rate
 * beside the measured one.
 */
static void read_model(const struct table *t, struct table *mt, const struct rcu_scheme **schemes,
		       int nschemes, const struct placement *pl, int R, int W,
		       hwloc_topology_t topo, double duration_s)
{
	struct rcu_unit_costs c;
	struct stolen_cache sc = { .n = 0 };
	char reason[256] = "";
	double secs = duration_s / 2 < 0.02 ? 0.02 : duration_s / 2 > 0.2 ? 0.2 : duration_s / 2;
	int rc = pl->pu_os[0], wc = pl->pu_os[R], ok = 1;

	if (pl->oversubscribed || rc == wc) {
		snprintf(reason, sizeof(reason), "readers and writers share a CPU: no line moves between them");
		ok = 0;
	}
	progress("rcu", nschemes, nschemes, "the read-side model's unit costs");
	if (ok && (rcu_unit_costs_measure(topo, rc, wc, &c, reason, sizeof(reason)) ||
		   rcu_solo_measure(&rcu_light_loop, topo, rc, secs, 5, &c.loop, reason, sizeof(reason)) ||
		   rcu_line_paid_measure(topo, rc, wc, secs, 5, &c, reason, sizeof(reason))))
		ok = 0;
	for (int si = 0; si < nschemes; si++) {
		const struct rcu_scheme *s = schemes[si];
		const struct rcu_readside *rs = &s->rs;
		int src = row_of(t, s->name), row = table_add_row(mt);
		const struct rcu_cost *stolen = NULL;
		struct rcu_cost solo;
		struct rcu_read_model m;
		const char *why = "";
		double rps, ci, wps, wpr, model_rps;

		table_set_str(mt, row, "scheme", s->name);
		table_set_str(mt, row, "family", s->family);
		table_set_int(mt, row, "readers", R);
		table_set_int(mt, row, "writers", W);
		table_set_num(mt, row, "rmw_per_read", rs->rmw);
		table_set_num(mt, row, "rmw_idle_per_read", rs->rmw_idle);
		table_set_num(mt, row, "mfence_per_read", rs->mfence);
		table_set_num(mt, row, "mfence_idle_per_read", rs->mfence_idle);
		table_set_num(mt, row, "lines_per_write", rs->lines);
		table_set_num(mt, row, "interrupts_per_write", rs->interrupts);
		table_set_str(mt, row, "interrupt", rs->interrupt ? rs->interrupt : "");
		table_set_str(mt, row, "counts_from", rs->why ? rs->why : "");
		if (!ok) {
			row_skip(mt, row, reason);
			continue;
		}
		if (src < 0 || strcmp(table_get(t, src, "status"), "ok")) {
			row_skip(mt, row, "no read rate measured: the rcu row is not ok");
			continue;
		}
		if (rs->interrupts > 0 && !(stolen = stolen_for(&sc, rs->interrupt, topo, rc, wc, secs, &why))) {
			char r2[300];

			snprintf(r2, sizeof(r2), "cannot price an interruption: %s", why);
			row_skip(mt, row, r2);
			continue;
		}
		progress("rcu", si + 1, nschemes, "read-side model: the scheme alone");
		if (rcu_solo_measure(s, topo, rc, secs, 3, &solo, reason, sizeof(reason))) {
			row_skip(mt, row, reason);
			reason[0] = '\0';
			continue;
		}
		rps = table_get_num(t, src, "reads_per_s");
		ci = table_get_num(t, src, "reads_per_s_ci95");
		wps = table_get_num(t, src, "writes_per_s");
		wpr = rps > 0 ? wps * R / rps : NAN;
		rcu_read_model(rs, &c, solo.mean, stolen ? stolen->mean : 0, wpr, &m);
		model_rps = R * 1e9 / m.read_ns;
		set_cost(mt, row, "loop_ns", "loop_ns_ci95", &c.loop);
		set_cost(mt, row, "rmw_ns", "rmw_ns_ci95", &c.rmw);
		set_cost(mt, row, "mfence_ns", "mfence_ns_ci95", &c.mfence);
		set_cost(mt, row, "line_ns", "line_ns_ci95", &c.line);
		set_cost(mt, row, "line_paid_ns", "line_paid_ns_ci95", &c.line_paid);
		if (stolen)
			set_cost(mt, row, "interruption_ns", "interruption_ns_ci95", stolen);
		table_set_num(mt, row, "writes_per_read", wpr);
		table_set_num(mt, row, "fence_ns", m.fence_ns);
		table_set_num(mt, row, "model_solo_ns", m.solo_ns);
		table_set_num(mt, row, "rmw_idle_ns", c.rmw_idle.mean);
		table_set_num(mt, row, "mfence_idle_ns", c.mfence_idle.mean);
		if (wpr > 0 && c.line_paid.mean > 0)
			table_set_num(mt, row, "lines_implied",
				      (R * 1e9 / rps - solo.mean - m.interrupt_ns) / (wpr * c.line_paid.mean));
		table_set_num(mt, row, "transfer_ns", m.transfer_ns);
		table_set_num(mt, row, "interrupt_ns", m.interrupt_ns);
		table_set_num(mt, row, "model_read_ns", m.read_ns);
		table_set_num(mt, row, "model_reads_per_s", model_rps);
		set_cost(mt, row, "solo_read_ns", "solo_read_ns_ci95", &solo);
		table_set_num(mt, row, "read_ns", R * 1e9 / rps);
		table_set_num(mt, row, "reads_per_s", rps);
		{
			double sci = isfinite(solo.ci95) ? solo.ci95 : 0;
			double lci = wpr * rs->lines * (isfinite(c.line_paid.ci95) ? c.line_paid.ci95 : 0);
			double ici = stolen && isfinite(stolen->ci95) ? wpr * rs->interrupts * stolen->ci95 : 0;
			double mci = sqrt(sci * sci + lci * lci + ici * ici);

			table_set_num(mt, row, "model_read_ns_ci95", mci);
			if (isfinite(ci))
				table_set_num(mt, row, "reads_per_s_ci95", ci);
		}
		table_set_str(mt, row, "status", "ok");
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
		OPT_FLAG("no-model", "leave out the read-side model (rcu-model.csv)", &a.no_model),
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
	struct table t, mt;
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
	table_init(&mt, model_cols, NCOLS(model_cols));
	results_begin(&res, &o, &t);
	if (!a.no_model)
		results_add_table(&res, "model", &mt);
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
	if (!a.no_model)
		read_model(&t, &mt, schemes, nschemes, &pl, R, W, o.topo, o.duration_s);
	derive(&res, &t);
	results_emit(&res);
	free(cpus);
	placement_free(&pl);
	table_free(&t);
	table_free(&mt);
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
	/* and the read-side model: unit costs, the probes, each scheme alone */
	double secs = p->duration / 2 < 0.02 ? 0.02 : p->duration / 2 > 0.2 ? 0.2 : p->duration / 2;

	return runs * reps * (p->duration + 0.013 + PLAN_TH * h->npus) + 0.1 +
	       0.4 + secs * (5 + 5 + 3 * 2 * 3 + 3 * runs);
}

static void rcu_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	fprintf(f, " --placement %s", h->placement);
	plan_repeat_options(f, p, p->ci_target > 0 && p->max_repeat > p->repeat);
}

const struct experiment exp_rcu = {
	.tables = (const struct table_schema *const[]){ &rcu_table, &rcu_model_table, NULL },
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
