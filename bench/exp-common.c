// SPDX-License-Identifier: MIT
/*
 * Probe/setup, team start and the point loop shared by calls and latency;
 * the adaptive repeats shared by calls and distance.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results.h"
#include "util.h"

int mech_prepare(const struct mechanism *m, char *reason, size_t len)
{
	if (mech_probe(m, reason, len))
		return -1;
	if (m->setup && m->setup(m, reason, len))
		return -1;
	return 0;
}

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
			err = ops->measure(ops->ctx, m, T);
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

	repeats_check(rp, o);
	rp->ns = xcalloc((size_t)cap, sizeof(double));
	rp->n = 0;
	rp->calls_sum = 0;
}

int repeats_measure(struct repeats *rp, const struct opts *o, const struct mechanism *m)
{
	int err = harness_warmup(m, o->iterations ? 0.02 : o->duration_s / 10);
	int cap = repeats_cap(rp, o);

	memset(rp->ns, 0, sizeof(double) * (size_t)cap);
	rp->calls_sum = 0;
	rp->n = 0;
	if (rp->ci_target && !err) {	/* a warm-up repeat, discarded */
		struct measure me;

		harness_measure(m, o->iterations, o->duration_s, NULL, &me);
		err = me.err;
	}
	for (int r = 0; r < cap && !err; r++) {
		struct measure me;

		harness_measure(m, o->iterations, o->duration_s, NULL, &me);
		err = me.err;
		if (!me.calls)
			break;
		rp->ns[r] = (double)me.ns / (double)me.calls;
		rp->calls_sum += (double)me.calls;
		rp->n = r + 1;
		if (ci_target_reached(rp->ns, rp->n, o->repeat, rp->ci_target))
			break;
	}
	return err;
}

void repeats_fill(const struct repeats *rp, struct table *t, int row, struct results *res,
		  const char *what, struct summary *s)
{
	int n = rp->n ? rp->n : 1;

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
	if (rp->ci_target)
		table_set_ci_target(t, row, res, rp->ci_target, s, n, what);
	if (s->cv > 0.10)
		results_note(res, "%s: CV %.0f%% is high; more --repeat or a quieter host", what, s->cv * 100);
}

void repeats_end(struct repeats *rp)
{
	free(rp->ns);
	rp->ns = NULL;
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
