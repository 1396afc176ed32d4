// SPDX-License-Identifier: MIT
/* Repeat statistics and the latency histogram. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

double t_quantile_975(int df)
{
	/* Student t, 0.975 quantile, df = 1..30; then the normal limit. */
	static const double t[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262,	2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110,	2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060,	2.056, 2.052, 2.048, 2.045, 2.042,
	};

	if (df < 1)
		return NAN;
	if (df <= 30)
		return t[df - 1];
	if (df <= 60)
		return 2.000 + (2.042 - 2.000) * (60 - df) / 30.0;
	if (df <= 120)
		return 1.980 + (2.000 - 1.980) * (120 - df) / 60.0;
	return 1.960;
}

void summarize(const double *x, int n, struct summary *s)
{
	double sum = 0, ss = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n <= 0) {
		s->mean = s->stddev = s->ci95 = s->cv = NAN;
		return;
	}
	s->min = s->max = x[0];
	for (int i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}
	s->mean = sum / n;
	if (n < 2) {
		s->stddev = s->ci95 = s->cv = NAN;
		return;
	}
	for (int i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->stddev = sqrt(ss / (n - 1));
	s->ci95 = t_quantile_975(n - 1) * s->stddev / sqrt(n);
	s->cv = s->mean != 0 ? s->stddev / fabs(s->mean) : NAN;
}

int ci_target_reached(const double *x, int n, int least, int target_pct)
{
	struct summary s;

	if (target_pct <= 0 || n < least || n < 3)
		return 0;
	summarize(x, n, &s);
	return s.mean > 0 && s.ci95 <= s.mean * target_pct / 100.0;
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->b = xcalloc(HIST_BUCKETS, sizeof(*h->b));
	h->min = UINT64_MAX;
}

void hist_free(struct hist *h)
{
	free(h->b);
	h->b = NULL;
}

void hist_reset(struct hist *h)
{
	memset(h->b, 0, HIST_BUCKETS * sizeof(*h->b));
	h->count = 0;
	h->sum = 0;
	h->max = 0;
	h->min = UINT64_MAX;
}

unsigned hist_index(uint64_t v)
{
	unsigned e;

	if (v < HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);	/* e >= HIST_SUB_BITS */
	return (e - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

void hist_bucket_bounds(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned grp = idx / HIST_SUB, sub = idx % HIST_SUB;

	if (grp == 0) {
		*lo = sub;
		*hi = sub;
		return;
	}
	{
		unsigned e = grp + HIST_SUB_BITS - 1;
		uint64_t width = 1ull << (e - HIST_SUB_BITS);

		*lo = (1ull << e) + (uint64_t)sub * width;
		*hi = *lo + width - 1;
	}
}

void hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	h->count++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_add_n(struct hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	h->b[hist_index(v)] += n;
	h->count += n;
	h->sum += (double)v * (double)n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->count && src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

void hist_since(struct hist *dst, const struct hist *now, const struct hist *before)
{
	uint64_t lo, hi;
	int first = -1, last = -1;

	hist_reset(dst);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t a = now->b[i], z = before->b[i];

		dst->b[i] = a > z ? a - z : 0;
		if (!dst->b[i])
			continue;
		dst->count += dst->b[i];
		if (first < 0)
			first = (int)i;
		last = (int)i;
	}
	if (!dst->count)
		return;
	dst->sum = now->sum > before->sum ? now->sum - before->sum : 0;
	hist_bucket_bounds((unsigned)first, &lo, &hi);
	dst->min = lo;
	hist_bucket_bounds((unsigned)last, &lo, &hi);
	dst->max = hi;
}

void pct_batches_init(struct pct_batches *b, const double *pcts, int npct, int cap)
{
	b->n = 0;
	b->cap = cap;
	b->npct = npct;
	b->pcts = pcts;
	b->v = xcalloc((size_t)(cap > 0 ? cap : 1) * (size_t)npct, sizeof(*b->v));
}

void pct_batches_free(struct pct_batches *b)
{
	free(b->v);
	b->v = NULL;
}

void pct_batches_reset(struct pct_batches *b)
{
	b->n = 0;
}

void pct_batches_add(struct pct_batches *b, const struct hist *h)
{
	if (!h->count || b->n >= b->cap)
		return;
	for (int k = 0; k < b->npct; k++)
		b->v[b->n * b->npct + k] = hist_percentile(h, b->pcts[k]);
	b->n++;
}

double pct_batches_ci95(const struct pct_batches *b, int k)
{
	struct summary s;
	double *x;

	if (b->n < 2)
		return NAN;
	x = xcalloc((size_t)b->n, sizeof(*x));
	for (int i = 0; i < b->n; i++)
		x[i] = b->v[i * b->npct + k];
	summarize(x, b->n, &s);
	free(x);
	return s.ci95;
}

double hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (p <= 0)
		return (double)h->min;
	if (p >= 100)
		return (double)h->max;
	/* Nearest-rank: the smallest value with at least p% at or below it. */
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t lo, hi;
			double mid;

			hist_bucket_bounds(i, &lo, &hi);
			mid = ((double)lo + (double)hi) / 2.0;
			if (mid < (double)h->min)
				mid = (double)h->min;
			if (mid > (double)h->max)
				mid = (double)h->max;
			return mid;
		}
	}
	return (double)h->max;
}

void wilson95(uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054, z2 = z * z;
	double nn = (double)n, ph = (double)k / nn;
	double centre = (ph + z2 / (2 * nn)) / (1 + z2 / nn);
	double half = z * sqrt(ph * (1 - ph) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);

	*lo = k ? centre - half : 0;
	*hi = k == n ? 1 : centre + half;
}
