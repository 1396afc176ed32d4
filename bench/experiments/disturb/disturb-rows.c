// SPDX-License-Identifier: MIT
/*
 * disturb's rows: one per (round, role, CPU, phase), with the counts a
 * phase saw on its CPU and their per-barrier figures against the baseline,
 * the percentiles of its samples, and the 95% CIs both take from the
 * phase's slices. Shared by the round of our own victims (disturb-round.c)
 * and that of a real rt-tests tool (disturb-tool.c); it calls neither.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "disturb.h"
#include "util.h"

#define NSLICE DISTURB_NSLICE

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
	free(pd->oncpu);
	for (int i = 0; i <= NSLICE; i++)
		ipisnap_free(&pd->sl[i]);
}
