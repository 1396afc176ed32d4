// SPDX-License-Identifier: MIT
/*
 * anatomy: where one barrier's time goes, from the kernel's own tracepoints.
 * For each IPI mechanism (the ipi flag) a team of T threads (caller and
 * spinners, placed as everywhere else) issues --barriers barriers in
 * --repeat batches; each batch is timed untraced, then traced
 * (anatomy-trace.c), and its events are matched into phases
 * (anatomy-match.c): syscall entry -> first queued cross-CPU call (setup:
 * mutex, mask), queue -> handler entry on each target (delivery), the
 * handler, last handler exit -> syscall exit (wait and return).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "anatomy-trace.h"
#include "experiment.h"
#include "ipicount.h"
#include "outpath.h"
#include "results.h"
#include "util.h"
#include "workdone.h"

#define NPCT 3
static const double pcts[NPCT] = { 50, 90, 99 };
static const char *const pct_col[NPCT] = { "p50_ns", "p90_ns", "p99_ns" };
static const char *const pct_ci[NPCT] = { "p50_ns_ci95", "p90_ns_ci95", "p99_ns_ci95" };

/* One phase at one target slot: slot 0 is "all", 1..T-1 the team's
 * targets, T a CPU outside the team. */
struct series {
	enum ana_phase ph;
	int slot;
	struct hist all, cur;
	struct pct_batches bp;
};

struct ana_run {
	struct opts *o;
	int barriers;
	const char *save;
	struct table *t, *pt;
	struct results *res;
	FILE *events;		/* --save-events, in memory until the end */
	uint64_t tol_ns;
	int contenders;		/* --contenders: callers in all; 0: none */
	struct ana_contenders cont;
};

static int slot_of(const struct placement *pl, int cpu)
{
	for (int i = 1; i < pl->n; i++)
		if (pl->pu_os[i] == cpu)
			return i;
	return pl->n;
}

static void add_batch(struct series *s, int ns, const struct ana_result *r,
		      const struct placement *pl)
{
	for (int i = 0; i < ns; i++)
		hist_reset(&s[i].cur);
	for (size_t w = 0; w < r->n; w++) {
		const struct ana_barrier *b = &r->b[w];

		for (int i = 0; i < ns; i++) {
			double v;

			if (!ana_phase_per_target(s[i].ph)) {
				if (!ana_phase_value(b, s[i].ph, 0, &v))
					hist_add(&s[i].cur, (uint64_t)v);
				continue;
			}
			for (int k = 0; k < b->ntargets; k++)
				if ((!s[i].slot || slot_of(pl, b->tgt[k].cpu) == s[i].slot) &&
				    !ana_phase_value(b, s[i].ph, k, &v))
					hist_add(&s[i].cur, (uint64_t)v);
		}
	}
	for (int i = 0; i < ns; i++) {
		if (!s[i].cur.count)
			continue;
		pct_batches_add(&s[i].bp, &s[i].cur);
		hist_merge(&s[i].all, &s[i].cur);
	}
}

static int base_row(struct table *t, const struct mechanism *m, int T)
{
	int r = table_add_row(t);

	table_set_str(t, r, "mechanism", m->name);
	table_set_int(t, r, "threads", T);
	return r;
}

static double p50_of(const struct series *s, int ns, enum ana_phase ph)
{
	for (int i = 0; i < ns; i++)
		if (s[i].ph == ph && !s[i].slot)
			return s[i].all.count ? hist_percentile(&s[i].all, 50) : NAN;
	return NAN;
}

static void phase_rows(struct ana_run *a, const struct mechanism *m, int T,
		       const struct placement *pl, struct series *s, int ns)
{
	for (int i = 0; i < ns; i++) {
		const struct hist *h = &s[i].all;
		char tgt[16];
		int r;

		if (!h->count)
			continue;
		if (!s[i].slot)
			snprintf(tgt, sizeof(tgt), "all");
		else if (s[i].slot < pl->n)
			snprintf(tgt, sizeof(tgt), "%d", pl->pu_os[s[i].slot]);
		else
			snprintf(tgt, sizeof(tgt), "other");
		r = base_row(a->pt, m, T);
		table_set_str(a->pt, r, "phase", ana_phase_name(s[i].ph));
		table_set_str(a->pt, r, "target_cpu", tgt);
		table_set_int(a->pt, r, "samples", (long long)h->count);
		for (int k = 0; k < NPCT; k++)
			table_set_num(a->pt, r, pct_col[k], hist_percentile(h, pcts[k]));
		table_set_num(a->pt, r, "mean_ns", h->sum / (double)h->count);
		table_set_int(a->pt, r, "batches", s[i].bp.n);
		if (s[i].bp.n >= 2)
			for (int k = 0; k < NPCT; k++)
				table_set_num(a->pt, r, pct_ci[k], pct_batches_ci95(&s[i].bp, k));
	}
}

/* The series of a point: per-target phases at every slot, the others once. */
static struct series *series_new(int T, int csd, int *ns)
{
	static const enum ana_phase with_csd[] = { PH_SETUP, PH_SEND, PH_DELIVERY, PH_HANDLER, PH_WAIT, PH_TOTAL };
	static const enum ana_phase ipi_only[] = { PH_TO_IPI, PH_AFTER_IPI, PH_TOTAL };
	const enum ana_phase *ph = csd ? with_csd : ipi_only;
	int nph = csd ? 6 : 3, n = 0;
	struct series *s = xcalloc((size_t)(nph * (T + 1)), sizeof(*s));

	for (int p = 0; p < nph; p++)
		for (int slot = 0; slot <= (ana_phase_per_target(ph[p]) ? T : 0); slot++) {
			s[n].ph = ph[p];
			s[n].slot = slot;
			hist_init(&s[n].all);
			hist_init(&s[n].cur);
			n++;
		}
	*ns = n;
	return s;
}

static void series_free(struct series *s, int ns)
{
	for (int i = 0; i < ns; i++) {
		hist_free(&s[i].all);
		hist_free(&s[i].cur);
		pct_batches_free(&s[i].bp);
	}
	free(s);
}

static void count_result(struct ana_result *sum, const struct ana_result *r)
{
	for (int k = 0; k < ANA_NSTATUS; k++)
		sum->status[k] += r->status[k];
	sum->n += r->n;
	sum->unclosed += r->unclosed + r->orphan_exits;
	sum->foreign += r->foreign;
	sum->inversions += r->inversions;
	sum->extra_targets += r->extra_targets;
}

/* The counts and the honesty checks of an ok row. */
static void fill_row(struct ana_run *a, int r, const struct mechanism *m, int T,
		     const struct ana_result *sum, const struct ana_trace *tr,
		     const double *u, const double *tn, int nb, struct series *s, int ns,
		     const struct hist *hu, const struct hist *ht, double fu)
{
	double nocall = (double)sum->status[ANA_NO_CALL] / (double)sum->n;
	double ft = (double)(sum->n - sum->status[ANA_NO_CALL]) / (double)(ht->count ? ht->count : 1);
	double us50, ts50;

	/* The barriers that sent, taken as the slowest: their median. */
	ft = ft > 1 ? 1 : ft;
	us50 = fu > 0 ? hist_percentile(hu, 100 * (1 - fu / 2)) : NAN;
	ts50 = hist_percentile(ht, 100 * (1 - ft / 2));

	struct table *t = a->t;
	struct summary su, st;
	double total = p50_of(s, ns, PH_TOTAL), deliv = p50_of(s, ns, PH_DELIVERY), phsum;

	table_set_int(t, r, "barriers", (long long)sum->n);
	table_set_int(t, r, "complete", (long long)sum->status[ANA_COMPLETE]);
	table_set_int(t, r, "no_call", (long long)sum->status[ANA_NO_CALL]);
	table_set_int(t, r, "missing_handler", (long long)sum->status[ANA_NO_HANDLER]);
	table_set_int(t, r, "missing_handler_exit", (long long)sum->status[ANA_NO_HANDLER_EXIT]);
	table_set_int(t, r, "unclosed", (long long)sum->unclosed);
	table_set_int(t, r, "lost_records", (long long)tr->lost);
	table_set_int(t, r, "foreign_events", (long long)sum->foreign);
	table_set_int(t, r, "clock_inversions", (long long)sum->inversions);
	summarize(u, nb, &su);
	summarize(tn, nb, &st);
	table_set_num(t, r, "untraced_ns", su.mean);
	table_set_num(t, r, "untraced_ns_ci95", su.ci95);
	table_set_num(t, r, "traced_ns", st.mean);
	table_set_num(t, r, "traced_ns_ci95", st.ci95);
	table_set_num(t, r, "tracing_overhead_ns", st.mean - su.mean);
	table_set_num(t, r, "untraced_p50_ns", hist_percentile(hu, 50));
	table_set_num(t, r, "traced_p50_ns", hist_percentile(ht, 50));
	if (fu >= 0)
		table_set_num(t, r, "untraced_sent_share", fu);
	table_set_num(t, r, "traced_sent_share", ft);
	table_set_num(t, r, "untraced_sent_p50_ns", us50);
	table_set_num(t, r, "traced_sent_p50_ns", ts50);
	table_set_num(t, r, "tracing_overhead_sent_ns", ts50 - us50);
	table_set_num(t, r, "total_p50_ns", total);
	phsum = p50_of(s, ns, PH_SETUP) + deliv + p50_of(s, ns, PH_HANDLER) + p50_of(s, ns, PH_WAIT);
	table_set_num(t, r, "phase_sum_p50_ns", phsum);
	table_set_num(t, r, "phase_sum_over_total", phsum / total);
	table_set_num(t, r, "delivery_p50_ns", deliv);
	table_set_num(t, r, "untraced_over_delivery", us50 / deliv);
	table_set_num(t, r, "software_share", 1 - deliv / total);
	if (sum->status[ANA_NO_HANDLER] || sum->status[ANA_NO_HANDLER_EXIT] || sum->unclosed || tr->lost)
		results_note(a->res, "%s T=%d: %zu of %zu windows lack a handler's entry or exit, %zu syscall events are unpaired, %llu records were lost: counted, left out of the phases",
			     m->name, T, sum->status[ANA_NO_HANDLER] + sum->status[ANA_NO_HANDLER_EXIT], sum->n,
			     sum->unclosed, (unsigned long long)tr->lost);
	if (sum->status[ANA_NO_CALL] && sum->status[ANA_COMPLETE])
		results_note(a->res, "%s T=%d: %zu of %zu syscall windows (%.0f%%) queued no cross-CPU call: the target did not run the process then (or, for a barrier of two calls, the one that needs none)%s",
			     m->name, T, sum->status[ANA_NO_CALL], sum->n, 100 * nocall,
			     nocall > 0.1 ? "; untraced_ns and traced_ns average both kinds, the phases and the *_sent_p50_ns columns take only those that sent" : "");
	if (sum->extra_targets)
		results_note(a->res, "%s T=%d: %zu calls beyond %d targets a window were not matched",
			     m->name, T, sum->extra_targets, ANA_MAX_TARGETS);
}

static void save_batch(struct ana_run *a, const struct mechanism *m, int T, int caller,
		       const struct ana_cfg *cfg, const struct ana_trace *tr)
{
	if (!a->events)
		return;
	fprintf(a->events, "# mechanism %s threads %d caller %d funcs", m->name, T, caller);
	for (int i = 0; i < cfg->nfuncs; i++)
		fprintf(a->events, " %llx", (unsigned long long)cfg->funcs[i]);
	fprintf(a->events, "\n");
	for (size_t i = 0; i < tr->nev; i++)
		ana_event_print(a->events, &tr->ev[i]);
}

/* The CPUs /proc/interrupts may name: every possible CPU number. */
static int cpus_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 && n < 65536 ? (int)n : 1;
}

static const char *const callbacks[] = {
	"ipi_mb", "ipi_sync_core", "ipi_rseq", "ipi_sync_rq_state", "flush_tlb_func",
};
#define NCB ((int)(sizeof(callbacks) / sizeof(callbacks[0])))

/*
 * One point with the team running: 0, -1 with the reason to skip, or 1 when
 * too many batches were degraded (work_fill set the row). A batch (its
 * untraced and its traced barriers) is judged by what it did (workdone.h):
 * a degraded one is counted, left out and taken again.
 */
static int trace_point(struct ana_run *a, const struct mechanism *m, int T, int row,
		       const struct placement *pl, const struct team *team, char *why, size_t len)
{
	struct ana_trace tr;
	struct ana_result sum = { 0 };
	uint64_t funcs[NCB];
	struct ana_cfg cfg = { .caller = (int)syscall(SYS_gettid), .tol_ns = a->tol_ns };
	int nb = a->o->repeat, ns, err = 0, csd, *cpus = xcalloc((size_t)pl->n, sizeof(int));
	double *u = xcalloc((size_t)nb, sizeof(double)), *tn = xcalloc((size_t)nb, sizeof(double));
	struct series *s;
	struct hist hu, ht;
	int ncal = cpus_count(), fu_ok = 1;
	uint64_t *cal0 = xcalloc((size_t)ncal, sizeof(uint64_t)), *cal1 = xcalloc((size_t)ncal, sizeof(uint64_t));
	uint64_t *busiest = xcalloc((size_t)nb, sizeof(uint64_t)), ucalls = 0;
	struct workdone w;
	struct worksum ws;
	struct hist hbu, hbt;
	int b = 0;

	for (int i = 0; i < pl->n; i++)
		cpus[i] = pl->pu_os[i];
	if (ana_trace_open(&tr, cpus, pl->n, cfg.caller, why, len)) {
		free(cpus), free(u), free(tn);
		free(cal0), free(cal1), free(busiest);
		return -1;
	}
	free(cpus);
	csd = !tr.why[ANA_G_CSD][0];
	cfg.no_csd = !csd;
	/* Only the callbacks of barriers count; hidden symbols: any callback. */
	if (ipi_kallsyms(callbacks, NCB, funcs)) {
		for (int i = 0; i < NCB; i++)
			if (funcs[i])
				funcs[cfg.nfuncs++] = funcs[i];
		cfg.funcs = funcs;
	}
	s = series_new(T, csd, &ns);
	hist_init(&hu);
	hist_init(&ht);
	hist_init(&hbu);
	hist_init(&hbt);
	workdone_init(&w, team);
	worksum_reset(&ws);
	for (int i = 0; i < ns; i++)
		pct_batches_init(&s[i].bp, pcts, NPCT, nb);
	err = harness_warmup(m, 0.05);
	for (int at = 0; at < work_attempts(nb) && b < nb && !err; at++) {
		uint64_t per = (uint64_t)(a->barriers / nb + (b < a->barriers % nb)), most = 0;
		struct measure mu, mt;
		struct ana_result r;
		struct work k;
		char bwhy[200] = "";
		int bad;

		hist_reset(&hbu);
		hist_reset(&hbt);
		workdone_begin(&w);
		/* the CAL row: function-call IPIs received */
		proc_interrupts_read("CAL", cal0, ncal);
		harness_measure(m, per, 0, &hbu, &mu);
		if (ncal && proc_interrupts_read("CAL", cal1, ncal))
			fu_ok = 0;
		for (int i = 1; i < pl->n && fu_ok; i++)
			if (pl->pu_os[i] < ncal && cal1[pl->pu_os[i]] - cal0[pl->pu_os[i]] > most)
				most = cal1[pl->pu_os[i]] - cal0[pl->pu_os[i]];
		ana_trace_enable(&tr, 1);
		harness_measure(m, per, 0, &hbt, &mt);
		ana_trace_enable(&tr, 0);
		workdone_end(&w, mu.calls + mt.calls, &k);
		ana_trace_drain(&tr);
		err = mu.err ? mu.err : mt.err;
		bad = work_degraded(&w, &k, bwhy, sizeof(bwhy));
		worksum_add(&ws, &k, bad, bwhy);
		if (bad && !a->o->keep_degraded) {
			tr.nev = 0;
			continue;
		}
		busiest[b] = most;
		ucalls += mu.calls;
		hist_merge(&hu, &hbu);
		hist_merge(&ht, &hbt);
		u[b] = (double)mu.ns / (double)(mu.calls ? mu.calls : 1);
		tn[b] = (double)mt.ns / (double)(mt.calls ? mt.calls : 1);
		save_batch(a, m, T, cfg.caller, &cfg, &tr);
		ana_match(tr.ev, tr.nev, &cfg, &r);
		count_result(&sum, &r);
		add_batch(s, ns, &r, pl);
		ana_result_free(&r);
		tr.nev = 0;
		b++;
	}
	workdone_free(&w);
	if (!err && b < nb) {
		char what[96];

		snprintf(what, sizeof(what), "%s T=%d", m->name, T);
		work_fill(a->t, row, &ws, b, nb, what, a->res);
		err = 1;
	} else if (!err) {
		work_fill(a->t, row, &ws, b, nb, "", a->res);
	}
	if (err > 0) {
		/* degraded: the row says why */
	} else if (err) {
		snprintf(why, len, "barrier failed: %s", strerror(-err));
	} else if (!sum.n) {
		snprintf(why, len,
			 "its barrier made no membarrier or mprotect call to decompose (a signal barrier is tgkill and a wait for acks in user space; signal:* is not traced)");
		err = -1;
	} else if (!sum.status[ANA_COMPLETE]) {
		/* Skipped, with what was seen. */
		table_set_int(a->t, row, "barriers", (long long)sum.n);
		table_set_int(a->t, row, "complete", 0);
		table_set_int(a->t, row, "no_call", (long long)sum.status[ANA_NO_CALL]);
		table_set_int(a->t, row, "missing_handler", (long long)sum.status[ANA_NO_HANDLER]);
		table_set_int(a->t, row, "missing_handler_exit", (long long)sum.status[ANA_NO_HANDLER_EXIT]);
		table_set_int(a->t, row, "lost_records", (long long)tr.lost);
		snprintf(why, len, "%zu windows traced, none complete: %zu queued no cross-CPU call (no target ran the process then; a TLB flush done locally or by a hypercall; or see mbbench doctor: lazy-mm), %zu lack a handler, %zu a handler exit",
			 sum.n, sum.status[ANA_NO_CALL], sum.status[ANA_NO_HANDLER],
			 sum.status[ANA_NO_HANDLER_EXIT]);
		err = -1;
	} else {
		table_set_str(a->t, row, "phases_from", csd ? "csd" : "ipi");
		uint64_t sent = 0;

		for (int i = 0; i < nb; i++)
			sent += busiest[i];
		fill_row(a, row, m, T, &sum, &tr, u, tn, nb, s, ns, &hu, &ht,
			 fu_ok && ucalls ? fmin(1, (double)sent / (double)ucalls) : -1);
		phase_rows(a, m, T, pl, s, ns);
		struct ana_contend_point cp = { m, T, nb, a->barriers, csd, &tr, &cfg, a->pt, a->res,
						p50_of(s, ns, csd ? PH_SETUP : PH_TO_IPI) };
		if (a->contenders && ana_contended(&a->cont, &cp, why, len))
			results_note(a->res, "%s T=%d: no contended phase: %s", m->name, T, why);
		if (!csd)
			results_note(a->res, "%s T=%d: %s; from ipi:* alone only entry -> first IPI sent and IPI sent -> exit",
				     m->name, T, tr.why[ANA_G_CSD]);
		if (tr.raw_syscalls)
			results_note(a->res, "%s T=%d: syscall entry and exit from raw_syscalls:* filtered on the system call's number (no syscalls:*: CONFIG_FTRACE_SYSCALLS is off)",
				     m->name, T);
	}
	series_free(s, ns);
	hist_free(&hu);
	hist_free(&ht);
	hist_free(&hbu);
	hist_free(&hbt);
	free(cal0);
	free(cal1);
	free(busiest);
	ana_trace_close(&tr);
	free(u);
	free(tn);
	return err > 0 ? 1 : err ? -1 : 0;
}

static void anatomy_point(struct ana_run *a, const struct mechanism *m, int T)
{
	char why[512];
	struct team team;
	struct placement pl;
	int r = base_row(a->t, m, T), st;
	char *cpus;

	if (!mech_has(m, MC_IPI, 0)) {
		row_skip(a->t, r, "not an IPI mechanism (no ipi flag in mbbench list): nothing crosses CPUs to decompose");
		return;
	}
	if (T < 2) {
		row_skip(a->t, r, "T=1: no other CPU to interrupt");
		return;
	}
	if (a->contenders && ana_contenders_start(&a->cont, m, a->contenders - 1, why, sizeof(why))) {
		row_skip(a->t, r, why);
		return;
	}
	if (team_for(&team, a->o, m, T, &pl, why, sizeof(why))) {
		ana_contenders_stop(&a->cont);
		row_skip(a->t, r, why);
		return;
	}
	cpus = placement_cpus_str(&pl, 0, pl.n);
	table_set_str(a->t, r, "cpus", cpus);
	free(cpus);
	st = trace_point(a, m, T, r, &pl, &team, why, sizeof(why));
	team_stop(&team);
	if (st < 0) {
		row_skip(a->t, r, why);
	} else if (st > 0) {
		table_set_topology(a->t, r, a->o->topo, &pl);
	} else {
		table_set_str(a->t, r, "status", "ok");
		table_set_topology(a->t, r, a->o->topo, &pl);
	}
	ana_contenders_stop(&a->cont);
	placement_free(&pl);
}

/* The clocks of the caller's CPU and each target's, before any team runs. */
static void clock_check(struct ana_run *a)
{
	int T = 0;
	struct placement pl;
	char why[256];

	for (int i = 0; i < a->o->nthreads; i++)
		if (a->o->threads[i] > T)
			T = a->o->threads[i];
	if (T < 2 || placement_compute(a->o->topo, a->o->placement, T, &pl, why, sizeof(why)))
		return;
	for (int i = 1; i < pl.n; i++) {
		struct ana_skew sk;
		double tol;

		if (pl.pu_os[i] == pl.pu_os[0])
			continue;
		if (ana_clock_skew(pl.pu_os[0], pl.pu_os[i], 20000, &sk, why, sizeof(why))) {
			results_note(a->res, "%s", why);
			continue;
		}
		results_derived(a->res, "clock_offset_ns", sk.offset_ns,
				"clock check CPU %d vs %d: offset %+.0f ns within +-%.0f ns (half the shortest of %d CLOCK_MONOTONIC ping-pongs); %d rounds stamped out of order",
				pl.pu_os[i], pl.pu_os[0], sk.offset_ns, sk.rtt_ns / 2, sk.rounds, sk.violations);
		results_derived(a->res, "clock_rtt_ns", sk.rtt_ns, "shortest ping-pong round trip CPU %d <-> %d: %.0f ns",
				pl.pu_os[0], pl.pu_os[i], sk.rtt_ns);
		tol = fabs(sk.offset_ns) + sk.rtt_ns / 2;
		if ((uint64_t)ceil(tol) > a->tol_ns)
			a->tol_ns = (uint64_t)ceil(tol);
	}
	placement_free(&pl);
}

static void write_events(struct ana_run *a, char *buf, size_t n)
{
	struct atomic_file af;

	if (atomic_open(&af, a->save, a->o->force) ||
	    fwrite(buf, 1, n, af.f) != n || atomic_commit(&af))
		fail("--save-events %s: %s", a->save, strerror(errno));
}

static int exp_anatomy_main(int argc, char **argv)
{
	struct ana_run a = { .barriers = 2000 };
	char def_mech[1024], *evbuf = NULL;
	size_t evlen = 0;
	const struct exp_opt ana_opts[] = {
		OPT_INT("barriers", "N", "barriers traced per mechanism, in --repeat batches (default 2000)",
			&a.barriers, 2, 10000000, "(a count from 2 to 10000000)"),
		OPT_STRING("save-events", "FILE", "also write the decoded events, one per line, to FILE",
			   &a.save),
		OPT_INT("contenders", "N", "also trace with N callers of the command in all (N - 1\n"
			"other processes): the entry -> queue phase's mutex wait",
			&a.contenders, 2, 256, "(callers in all, from 2 to 256)"),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "anatomy",
		.synopsis = "Where a barrier's time goes: each IPI mechanism's phases from the kernel's tracepoints.",
		.common = CO_MECH | CO_THREADS | CO_PLACEMENT | CO_REPEAT | CO_FORMAT | CO_JSON | CO_OUTPUT |
			  CO_WORK,
		.def_mech = mech_names_with(MC_IPI, 0, def_mech, sizeof(def_mech)),
		.def_threads = "2",
		.def_repeat = 10,
		.opts = ana_opts,
	};
	struct opts o;
	struct table t, pt;
	struct results res;
	char *save_path = NULL;

	opts_parse(argc, argv, &spec, &o);
	if (a.barriers < o.repeat)
		die("--barriers %d is below --repeat %d batches (raise --barriers)", a.barriers, o.repeat);
	if (a.save)
		a.save = save_path = check_output_file("--save-events", a.save, o.force);
	table_init(&t, anatomy_table.cols, anatomy_table.ncols);
	table_init(&pt, anatomy_phases_table.cols, anatomy_phases_table.ncols);
	results_begin(&res, &o, &t);
	results_add_table(&res, "phases", &pt);
	a.o = &o;
	a.t = &t;
	a.pt = &pt;
	a.res = &res;
	if (a.save && !(a.events = open_memstream(&evbuf, &evlen)))
		fail("--save-events: %s", strerror(errno));
	clock_check(&a);
	for (int mi = 0, point = 0; mi < o.nmechs; mi++) {
		const struct mechanism *m = o.mechs[mi];
		char why[256];

		if (mech_has(m, MC_IPI, 0) && mech_prepare(m, why, sizeof(why))) {
			for (int ti = 0; ti < o.nthreads; ti++) {
				progress("anatomy", ++point, o.nmechs * o.nthreads, m->name);
				row_skip(&t, base_row(&t, m, o.threads[ti]), why);
			}
			continue;
		}
		for (int ti = 0; ti < o.nthreads; ti++) {
			progress("anatomy", ++point, o.nmechs * o.nthreads, m->name);
			anatomy_point(&a, m, o.threads[ti]);
		}
		if (mech_has(m, MC_IPI, 0) && m->teardown)
			m->teardown(m);
	}
	results_note(&res, "phase CIs by the batch method: the spread of the --repeat batches' own percentiles (Student t)");
	results_note(&res, "each batch is timed untraced, then traced, in the same team: the tracing overhead is their difference");
	results_emit(&res);
	if (a.events) {
		fclose(a.events);
		write_events(&a, evbuf, evlen);
		free(evbuf);
	}
	free(save_path);
	table_free(&t);
	table_free(&pt);
	opts_free(&o);
	return 0;
}

const struct experiment exp_anatomy = {
	.tables = (const struct table_schema *const[]){ &anatomy_table, &anatomy_phases_table, NULL },
	.name = "anatomy",
	.summary = "where a barrier's time goes: phases from the kernel's tracepoints",
	.main = exp_anatomy_main,
	.quick = { .repeat = 5, .barriers = 1000, .threads = "2", .processes = 3 },
	.full = { .repeat = 10, .barriers = 5000 },
	.picks = anatomy_picks,
	.npicks = ANATOMY_NPICKS,
	.cpus = 2,	/* a CPU besides the caller's */
	.cost = anatomy_cost,
	.options = anatomy_options,
};
