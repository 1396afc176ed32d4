// SPDX-License-Identifier: MIT
/*
 * calls: barrier calls per second with one caller and T-1 other threads,
 * per mechanism and T. The seed's v5 table (10,000,000 expedited calls,
 * T = 1..7 busy-looping threads, 2-3 us per call on a Xeon E5405) is this
 * experiment on that machine.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results.h"
#include "util.h"

static const struct col calls_cols[] = {
	{ "mechanism", COL_STR },
	{ "threads", COL_INT },
	{ "behaviour", COL_STR },
	{ "scope", COL_STR },
	{ "placement", COL_STR },
	{ "cpus", COL_STR },
	{ "oversubscribed", COL_INT },
	{ "repeats", COL_INT },
	{ "calls_per_repeat", COL_NUM },
	{ "ns_per_call", COL_NUM },
	{ "ns_per_call_stddev", COL_NUM },
	{ "ns_per_call_ci95", COL_NUM },
	{ "calls_per_s", COL_NUM },
	{ "calls_per_s_ci95", COL_NUM },
	{ "cv", COL_NUM },
	{ "status", COL_STR },
	{ "skip_reason", COL_STR },
};

static int skip_row(struct table *t, const struct opts *o,
		    const struct mechanism *m, int threads, const char *reason)
{
	int r = table_add_row(t);

	table_set_str(t, r, "mechanism", m->name);
	table_set_int(t, r, "threads", threads);
	table_set_str(t, r, "behaviour", behaviour_name(o->beh));
	table_set_str(t, r, "scope", o->other_process ? "other-process" : "same-process");
	table_set_str(t, r, "placement", o->placement);
	table_set_str(t, r, "status", "skipped");
	table_set_str(t, r, "skip_reason", reason);
	return r;
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

int exp_calls_main(int argc, char **argv)
{
	struct exp_spec spec = {
		.name = "calls",
		.synopsis = "Barrier calls per second: one caller, T-1 other threads running --behaviour.",
		.common = CO_ALL,
		.def_mech = "all",
		.def_duration_s = 0.5,
		.def_repeat = 3,
	};
	struct opts o;
	struct table t;
	struct results res;
	int npoints, point = 0, ran_null = 0;
	const struct mechanism *null_mech = NULL;

	opts_parse(argc, argv, &spec, &o);
	opts_apply_membind(&o);
	table_init(&t, calls_cols, (int)(sizeof(calls_cols) / sizeof(calls_cols[0])));
	results_begin(&res, &o, &t);
	npoints = o.nmechs * o.nthreads;

	for (int mi = 0; mi < o.nmechs; mi++) {
		const struct mechanism *m = o.mechs[mi];
		char reason[256];

		if (mech_prepare(m, reason, sizeof(reason))) {
			for (int ti = 0; ti < o.nthreads; ti++) {
				skip_row(&t, &o, m, o.threads[ti], reason);
				progress("calls", ++point, npoints, m->name);
			}
			continue;
		}
		for (int ti = 0; ti < o.nthreads; ti++) {
			int T = o.threads[ti], row;
			struct team team;
			struct placement pl;
			double *ns = xcalloc((size_t)o.repeat, sizeof(double));
			double *cps = xcalloc((size_t)o.repeat, sizeof(double));
			double calls_sum = 0;
			struct summary s_ns, s_cps;
			char *cpus;
			int err = 0;

			progress("calls", ++point, npoints, m->name);
			if (team_for(&team, &o, m, T, &pl, reason, sizeof(reason))) {
				skip_row(&t, &o, m, T, reason);
				free(ns);
				free(cps);
				continue;
			}
			err = harness_warmup(m, o.iterations ? 0.02 : o.duration_s / 10);
			for (int r = 0; r < o.repeat && !err; r++) {
				struct measure me;

				harness_measure(m, o.iterations, o.duration_s, NULL, &me);
				err = me.err;
				if (!me.calls)
					break;
				ns[r] = (double)me.ns / (double)me.calls;
				cps[r] = 1e9 / ns[r];
				calls_sum += (double)me.calls;
			}
			team_stop(&team);
			cpus = placement_cpus_str(&pl, 0, pl.n);
			if (err) {
				snprintf(reason, sizeof(reason), "barrier failed: %s",
					 strerror(-err));
				row = skip_row(&t, &o, m, T, reason);
				table_set_str(&t, row, "cpus", cpus);
			} else {
				summarize(ns, o.repeat, &s_ns);
				summarize(cps, o.repeat, &s_cps);
				row = skip_row(&t, &o, m, T, NULL);
				table_set_str(&t, row, "status", "ok");
				table_set_str(&t, row, "cpus", cpus);
				table_set_int(&t, row, "oversubscribed", pl.oversubscribed);
				table_set_int(&t, row, "repeats", o.repeat);
				table_set_num(&t, row, "calls_per_repeat", calls_sum / o.repeat);
				table_set_num(&t, row, "ns_per_call", s_ns.mean);
				table_set_num(&t, row, "ns_per_call_stddev", s_ns.stddev);
				table_set_num(&t, row, "ns_per_call_ci95", s_ns.ci95);
				table_set_num(&t, row, "calls_per_s", s_cps.mean);
				table_set_num(&t, row, "calls_per_s_ci95", s_cps.ci95);
				table_set_num(&t, row, "cv", s_ns.cv);
				if (s_ns.cv > 0.10)
					results_note(&res, "%s T=%d: CV %.0f%% is high; more --repeat or a quieter host", m->name, T, s_ns.cv * 100);
				if (pl.oversubscribed)
					results_note(&res, "%s T=%d: oversubscribed (%d threads on %d CPUs): numbers include scheduling", m->name, T, T, topo_npus(o.topo));
				if (!strcmp(m->name, "null"))
					null_mech = m;
			}
			free(cpus);
			placement_free(&pl);
			free(ns);
			free(cps);
		}
		if (m->teardown)
			m->teardown(m);
	}
	if (null_mech && !ran_null)
		overhead_check(&res, &o, null_mech);
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return 0;
}
