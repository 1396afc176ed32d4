// SPDX-License-Identifier: MIT
/*
 * Probe/setup, team start and the point loop shared by calls and latency;
 * the adaptive repeats shared by calls and distance.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results.h"
#include "util.h"

int team_for(struct team *t, const struct opts *o, const struct mechanism *m,
	     int nthreads, struct placement *pl, char *reason, size_t len)
{
	struct team_cfg cfg = { 0 };

	if (placement_compute(o->topo, o->placement, nthreads, pl, reason, len))
		return -1;
	cfg.topo = o->topo;
	cfg.pl = pl;
	cfg.beh = o->beh;
	cfg.other_process = o->other_process;
	cfg.mech = m;
	if (team_start(t, &cfg, reason, len)) {
		placement_free(pl);
		return -1;
	}
	return 0;
}

static void skip(const struct point_ops *ops, const struct mechanism *m, int T,
		 const char *reason, const char *cpus)
{
	int r = ops->row(ops->ctx, m, T);

	row_skip(ops->t, r, reason);
	if (cpus)
		table_set_str(ops->t, r, "cpus", cpus);
}

void table_set_topology(struct table *t, int row, hwloc_topology_t topo,
			const struct placement *pl)
{
	struct relations r;
	char *lg = placement_logical_str(pl, 0, pl->n);

	placement_relations(topo, pl, 0, pl->n, &r);
	table_set_str(t, row, "cpus_logical", lg);
	/* A level the topology lacks is an empty cell, not -1. */
	if (r.same_core >= 0)
		table_set_int(t, row, "n_same_core", r.same_core);
	if (r.same_l3 >= 0)
		table_set_int(t, row, "n_same_l3", r.same_l3);
	if (r.same_package >= 0)
		table_set_int(t, row, "n_same_package", r.same_package);
	if (r.same_numa >= 0)
		table_set_int(t, row, "n_same_numa", r.same_numa);
	table_set_int(t, row, "n_remote", r.remote);
	free(lg);
}

void for_each_point(const struct opts *o, const struct point_ops *ops)
{
	int npoints = o->nmechs * o->nthreads, point = 0;

	for (int mi = 0; mi < o->nmechs; mi++) {
		const struct mechanism *m = o->mechs[mi];
		char reason[256];

		if (mech_prepare(m, reason, sizeof(reason))) {
			for (int ti = 0; ti < o->nthreads; ti++) {
				skip(ops, m, o->threads[ti], reason, NULL);
				progress(ops->exp, ++point, npoints, m->name);
			}
			continue;
		}
		for (int ti = 0; ti < o->nthreads; ti++) {
			int T = o->threads[ti], err;
			struct team team;
			struct placement pl;
			char *cpus;

			progress(ops->exp, ++point, npoints, m->name);
			if (team_for(&team, o, m, T, &pl, reason, sizeof(reason))) {
				skip(ops, m, T, reason, NULL);
				continue;
			}
			err = ops->measure(ops->ctx, m, T, &team);
			team_stop(&team);
			cpus = placement_cpus_str(&pl, 0, pl.n);
			if (err) {
				snprintf(reason, sizeof(reason), "barrier failed: %s",
					 strerror(-err));
				skip(ops, m, T, reason, cpus);
			} else {
				int r = ops->row(ops->ctx, m, T);

				table_set_str(ops->t, r, "status", "ok");
				table_set_str(ops->t, r, "cpus", cpus);
				table_set_topology(ops->t, r, o->topo, &pl);
				ops->fill(ops->ctx, r, m, T, &pl);
			}
			free(cpus);
			placement_free(&pl);
		}
		if (m->teardown)
			m->teardown(m);
	}
}

void repeats_check(const struct repeats *rp, const struct opts *o)
{
	if (rp->ci_target && rp->max_repeat < o->repeat)
		die("--max-repeat %d is below --repeat %d (raise --max-repeat)",
			  rp->max_repeat, o->repeat);
}

int repeats_cap(const struct repeats *rp, const struct opts *o)
{
	return rp->ci_target ? rp->max_repeat : o->repeat;
}

void repeats_begin(struct repeats *rp, const struct opts *o)
{
	int cap = o->repeat > rp->max_repeat ? o->repeat : rp->max_repeat;
	char why[256];

	/* Before any team thread: registering for the floor is cheap only
	 * while the process has one thread. Without it the floor cells stay
	 * empty (floor_ns says so). */
	(void)floor_prepare(why, sizeof(why));
	repeats_check(rp, o);
	rp->ns = xcalloc((size_t)cap, sizeof(double));
	rp->net = xcalloc((size_t)cap, sizeof(double));
	rp->n = 0;
	rp->calls_sum = 0;
}

int repeats_measure(struct repeats *rp, const struct opts *o, const struct mechanism *m,
		    const struct team *team)
{
	int err = harness_warmup(m, o->iterations ? 0.02 : o->duration_s / 10);
	int cap = repeats_cap(rp, o), attempts = work_attempts(cap);
	struct workdone w;

	memset(rp->ns, 0, sizeof(double) * (size_t)cap);
	rp->calls_sum = 0;
	rp->n = 0;
	rp->nnet = 0;
	rp->want = o->repeat;
	worksum_reset(&rp->work);
	if (rp->ci_target && !err) {	/* a warm-up repeat, discarded */
		struct measure me;

		harness_measure(m, o->iterations, o->duration_s, NULL, &me);
		err = me.err;
	}
	workdone_init(&w, team);
	for (int a = 0; a < attempts && rp->n < cap && !err; a++) {
		struct measure me;
		struct work k;
		char why[200] = "";
		int bad;

		workdone_begin(&w);
		harness_measure(m, o->iterations, o->duration_s, NULL, &me);
		workdone_end(&w, me.calls, &k);
		err = me.err;
		if (!me.calls)
			break;
		bad = work_degraded(&w, &k, why, sizeof(why));
		if (!bad && !err)	/* beside each good repeat */
			k.floor_ns = workdone_floor(&w, o->iterations ? 0.005 : o->duration_s / 4);
		worksum_add(&rp->work, &k, bad, why);
		if (bad && !o->keep_degraded)
			continue;
		if (!isnan(k.floor_ns))
			rp->net[rp->nnet++] = (double)me.ns / (double)me.calls - k.floor_ns;
		rp->ns[rp->n++] = (double)me.ns / (double)me.calls;
		rp->calls_sum += (double)me.calls;
		if (ci_target_reached(rp->ns, rp->n, o->repeat, rp->ci_target))
			break;
	}
	workdone_free(&w);
	return err;
}

int work_fill(struct table *t, int row, const struct worksum *s, int have, int want,
	      const char *what, struct results *res)
{
	if (s->n_ipis)
		table_set_num(t, row, "ipis_per_barrier", s->ipis / s->n_ipis);
	if (s->n_oncpu)
		table_set_num(t, row, "target_oncpu_share", s->oncpu / s->n_oncpu);
	if (s->n_steal)
		table_set_num(t, row, "steal_share", s->steal / s->n_steal);
	table_set_int(t, row, "repeats_degraded", s->degraded);
	if (s->n_floor && table_has(t, "floor_ns"))
		table_set_num(t, row, "floor_ns", s->floor / s->n_floor);
	if (s->degraded)
		table_set_str(t, row, "degraded_reason", s->why);
	if (have >= want)
		return 0;
	{
		char reason[320];

		snprintf(reason, sizeof(reason), "%d of %d repeats degraded, %d good of %d needed: %s",
			 s->degraded, s->degraded + s->good, s->good, want, s->why);
		table_set_str(t, row, "status", "degraded");
		table_set_str(t, row, "skip_reason", reason);
		results_note(res, "%s: degraded, no figure (%s)", what, reason);
	}
	return 1;
}

int repeats_fill(const struct repeats *rp, struct table *t, int row, struct results *res,
		 const char *what, struct summary *s)
{
	int n = rp->n ? rp->n : 1;

	memset(s, 0, sizeof(*s));
	if (work_fill(t, row, &rp->work, rp->n, rp->want, what, res))
		return 1;
	summarize(rp->ns, n, s);
	table_set_int(t, row, "repeats", n);
	table_set_num(t, row, "calls_per_repeat", rp->calls_sum / n);
	table_set_num(t, row, "ns_per_call", s->mean);
	table_set_num(t, row, "ns_per_call_stddev", s->stddev);
	table_set_num(t, row, "ns_per_call_ci95", s->ci95);
	table_set_num(t, row, "cv", s->cv);
	if (rp->n) {
		char *v = xmalloc((size_t)rp->n * 24 + 1);
		size_t len = 0;

		for (int i = 0; i < rp->n; i++)
			len += (size_t)sprintf(v + len, "%s%.1f", i ? ";" : "", rp->ns[i]);
		table_set_str(t, row, "ns_per_repeat", v);
		free(v);
	}
	if (rp->nnet) {
		struct summary sn;

		summarize(rp->net, rp->nnet, &sn);
		table_set_num(t, row, "ns_over_floor", sn.mean);
		if (rp->nnet > 1)
			table_set_num(t, row, "ns_over_floor_ci95", sn.ci95);
	}
	if (rp->ci_target)
		table_set_ci_target(t, row, res, rp->ci_target, s, n, what);
	if (s->cv > 0.10)
		results_note(res, "%s: CV %.0f%% is high; more --repeat or a quieter host", what, s->cv * 100);
	return 0;
}

void repeats_end(struct repeats *rp)
{
	free(rp->ns);
	free(rp->net);
	rp->ns = rp->net = NULL;
}

void table_set_ci_target(struct table *t, int row, struct results *res, int target,
			 const struct summary *s, int nrep, const char *what)
{
	double got;

	if (s->mean <= 0)
		return;
	got = 100.0 * s->ci95 / s->mean;
	table_set_num(t, row, "ci_target_pct", target);
	table_set_num(t, row, "ci_achieved_pct", got);
	table_set_int(t, row, "ci_target_met", got <= target);
	if (got > target)
		results_note(res, "%s: 95%% CI %.1f%% of the mean after %d repeats, above the %d%% target (--max-repeat reached)",
			     what, got, nrep, target);
}
