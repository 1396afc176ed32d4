// SPDX-License-Identifier: MIT
/*
 * disturb: what one process's barriers do to every other CPU. A caller
 * issues barriers at a fixed rate; each other CPU is given a role (idle, a
 * spinning or sleeping thread of the caller's process, a spinning, RT
 * busy-polling or periodically sleeping thread of another process). Each
 * round is run twice, a quiet baseline (the same paced loop, no barrier) and
 * the storm, and per CPU we count the function-call IPIs received, those
 * requested by a membarrier callback, TLB shootdowns, idle entries, signals
 * delivered, and the victims' loop gaps (oslat method) or wake-up latency
 * (cyclictest method). The seed's claim under test: v5/PRIVATE_EXPEDITED
 * IPIs only the CPUs running the caller's threads, v1 every CPU.
 *
 * Each phase runs in NSLICE slices; the percentiles of each slice's
 * samples (the caller's calls, a foreign victim's gaps or wake-ups) give
 * the phase's percentiles their 95% CIs, as latency's repeats do, and each
 * slice's counts per barrier give the counts theirs.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disturb.h"
#include "schema.h"
#include "util.h"
#include "victim.h"

#define MAX_RATE 10000000ull
#define WARMUP_S 0.1
#define NSLICE DISTURB_NSLICE

static const struct col disturb_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY("round", COL_INT, "", COL_REQ, "0, 1, ...: rows of one round were measured together"),
	COL_KEY("role", COL_STR, "", COL_REQ,
		"`idle`, `self-spin`, `self-sleep` (threads of the caller's process), `foreign-spin`, `foreign-rt`, `foreign-sleep` (another process), or `caller`"),
	COL_KEY("cpu", COL_INT, "", COL_REQ, "OS CPU number"),
	COL_KEY("phase", COL_STR, "", COL_REQ, "`baseline` or `storm`"),
	COL_INFO("victim", COL_STR, "", 0,
		 "`mbbench` (our victim), `oslat` or `cyclictest` (`--victim-cmd`), empty for `idle`"),
	COL_INFO("policy", COL_STR, "", 0,
		 "scheduling policy of the victim: `SCHED_OTHER`, `SCHED_FIFO/<prio>`, or `the tool's own`"),
	COL_INFO("rate_per_s", COL_NUM, "1/s", 0, "barriers per second asked; empty for `--rate max`"),
	COL_INFO("elapsed_s", COL_NUM, "s", 0, "length of the phase"),
	COL_COUNT("barriers", COL_INT, 0, "barriers issued in the phase (0 in the baseline)"),
	COL_INFO("ipi_source", COL_STR, "", 0,
		 "`tracepoint` (irq_vectors:call_function_entry + call_function_single_entry, per CPU) or `proc-interrupts` (the CAL row); the JSON notes say why tracepoints were not used"),
	COL_COUNT("ipis", COL_INT, 0, "function-call IPIs the CPU received in the phase"),
	COL_MEASURE("ipis_per_barrier", COL_NUM, "1/barrier", LOWER, DIFF, COL_REQ | COL_SIGNED,
		    "storm only: (`ipis` - baseline `ipis` scaled to the storm's length) / `barriers`"),
	COL_COUNT("mb_ipis", COL_INT, 0,
		  "cross-CPU calls queued for this CPU with a membarrier callback (csd:csd_queue_cpu filtered on ipi_mb, ipi_sync_core, ipi_rseq, ipi_sync_rq_state and on the caller's thread); counted at the sender, so it includes calls an idle polling CPU ran without an IPI; empty when not measurable (reason in the notes)"),
	COL_MEASURE("mb_ipis_per_barrier", COL_NUM, "1/barrier", LOWER, NONE, COL_REQ | COL_SIGNED,
		    "storm only, as `ipis_per_barrier`"),
	COL_COUNT("tlb_shootdowns", COL_INT, 0, "TLB row of /proc/interrupts (x86); the same IPIs also count in `ipis`"),
	COL_MEASURE("tlb_per_barrier", COL_NUM, "1/barrier", LOWER, NONE, COL_REQ | COL_SIGNED,
		    "storm only, as `ipis_per_barrier`"),
	COL_CI95("ipis_per_barrier_ci95", "ipis_per_barrier", "1/barrier", 0,
		 "storm only, our own victims' rounds: the 95% CI half-width from the phase's 5 slices (each storm slice's count less the baseline slice of the same index scaled to its length, over that slice's barriers); empty for a real tool's round"),
	COL_CI95("mb_ipis_per_barrier_ci95", "mb_ipis_per_barrier", "1/barrier", 0, "as `ipis_per_barrier_ci95`"),
	COL_CI95("tlb_per_barrier_ci95", "tlb_per_barrier", "1/barrier", 0, "as `ipis_per_barrier_ci95`"),
	COL_COUNT("idle_entries", COL_INT, 0, "cpuidle state usage counts summed; empty without cpuidle (e.g. most VMs)"),
	COL_COUNT("signals", COL_INT, 0, "`signal` mechanism, self-* roles: signals the thread handled in the phase"),
	COL_INFO("oncpu_fraction", COL_NUM, "", COL_REQ,
		 "CPU time of the victim thread or process / `elapsed_s`: a self-spin CPU can only be IPI'd while our thread is current there"),
	COL_COUNT("samples", COL_INT, 0,
		  "foreign-rt: loop gaps recorded; foreign-sleep: wake-ups; caller (storm): barriers timed"),
	COL_MEASURE("p50_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ,
		    "foreign-rt: gaps in its busy-poll loop (oslat method); foreign-sleep: wake-up lateness (cyclictest method, 1 ms period); caller: barrier call latency; same histogram as latency.csv"),
	COL_MEASURE("p99_ns", COL_NUM, "ns", LOWER, PCT, COL_REQ, "99th percentile, as `p50_ns`"),
	COL_MEASURE("p999_ns", COL_NUM, "ns", LOWER, NONE, 0, "99.9th percentile, as `p50_ns`"),
	COL_MEASURE("max_ns", COL_NUM, "ns", LOWER, NONE, 0, "maximum, as `p50_ns`"),
	COL_COUNT("repeats", COL_INT, COL_POS,
		  "the fewest slices any of the row's CIs came from (5 unless a slice had no sample or no barrier); empty where the row has no CI: a real tool's rows, and baseline rows without a histogram"),
	COL_CI95("p50_ns_ci95", "p50_ns", "ns", 0,
		 "95% CI half-width of `p50_ns` from the spread of the slices' own percentiles (the batch-percentile method, as in latency.csv)"),
	COL_CI95("p99_ns_ci95", "p99_ns", "ns", 0,
		 "as `p50_ns_ci95`; compare and report do not test it where a slice holds fewer than 100 samples"),
	COL_CI95("p999_ns_ci95", "p999_ns", "ns", 0,
		 "as `p50_ns_ci95`; not tested where a slice holds fewer than 1000 samples (the full preset's 5 s phases hold 1000)"),
	COL_STATUS("status", COL_REQ,
		   "`ok`, or `skipped` with the reason (mechanism unavailable, `SCHED_FIFO needs root or CAP_SYS_NICE`, the tool failed) and no numbers"),
	COL_STATUS("skip_reason", 0, "why a skipped row could not be measured"),
	COL_INFO("where", COL_STR, "", 0,
		 "the row's CPU relative to the caller's: `caller`, `local` (same package and NUMA node) or `remote` (another package or node); without `--roles`, a host with a CPU for every role on both sides runs each role on both at once"),
};

const struct table_schema disturb_table = {
	.name = "disturb", .experiment = "disturb", .analysed = 1,
	.rows = "One row per (mechanism, round, CPU, role, phase). A round runs its roles at the same time (all of them, or one each with `--in-turn`); `caller` rows are the caller's own CPU. Every round runs a `baseline` phase (the same paced loop with no barrier) and then the `storm`.",
	.notes = "Derived: none. The JSON notes record the IPI source and why, whether attribution and idle counts were measurable, and rate shortfalls.",
	.cols = disturb_cols, .ncols = NCOLS(disturb_cols),
};

/* --rate N, N/s or max (0). */
static int parse_rate(const char *arg, void *dest)
{
	double *rate = dest;
	char buf[32];
	size_t l = strlen(arg);
	uint64_t v;

	if (!strcmp(arg, "max")) {
		*rate = 0;
		return 0;
	}
	/* "1000" or "1000/s" */
	if (l >= sizeof(buf))
		return -1;
	memcpy(buf, arg, l + 1);
	if (l > 2 && !strcmp(buf + l - 2, "/s"))
		buf[l - 2] = '\0';
	if (parse_u64(buf, 1, MAX_RATE, &v))
		return -1;
	*rate = (double)v;
	return 0;
}

/* In enum ipi_source's order. */
static const char *const ipi_sources[] = { "auto", "tracepoint", "proc", NULL };

/* Is cpu usable: present in the topology and in our affinity mask? */
static int cpu_ok(void *arg, int cpu)
{
	const struct opts *o = arg;
	char buf[16], err[256];
	struct placement pl;
	int bad;

	snprintf(buf, sizeof(buf), "%d", cpu);
	if (placement_compute(o->topo, buf, 1, &pl, err, sizeof(err)))
		return 0;
	bad = placement_check_affinity(&pl, err, sizeof(err));
	placement_free(&pl);
	return !bad;
}

/* CPU time of a slot's thread or process so far, ns; 0 when not known. */
static uint64_t slot_runtime(const struct team *team, int selfidx, pid_t pid)
{
	if (selfidx >= 0) {
		clockid_t cid;
		struct timespec ts;

		if (pthread_getcpuclockid(team->th[selfidx], &cid) ||
		    clock_gettime(cid, &ts))
			return 0;
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return pid > 0 ? victim_runtime_ns(pid) : 0;
}

int disturb_row(struct run_ctx *c, const struct mechanism *m, int round,
		const char *role, int cpu, const char *phase, const char *victim)
{
	struct table *t = c->t;
	int r = table_add_row(t);

	table_set_str(t, r, "mechanism", m->name);
	table_set_int(t, r, "round", round);
	table_set_str(t, r, "role", role);
	table_set_int(t, r, "cpu", cpu);
	table_set_str(t, r, "where", topo_where(c->o->topo, c->d->caller_cpu, cpu));
	table_set_str(t, r, "phase", phase);
	table_set_str(t, r, "victim", victim);
	if (c->d->rate > 0)
		table_set_num(t, r, "rate_per_s", c->d->rate);
	return r;
}

void disturb_skip_rows(struct run_ctx *c, const struct mechanism *m, int round,
		       const char *role, int cpu, const char *victim, const char *reason)
{
	static const char *const phases[] = { "baseline", "storm" };

	for (int p = 0; p < 2; p++) {
		int r = disturb_row(c, m, round, role, cpu, phases[p], victim);

		row_skip(c->t, r, reason);
	}
}

static double delta(const uint64_t *a, const uint64_t *b, int cpu)
{
	return (double)(b[cpu] - a[cpu]);
}

/* Storm count minus the baseline's, scaled to the storm's length, per barrier. */
static double per_barrier(double storm, double base, double storm_s, double base_s,
			  uint64_t barriers)
{
	if (!barriers || base_s <= 0)
		return NAN;
	return (storm - base * storm_s / base_s) / (double)barriers;
}

enum { CNT_IPIS, CNT_MB, CNT_TLB };

static const uint64_t *counts_of(const struct ipisnap *s, int which)
{
	return which == CNT_IPIS ? s->ipis : which == CNT_MB ? s->mb : s->tlb;
}

/*
 * The 95% CI half-width of a storm's count per barrier on cpu from its
 * slices, each against the baseline's slice of the same index (so the
 * baseline's own noise is in the spread); *n is the slices used. NAN
 * without two slices that issued barriers.
 */
static double per_barrier_ci(const struct phase_data *pd, const struct phase_data *base,
			     int cpu, int which, int *n)
{
	double x[NSLICE];
	struct summary s;

	*n = 0;
	for (int i = 0; i < pd->nsl && i < base->nsl; i++) {
		double v = per_barrier(delta(counts_of(&pd->sl[i], which), counts_of(&pd->sl[i + 1], which), cpu),
				       delta(counts_of(&base->sl[i], which), counts_of(&base->sl[i + 1], which), cpu),
				       pd->sl_s[i], base->sl_s[i], pd->sl_calls[i]);

		if (!isnan(v))
			x[(*n)++] = v;
	}
	if (*n < 2)
		return NAN;
	summarize(x, *n, &s);
	return s.ci95;
}

/*
 * A row's `repeats` is the fewest slices any of its CIs came from (its
 * counts' and its percentiles'), so compare's test never counts on more.
 */
static void set_slices(struct table *t, int r, int n)
{
	const char *have = table_get(t, r, "repeats");

	if (have && *have && atoi(have) < n)
		return;
	table_set_int(t, r, "repeats", n);
}

void disturb_counter_cells(struct run_ctx *c, int r, int cpu, struct phase_data *pd,
			   struct phase_data *base, int storm)
{
	struct table *t = c->t;
	uint64_t n = pd->me.calls;

	table_set_num(t, r, "elapsed_s", pd->elapsed_s);
	table_set_int(t, r, "barriers", storm ? (long long)n : 0);
	table_set_str(t, r, "ipi_source", ipi_source_name(c->ic->src));
	static const char *const cols[3][3] = {
		{ "ipis", "ipis_per_barrier", "ipis_per_barrier_ci95" },
		{ "mb_ipis", "mb_ipis_per_barrier", "mb_ipis_per_barrier_ci95" },
		{ "tlb_shootdowns", "tlb_per_barrier", "tlb_per_barrier_ci95" },
	};
	const int have[3] = { pd->b.have_ipis, pd->b.have_mb[cpu], pd->b.have_tlb };

	for (int w = CNT_IPIS; w <= CNT_TLB; w++) {
		const uint64_t *a = counts_of(&pd->a, w), *b = counts_of(&pd->b, w);

		if (!have[w])
			continue;
		table_set_int(t, r, cols[w][0], (long long)delta(a, b, cpu));
		if (!storm)
			continue;
		table_set_num(t, r, cols[w][1],
			      per_barrier(delta(a, b, cpu),
					  delta(counts_of(&base->a, w), counts_of(&base->b, w), cpu),
					  pd->elapsed_s, base->elapsed_s, n));
		if (pd->nsl >= 2) {
			int used;
			double ci = per_barrier_ci(pd, base, cpu, w, &used);

			if (used >= 2) {
				set_slices(t, r, used);
				table_set_num(t, r, cols[w][2], ci);
			}
		}
	}
	if (pd->b.have_idle)
		table_set_int(t, r, "idle_entries", (long long)delta(pd->a.idle, pd->b.idle, cpu));
	table_set_str(t, r, "status", "ok");
}

const double disturb_pcts[DISTURB_NPCT] = { 50, 99, 99.9 };

void disturb_hist_cells(struct table *t, int r, const struct hist *h,
			const struct pct_batches *bp)
{
	static const char *const ci[DISTURB_NPCT] = { "p50_ns_ci95", "p99_ns_ci95", "p999_ns_ci95" };

	table_set_int(t, r, "samples", (long long)h->count);
	if (!h->count)
		return;
	table_set_num(t, r, "p50_ns", hist_percentile(h, 50));
	table_set_num(t, r, "p99_ns", hist_percentile(h, 99));
	table_set_num(t, r, "p999_ns", hist_percentile(h, 99.9));
	table_set_num(t, r, "max_ns", (double)h->max);
	if (!bp || bp->n < 2)	/* no spread to take a CI from: empty cells */
		return;
	set_slices(t, r, bp->n);
	for (int k = 0; k < DISTURB_NPCT; k++)
		table_set_num(t, r, ci[k], pct_batches_ci95(bp, k));
}

/*
 * One phase of a round in NSLICE slices of the paced loop: the caller's
 * calls into caller_h (when given) with one batch of percentiles per slice
 * in *cb, and each foreign victim's new samples since the last slice as one
 * batch in vb[k] (vk[k] NULL: no victim histogram in slot k).
 */
static void sliced_phase(struct run_ctx *c, const struct mechanism *m, double dur,
			 struct hist *caller_h, struct pct_batches *cb, struct phase_data *pd,
			 int n, struct victim *const *vk, int ph, struct pct_batches *vb)
{
	struct hist slice, snap, prev[64];
	struct measure *me = &pd->me;
	uint64_t t0;

	memset(me, 0, sizeof(*me));
	for (int i = 0; i <= NSLICE; i++)
		ipisnap_init(&pd->sl[i], c->ncpus);
	pd->nsl = 0;
	hist_init(&slice);
	hist_init(&snap);
	for (int k = 0; k < n; k++)
		if (vk[k]) {	/* only slots with a victim's histogram */
			hist_init(&prev[k]);
			hist_merge(&prev[k], &vk[k]->sh->h[ph]);
		}
	ipicount_read(c->ic, &pd->sl[0]);
	t0 = now_ns();
	for (int i = 0; i < NSLICE; i++) {
		struct measure one;
		uint64_t t1;

		hist_reset(&slice);
		harness_paced(m, c->d->rate, dur / NSLICE, caller_h ? &slice : NULL, &one);
		ipicount_read(c->ic, &pd->sl[i + 1]);
		t1 = now_ns();
		pd->sl_s[i] = (double)(t1 - t0) / 1e9;
		pd->sl_calls[i] = one.calls;
		pd->nsl = i + 1;
		t0 = t1;
		me->calls += one.calls;
		me->ns += one.ns;
		if (!me->err)
			me->err = one.err;
		if (caller_h) {
			hist_merge(caller_h, &slice);
			pct_batches_add(cb, &slice);
		}
		for (int k = 0; k < n; k++) {
			if (!vk[k])
				continue;
			hist_reset(&snap);	/* one reading of the growing histogram */
			hist_merge(&snap, &vk[k]->sh->h[ph]);
			hist_since(&slice, &snap, &prev[k]);
			pct_batches_add(&vb[k], &slice);
			hist_reset(&prev[k]);
			hist_merge(&prev[k], &snap);
		}
		if (me->err)
			break;
	}
	for (int k = 0; k < n; k++)
		if (vk[k])
			hist_free(&prev[k]);
	hist_free(&slice);
	hist_free(&snap);
}

void disturb_snap_begin(struct run_ctx *c, struct phase_data *pd, uint64_t *t0)
{
	ipisnap_init(&pd->a, c->ncpus);
	ipisnap_init(&pd->b, c->ncpus);
	ipicount_read(c->ic, &pd->a);
	*t0 = now_ns();
}

void disturb_snap_end(struct run_ctx *c, struct phase_data *pd, uint64_t t0)
{
	pd->elapsed_s = (double)(now_ns() - t0) / 1e9;
	ipicount_read(c->ic, &pd->b);
}

void disturb_phase_free(struct phase_data *pd)
{
	ipisnap_free(&pd->a);
	ipisnap_free(&pd->b);
	free(pd->acks);
	for (int i = 0; i <= NSLICE; i++)
		ipisnap_free(&pd->sl[i]);
}

/* A round of our own victims: baseline then storm, rows for every slot. */
static void run_round(struct run_ctx *c, const struct mechanism *m,
		      const struct mechanism *null_mech, int ri, const struct round *rd)
{
	const struct opts *o = c->o;
	struct victim_group g = { 0 };
	struct team team;
	struct team_cfg cfg = { 0 };
	struct placement pl = { 0 };
	enum behaviour behs[64];
	int selfidx[64], nself = 0;
	char reason[64][256];
	int failed[64] = { 0 };
	pid_t vpid[64] = { 0 };
	struct phase_data pd[2];
	struct hist caller_h;
	struct pct_batches cb, vb[2][64];
	struct victim *vk[64] = { 0 };
	struct watchdog *wd;
	const double dur = o->duration_s;
	char err[256];
	uint64_t t0;

	memset(pd, 0, sizeof(pd));
	/* Fork the foreign victims while this process has one thread. */
	for (int k = 0; k < rd->n; k++) {
		selfidx[k] = -1;
		if (role_is_foreign(rd->s[k].role) &&
		    victim_start(&g, rd->s[k].role, rd->s[k].cpu, c->d->rt_prio,
				 WARMUP_S + 2 * dur + 5, reason[k], sizeof(reason[k])))
			failed[k] = 1;
		if (rd->s[k].role == ROLE_SELF_SPIN || rd->s[k].role == ROLE_SELF_SLEEP) {
			behs[nself] = rd->s[k].role == ROLE_SELF_SPIN ? BEH_SPIN : BEH_SLEEP;
			selfidx[k] = nself++;
		}
	}
	wd = watchdog_arm(&g, WARMUP_S + 2 * dur + 10);
	pl.n = nself + 1;
	pl.pu_os = xcalloc((size_t)pl.n, sizeof(int));
	pl.pu_logical = xcalloc((size_t)pl.n, sizeof(int));
	pl.pu_os[0] = c->d->caller_cpu;
	for (int k = 0; k < rd->n; k++)
		if (selfidx[k] >= 0)
			pl.pu_os[selfidx[k] + 1] = rd->s[k].cpu;
	cfg.topo = o->topo;
	cfg.pl = &pl;
	cfg.beh = BEH_SPIN;
	cfg.behs = behs;
	cfg.other_process = 0;
	cfg.mech = m;
	if (team_start(&team, &cfg, err, sizeof(err))) {
		watchdog_cancel(wd);
		victim_stop_all(&g);
		for (int k = 0; k < rd->n; k++)
			disturb_skip_rows(c, m, ri, role_name(rd->s[k].role), rd->s[k].cpu, "mbbench", err);
		disturb_skip_rows(c, m, ri, "caller", c->d->caller_cpu, "mbbench", err);
		goto out;
	}
	hist_init(&caller_h);
	pct_batches_init(&cb, disturb_pcts, DISTURB_NPCT, NSLICE);
	for (int k = 0; k < rd->n; k++) {
		for (int p = 0; p < 2; p++)
			pct_batches_init(&vb[p][k], disturb_pcts, DISTURB_NPCT, NSLICE);
		for (int i = 0; i < g.nv; i++)
			if (!failed[k] && g.v[i].cpu == rd->s[k].cpu && g.v[i].sh &&
			    (rd->s[k].role == ROLE_FOREIGN_RT || rd->s[k].role == ROLE_FOREIGN_SLEEP))
				vk[k] = &g.v[i];
	}
	harness_warmup(m, 0.02);
	usleep((useconds_t)(WARMUP_S * 1e6));
	for (int k = 0; k < rd->n; k++)
		for (int i = 0; i < g.nv; i++)
			if (g.v[i].cpu == rd->s[k].cpu && g.v[i].sh)
				vpid[k] = g.v[i].pid;
	for (int p = 0; p < 2; p++) {
		uint64_t rt0[64];

		victim_phase(&g, p ? VPH_STORM : VPH_BASELINE);
		pd[p].acks = xcalloc((size_t)(nself + 1), sizeof(unsigned long));
		for (int i = 0; i < nself; i++)
			pd[p].acks[i] = mech_signal_acks(i);
		for (int k = 0; k < rd->n; k++)
			rt0[k] = slot_runtime(&team, selfidx[k], vpid[k]);
		disturb_snap_begin(c, &pd[p], &t0);
		/* Baseline: the same paced loop without a barrier. */
		sliced_phase(c, p ? m : null_mech, dur, p ? &caller_h : NULL, &cb, &pd[p],
			     rd->n, vk, p ? VPH_STORM : VPH_BASELINE, vb[p]);
		disturb_snap_end(c, &pd[p], t0);
		for (int k = 0; k < rd->n; k++) {
			uint64_t rt1 = slot_runtime(&team, selfidx[k], vpid[k]);

			pd[p].oncpu[k] = rt0[k] && rt1 ? (double)(rt1 - rt0[k]) / 1e9 / pd[p].elapsed_s : NAN;
		}
		for (int i = 0; i < nself; i++)
			pd[p].acks[i] = mech_signal_acks(i) - pd[p].acks[i];
	}
	victim_phase(&g, VPH_STOP);
	team_stop(&team);
	watchdog_cancel(wd);
	victim_stop_all(&g);

	for (int p = 0; p < 2; p++) {
		const char *ph = p ? "storm" : "baseline";
		int r;

		for (int k = 0; k < rd->n; k++) {
			enum role role = rd->s[k].role;
			int cpu = rd->s[k].cpu;
			struct victim *v = NULL;

			if (failed[k]) {
				if (!p)
					disturb_skip_rows(c, m, ri, role_name(role), cpu, "mbbench", reason[k]);
				continue;
			}
			for (int i = 0; i < g.nv; i++)
				if (g.v[i].cpu == cpu && g.v[i].sh)
					v = &g.v[i];
			r = disturb_row(c, m, ri, role_name(role), cpu, ph,
					role == ROLE_IDLE ? "" : "mbbench");
			disturb_counter_cells(c, r, cpu, &pd[p], &pd[0], p);
			if (pd[p].me.err) {
				snprintf(err, sizeof(err), "barrier failed: %s", strerror(-pd[p].me.err));
				row_skip(c->t, r, err);
			}
			if (selfidx[k] >= 0 && !strcmp(m->name, "signal"))
				table_set_int(c->t, r, "signals", (long long)pd[p].acks[selfidx[k]]);
			if (role_is_foreign(role) && v)
				table_set_str(c->t, r, "policy", v->sh->policy);
			else if (role != ROLE_IDLE)
				table_set_str(c->t, r, "policy", "SCHED_OTHER");
			if ((role == ROLE_FOREIGN_RT || role == ROLE_FOREIGN_SLEEP) && v) {
				const struct hist *vh = &v->sh->h[p ? VPH_STORM : VPH_BASELINE];

				disturb_hist_cells(c->t, r, vh, &vb[p][k]);
				/* No sample is no measurement: its CPU never ran it. */
				if (!vh->count && !pd[p].me.err)
					row_skip(c->t, r, "the victim took no sample in this phase: its CPU never ran it (host too busy; retry on a quieter host)");
			}
			if (role != ROLE_IDLE)
				table_set_num(c->t, r, "oncpu_fraction", pd[p].oncpu[k]);
		}
		r = disturb_row(c, m, ri, "caller", c->d->caller_cpu, ph, "mbbench");
		disturb_counter_cells(c, r, c->d->caller_cpu, &pd[p], &pd[0], p);
		table_set_str(c->t, r, "policy", "SCHED_OTHER");
		if (p)
			disturb_hist_cells(c->t, r, &caller_h, &cb);
		if (pd[p].me.err) {
			snprintf(err, sizeof(err), "barrier failed: %s", strerror(-pd[p].me.err));
			row_skip(c->t, r, err);
		}
	}
	if (c->d->rate > 0 && pd[1].me.calls < 0.9 * c->d->rate * dur)
		results_note(c->res, "%s round %d: %llu barriers in %.2f s, below the %.0f/s asked: each call takes longer than the period",
			     m->name, ri, (unsigned long long)pd[1].me.calls, pd[1].elapsed_s, c->d->rate);
	hist_free(&caller_h);
	pct_batches_free(&cb);
	for (int k = 0; k < rd->n; k++)
		for (int p = 0; p < 2; p++)
			pct_batches_free(&vb[p][k]);
	disturb_phase_free(&pd[0]);
	disturb_phase_free(&pd[1]);
out:
	for (int i = 0; i < g.nv; i++)
		victim_shared_free(g.v[i].sh);
	free(g.v);
	free(pl.pu_os);
	free(pl.pu_logical);
}

int exp_disturb_main(int argc, char **argv)
{
	struct dstate d = {
		.rate = 1000,
		.caller_cpu = -1,
		.src = IPI_SRC_AUTO,
		.rt_prio = 5,
	};
	int src = IPI_SRC_AUTO;
	const struct exp_opt disturb_opts[] = {
		OPT_INT("caller-cpu", "N", "CPU of the caller (default: the first CPU)",
			&d.caller_cpu, 0, 1u << 20, "(a CPU number)"),
		OPT_FLAG("in-turn", "run each role alone, one round each", &d.in_turn),
		OPT_CHOICE("ipi-source", "auto|tracepoint|proc",
			   "where IPI counts come from (default auto)", &src, ipi_sources,
			   "(use auto, tracepoint or proc)"),
		OPT_CALLBACK("rate", "N|max", "barriers per second (default 1000)", &d.rate,
			     parse_rate,
			     "(barriers per second, 1 to 10000000, e.g. 1000 or 1000/s, or max)"),
		OPT_STRING("roles", "ROLE[@CPU],...",
			   "idle, self-spin, self-sleep, foreign-spin,\n"
			   "foreign-rt, foreign-sleep (default: every role,\n"
			   "in turn when the host has too few CPUs)", &d.roles),
		OPT_INT("rt-prio", "N", "SCHED_FIFO priority of RT victims, 1-10 (default 5)",
			&d.rt_prio, 1, 10,
			"(a SCHED_FIFO priority from 1 to 10: kept modest on purpose)"),
		OPT_STRING("victim-cmd", "\"CMD ARGS\"", "also run oslat or cyclictest as the victim",
			   &d.victim_cmd),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "disturb",
		.synopsis = "What one caller's barriers do to the other CPUs: IPIs, TLB shootdowns, signals, victims' latency; baseline vs storm.",
		.common = CO_MECH | CO_DURATION | CO_FORMAT | CO_JSON | CO_OUTPUT,
		.opts = disturb_opts,
		.def_mech = "membarrier-private-expedited",
		.def_duration_s = 1.0,
	};
	struct opts o;
	struct table t;
	struct results res;
	struct round *rounds;
	int nrounds, point = 0, targets[64 * 2], ntargets = 0;
	const struct mechanism *null_mech = mech_find("null");
	enum role tool_role = ROLE_IDLE;
	struct ipicount ic;
	struct run_ctx c;
	int rt_noted = 0;

	opts_parse(argc, argv, &spec, &o);
	d.src = (enum ipi_source)src;
	if (o.iterations)
		die_usage("disturb runs for --duration; --iterations is not used here");
	memset(&c, 0, sizeof(c));
	if (d.victim_cmd) {
		char *tool;

		c.tool_argv = disturb_split_cmd(d.victim_cmd, &c.tool_argc, &tool_role, &tool);
		c.tool = tool;
		if (o.duration_s < 1)
			die_usage("--victim-cmd: rt-tests count whole seconds; give --duration 1 or more");
	}
	{
		struct dplan_in in = {
			.topo = o.topo, .cpu_ok = cpu_ok, .cpu_ok_arg = &o,
			.host_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN),
			.caller_cpu = d.caller_cpu, .in_turn = d.in_turn, .roles = d.roles,
			.have_tool = d.victim_cmd != NULL, .tool_role = tool_role,
		};
		char err[512];

		nrounds = disturb_plan(&in, &rounds, err, sizeof(err));
		if (nrounds == DPLAN_USAGE)
			die_usage("%s", err);
		if (nrounds < 0)
			die("%s", err);
		d.caller_cpu = in.caller_cpu;
		d.in_turn = in.in_turn;
	}
	for (int i = 0; i < nrounds; i++)
		for (int k = 0; k < rounds[i].n; k++) {
			int dup = 0;

			for (int j = 0; j < ntargets; j++)
				dup |= targets[j] == rounds[i].s[k].cpu;
			if (!dup && ntargets < 64 * 2 - 1)
				targets[ntargets++] = rounds[i].s[k].cpu;
		}
	targets[ntargets++] = d.caller_cpu;

	table_init(&t, disturb_cols, (int)(sizeof(disturb_cols) / sizeof(disturb_cols[0])));
	results_begin(&res, &o, &t);
	{
		int maxcpu = 0;

		for (int i = 0; i < ntargets; i++)
			if (targets[i] > maxcpu)
				maxcpu = targets[i];
		c.ncpus = maxcpu + 1;
	}
	ipicount_open(&ic, c.ncpus, d.src, targets, ntargets);
	if (d.src == IPI_SRC_TRACEPOINT && ic.src != IPI_SRC_TRACEPOINT)
		die_usage("--ipi-source tracepoint: %s (run as root or with CAP_PERFMON and tracefs mounted, or use --ipi-source auto)",
			  ic.src_why);
	if (ic.mount_note[0])
		results_note(&res, "%s", ic.mount_note);
	c.o = &o;
	c.d = &d;
	c.t = &t;
	c.res = &res;
	c.ic = &ic;
	if (c.tool) {
		/*
		 * The tool writes its --json and its log into memory files
		 * that have no name: the victim inherits them and opens
		 * /proc/self/fd/N. Nothing is left in $TMPDIR, whatever ends
		 * the run (SIGKILL included).
		 */
		c.tool_json_fd = memfd_create("mbbench-victim.json", 0);
		c.tool_log_fd = memfd_create("mbbench-victim.log", 0);
		if (c.tool_json_fd < 0 || c.tool_log_fd < 0)
			die("--victim-cmd: memfd_create: %m");
	}
	results_note(&res, "IPI counts from %s%s%s", ipi_source_name(ic.src),
		     ic.src_why[0] ? ": " : "", ic.src_why);
	if (ic.attr_why[0])
		results_note(&res, "mb_ipis (IPIs requested with a membarrier callback) not measured: %s", ic.attr_why);
	for (int i = 0; i < nrounds; i++)
		for (int k = 0; k < rounds[i].n; k++)
			if (rounds[i].s[k].role == ROLE_FOREIGN_RT && !rt_noted) {
				FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
				long us = -1;

				if (f) {
					if (fscanf(f, "%ld", &us) != 1)
						us = -1;
					fclose(f);
				}
				if (us >= 0)
					results_note(&res, "RT throttling is on (sched_rt_runtime_us=%ld): a busy-poll victim running past %.2f s in a second is stopped for the rest, which shows as a long gap in either phase",
						     us, (double)us / 1e6);
				rt_noted = 1;
			}
	results_note(&res, "ipis_per_barrier = (storm IPIs - baseline IPIs scaled to the storm's length) / barriers; the caller's CPU runs the callback itself and receives none");

	for (int mi = 0; mi < o.nmechs; mi++) {
		const struct mechanism *m = o.mechs[mi];
		char reason[256];

		if (mech_prepare(m, reason, sizeof(reason))) {
			for (int i = 0; i < nrounds; i++) {
				for (int k = 0; k < rounds[i].n; k++)
					disturb_skip_rows(&c, m, i, role_name(rounds[i].s[k].role),
							  rounds[i].s[k].cpu,
							  rounds[i].tool ? c.tool : "mbbench", reason);
				disturb_skip_rows(&c, m, i, "caller", d.caller_cpu, "mbbench", reason);
			}
			progress("disturb", ++point, o.nmechs, m->name);
			continue;
		}
		for (int i = 0; i < nrounds; i++) {
			if (rounds[i].tool)
				disturb_tool_round(&c, m, null_mech, i, &rounds[i]);
			else
				run_round(&c, m, null_mech, i, &rounds[i]);
		}
		if (m->teardown)
			m->teardown(m);
		progress("disturb", ++point, o.nmechs, m->name);
	}
	{
		struct ipisnap s;

		ipisnap_init(&s, c.ncpus);
		ipicount_read(&ic, &s);
		if (!s.have_tlb)
			results_note(&res, "tlb_shootdowns not measured: %s", ic.tlb_why);
		if (!s.have_idle)
			results_note(&res, "idle_entries not measured: %s", ic.idle_why);
		ipisnap_free(&s);
	}
	results_emit(&res);
	ipicount_close(&ic);
	if (c.tool) {
		close(c.tool_json_fd);
		close(c.tool_log_fd);
	}
	for (int i = 0; i < c.tool_argc; i++)
		free(c.tool_argv[i]);
	free(c.tool_argv);
	free((void *)c.tool);
	free(rounds);
	table_free(&t);
	opts_free(&o);
	return 0;
}
