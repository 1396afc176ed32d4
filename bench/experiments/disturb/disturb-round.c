// SPDX-License-Identifier: MIT
/*
 * disturb's round of our own victims: the foreign ones forked, the
 * caller's team started, then the baseline (the paced loop without a
 * barrier) and the storm, each in DISTURB_NSLICE slices, and both phases'
 * rows for every slot. Every per-slot array is as long as the round.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "disturb.h"
#include "util.h"
#include "victim.h"

#define NSLICE DISTURB_NSLICE
#define WARMUP_S 0.1

/* What a round keeps per slot: rd->n of them, on the heap. */
struct slot_run {
	int selfidx;		/* the thread's index in the caller's team, or -1 */
	int failed;		/* the foreign victim did not start: reason says why */
	char reason[256];
	pid_t vpid;		/* the victim's process, for its CPU time */
	struct victim *vk;	/* the victim whose histogram is read, or NULL */
	struct pct_batches vb[2];	/* its slices' percentiles, per phase */
	struct hist prev;	/* its histogram at the last slice's edge */
	uint64_t rt0;		/* the slot's CPU time at the phase's start */
};

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

/*
 * One phase of a round in NSLICE slices of the paced loop: the caller's
 * calls into caller_h (when given) with one batch of percentiles per slice
 * in *cb, and each foreign victim's new samples since the last slice as one
 * batch in sr[k].vb[p] (sr[k].vk NULL: no victim histogram in slot k).
 */
static void sliced_phase(struct run_ctx *c, const struct mechanism *m, double dur,
			 struct hist *caller_h, struct pct_batches *cb, struct phase_data *pd,
			 int n, struct slot_run *sr, int p)
{
	const int ph = p ? VPH_STORM : VPH_BASELINE;
	struct hist slice, snap;
	struct measure *me = &pd->me;
	uint64_t t0;

	memset(me, 0, sizeof(*me));
	for (int i = 0; i <= NSLICE; i++)
		ipisnap_init(&pd->sl[i], c->ncpus);
	pd->nsl = 0;
	hist_init(&slice);
	hist_init(&snap);
	for (int k = 0; k < n; k++)
		if (sr[k].vk) {	/* only slots with a victim's histogram */
			hist_init(&sr[k].prev);
			hist_merge(&sr[k].prev, &sr[k].vk->sh->h[ph]);
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
			if (!sr[k].vk)
				continue;
			hist_reset(&snap);	/* one reading of the growing histogram */
			hist_merge(&snap, &sr[k].vk->sh->h[ph]);
			hist_since(&slice, &snap, &sr[k].prev);
			pct_batches_add(&sr[k].vb[p], &slice);
			hist_reset(&sr[k].prev);
			hist_merge(&sr[k].prev, &snap);
		}
		if (me->err)
			break;
	}
	for (int k = 0; k < n; k++)
		if (sr[k].vk)
			hist_free(&sr[k].prev);
	hist_free(&slice);
	hist_free(&snap);
}

/* A round of our own victims: baseline then storm, rows for every slot. */
void disturb_own_round(struct run_ctx *c, const struct mechanism *m,
		      const struct mechanism *null_mech, int ri, const struct round *rd)
{
	const struct opts *o = c->o;
	struct victim_group g = { 0 };
	struct team team;
	struct team_cfg cfg = { 0 };
	struct placement pl = { 0 };
	enum behaviour *behs = xcalloc((size_t)rd->n, sizeof(*behs));
	struct slot_run *sr = xcalloc((size_t)rd->n, sizeof(*sr));
	int nself = 0;
	struct phase_data pd[2];
	struct hist caller_h;
	struct pct_batches cb;
	struct watchdog *wd;
	const double dur = o->duration_s;
	char err[256];
	uint64_t t0;

	memset(pd, 0, sizeof(pd));
	/* Fork the foreign victims while this process has one thread. */
	for (int k = 0; k < rd->n; k++) {
		sr[k].selfidx = -1;
		if (role_is_foreign(rd->s[k].role) &&
		    victim_start(&g, rd->s[k].role, rd->s[k].cpu, c->d->rt_prio,
				 WARMUP_S + 2 * dur + 5, sr[k].reason, sizeof(sr[k].reason)))
			sr[k].failed = 1;
		if (rd->s[k].role == ROLE_SELF_SPIN || rd->s[k].role == ROLE_SELF_SLEEP) {
			behs[nself] = rd->s[k].role == ROLE_SELF_SPIN ? BEH_SPIN : BEH_SLEEP;
			sr[k].selfidx = nself++;
		}
	}
	wd = watchdog_arm(&g, WARMUP_S + 2 * dur + 10, err, sizeof(err));
	pl.n = nself + 1;
	pl.pu_os = xcalloc((size_t)pl.n, sizeof(int));
	pl.pu_logical = xcalloc((size_t)pl.n, sizeof(int));
	pl.pu_os[0] = c->d->caller_cpu;
	for (int k = 0; k < rd->n; k++)
		if (sr[k].selfidx >= 0)
			pl.pu_os[sr[k].selfidx + 1] = rd->s[k].cpu;
	cfg.topo = o->topo;
	cfg.pl = &pl;
	cfg.beh = BEH_SPIN;
	cfg.behs = behs;
	cfg.other_process = 0;
	cfg.mech = m;
	if (!wd || team_start(&team, &cfg, err, sizeof(err))) {
		if (wd)
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
			pct_batches_init(&sr[k].vb[p], disturb_pcts, DISTURB_NPCT, NSLICE);
		for (int i = 0; i < g.nv; i++)
			if (!sr[k].failed && g.v[i].cpu == rd->s[k].cpu && g.v[i].sh &&
			    (rd->s[k].role == ROLE_FOREIGN_RT || rd->s[k].role == ROLE_FOREIGN_SLEEP))
				sr[k].vk = &g.v[i];
	}
	harness_warmup(m, 0.02);
	usleep((useconds_t)(WARMUP_S * 1e6));
	for (int k = 0; k < rd->n; k++)
		for (int i = 0; i < g.nv; i++)
			if (g.v[i].cpu == rd->s[k].cpu && g.v[i].sh)
				sr[k].vpid = g.v[i].pid;
	for (int p = 0; p < 2; p++) {
		victim_phase(&g, p ? VPH_STORM : VPH_BASELINE);
		pd[p].acks = xcalloc((size_t)(nself + 1), sizeof(unsigned long));
		for (int i = 0; i < nself; i++)
			pd[p].acks[i] = mech_signal_acks(i);
		pd[p].oncpu = xcalloc((size_t)rd->n, sizeof(double));
		for (int k = 0; k < rd->n; k++)
			sr[k].rt0 = slot_runtime(&team, sr[k].selfidx, sr[k].vpid);
		disturb_snap_begin(c, &pd[p], &t0);
		/* Baseline: the same paced loop without a barrier. */
		sliced_phase(c, p ? m : null_mech, dur, p ? &caller_h : NULL, &cb, &pd[p],
			     rd->n, sr, p);
		disturb_snap_end(c, &pd[p], t0);
		for (int k = 0; k < rd->n; k++) {
			uint64_t rt0 = sr[k].rt0, rt1 = slot_runtime(&team, sr[k].selfidx, sr[k].vpid);

			/*
			 * A share: the runtime is read a moment after the phase's
			 * clock stops, so a thread that never left its CPU reads
			 * a little over 1 (1.010 was seen); it is at most 1.
			 */
			pd[p].oncpu[k] = rt0 && rt1 ? fmin(1.0, (double)(rt1 - rt0) / 1e9 / pd[p].elapsed_s) : NAN;
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

			if (sr[k].failed) {
				if (!p)
					disturb_skip_rows(c, m, ri, role_name(role), cpu, "mbbench", sr[k].reason);
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
			if (sr[k].selfidx >= 0 && !strcmp(m->name, "signal"))
				table_set_int(c->t, r, "signals", (long long)pd[p].acks[sr[k].selfidx]);
			if (role_is_foreign(role) && v)
				table_set_str(c->t, r, "policy", v->sh->policy);
			else if (role != ROLE_IDLE)
				table_set_str(c->t, r, "policy", "SCHED_OTHER");
			if ((role == ROLE_FOREIGN_RT || role == ROLE_FOREIGN_SLEEP) && v) {
				const struct hist *vh = &v->sh->h[p ? VPH_STORM : VPH_BASELINE];

				disturb_hist_cells(c->t, r, vh, &sr[k].vb[p]);
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
			pct_batches_free(&sr[k].vb[p]);
	disturb_phase_free(&pd[0]);
	disturb_phase_free(&pd[1]);
out:
	for (int i = 0; i < g.nv; i++)
		victim_shared_free(g.v[i].sh);
	free(g.v);
	free(pl.pu_os);
	free(pl.pu_logical);
	free(behs);
	free(sr);
}
