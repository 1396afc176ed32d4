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
/* p in [0,100]; 0 when empty. */
double hist_percentile(const struct hist *h, double p);
unsigned hist_index(uint64_t v);
void hist_bucket_bounds(unsigned idx, uint64_t *lo, uint64_t *hi);

#endif
