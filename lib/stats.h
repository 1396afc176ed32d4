/* SPDX-License-Identifier: MIT */
/* Summary statistics over repeats, and a log-bucketed latency histogram. */
#ifndef MBBENCH_STATS_H
#define MBBENCH_STATS_H

#include <stdint.h>

struct summary {
	int n;
	double mean, stddev, ci95, cv, min, max;
};

/* Two-sided 95% Student t quantile for df degrees of freedom. */
double t_quantile_975(int df);
/* Sample stddev (n-1), 95% CI half-width, coefficient of variation. */
void summarize(const double *x, int n, struct summary *s);
/*
 * The --ci-target stopping rule, one for every experiment that repeats a
 * point: after the n repeats x[0..n), stop when there are at least `least`
 * (--repeat) and 3 of them and the 95% CI half-width is within target_pct%
 * of a positive mean. 0 (go on) when target_pct is 0: then exactly --repeat
 * are taken. The caller also stops at --max-repeat (repeats_cap in bench/).
 */
int ci_target_reached(const double *x, int n, int least, int target_pct);
/*
 * Wilson score 95% interval of a proportion k/n (n > 0): honest at k = 0,
 * where it gives [0, ~3.84/n] (the trials of a litmus test are its repeats).
 */
void wilson95(uint64_t k, uint64_t n, double *lo, double *hi);

/*
 * Histogram of nanosecond values: exact below 2^HIST_SUB_BITS, then
 * 2^HIST_SUB_BITS buckets per power of two, so a bucket is at most 1/128 of
 * its lower bound wide (< 0.8%); reported values are bucket midpoints clamped
 * to the observed min and max (error <= 0.4%).
 */
#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count, min, max;
	double sum;
	uint64_t *b;	/* HIST_BUCKETS counters */
};

void hist_init(struct hist *h);
void hist_free(struct hist *h);
void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* n samples of value v at once (histograms read from other tools). */
void hist_add_n(struct hist *h, uint64_t v, uint64_t n);
void hist_merge(struct hist *dst, const struct hist *src);
/*
 * dst = now - before, where both are readings of one growing histogram
 * (another process's, in shared memory, read while it adds): the count is
 * the buckets' sum and min/max the bounds of the outer non-empty buckets.
 */
void hist_since(struct hist *dst, const struct hist *now, const struct hist *before);
/* p in [0,100]; 0 when empty. */
double hist_percentile(const struct hist *h, double p);
unsigned hist_index(uint64_t v);
void hist_bucket_bounds(unsigned idx, uint64_t *lo, uint64_t *hi);

/*
 * Percentiles of batches (the repeats of a latency point, the slices of a
 * disturb phase): the spread of each batch's percentiles gives the pooled
 * percentiles' 95% CIs (the batch-percentile method).
 */
struct pct_batches {
	int n, cap, npct;
	const double *pcts;	/* npct percentiles, in [0,100] */
	double *v;		/* v[batch * npct + k] */
};

void pct_batches_init(struct pct_batches *b, const double *pcts, int npct, int cap);
void pct_batches_free(struct pct_batches *b);
void pct_batches_reset(struct pct_batches *b);
/* One batch; an empty histogram or a full set is not added. */
void pct_batches_add(struct pct_batches *b, const struct hist *h);
/* The CI half-width of percentile k, NAN below two batches. */
double pct_batches_ci95(const struct pct_batches *b, int k);

#endif
