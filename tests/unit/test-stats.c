// SPDX-License-Identifier: MIT
/* Statistics against known vectors; histogram percentiles and error bound. */
#include "config.h"

#include <math.h>

#include "stats.h"
#include "tap.h"

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b);
}

int main(void)
{
	/* x = 2,4,4,4,5,5,7,9: mean 5, sample stddev sqrt(32/7) = 2.13809. */
	double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double one[] = { 42 };
	struct summary s;
	struct hist h;
	int bad;

	plan(21);
	summarize(x, 8, &s);
	ok(s.n == 8 && s.mean == 5.0, "mean of known vector is 5 (got %g)", s.mean);
	ok(near(s.stddev, 2.138090, 1e-6), "sample stddev 2.13809 (got %.6f)", s.stddev);
	/* CI half-width: t(0.975, 7) = 2.365 * s / sqrt(8) = 1.78768. */
	ok(near(s.ci95, 2.365 * 2.138090 / sqrt(8), 1e-6), "95%% CI half-width (got %.5f)", s.ci95);
	ok(near(s.cv, 2.138090 / 5, 1e-6), "CV = stddev/mean (got %.5f)", s.cv);
	ok(s.min == 2 && s.max == 9, "min and max");
	summarize(one, 1, &s);
	ok(s.mean == 42 && isnan(s.stddev) && isnan(s.ci95), "one sample: mean, no spread");
	ok(t_quantile_975(1) == 12.706 && t_quantile_975(1000) == 1.96,
	   "t quantiles at df=1 and the normal limit");

	hist_init(&h);
	for (uint64_t v = 1; v <= 1000; v++)
		hist_add(&h, v * 1000);	/* 1 us .. 1 ms uniformly */
	ok(h.count == 1000 && h.min == 1000 && h.max == 1000000, "histogram count/min/max");
	ok(near(hist_percentile(&h, 50), 500000, 0.008), "p50 of 1..1000 us within 0.8%% (got %.0f)",
	   hist_percentile(&h, 50));
	ok(near(hist_percentile(&h, 99), 990000, 0.008), "p99 within 0.8%% (got %.0f)",
	   hist_percentile(&h, 99));
	ok(hist_percentile(&h, 100) == 1000000 && hist_percentile(&h, 0) == 1000,
	   "p0/p100 are the exact min and max");
	ok(near(hist_percentile(&h, 99.9), 999000, 0.008), "p99.9 within 0.8%% (got %.0f)",
	   hist_percentile(&h, 99.9));

	/* Every value lands in a bucket whose bounds contain it, width <= 1/128. */
	bad = 0;
	for (uint64_t v = 1; v < (1ull << 40); v = v * 3 / 2 + 1) {
		uint64_t lo, hi;

		hist_bucket_bounds(hist_index(v), &lo, &hi);
		if (v < lo || v > hi || (double)(hi - lo) > (double)lo / 128.0 + 1)
			bad++;
	}
	ok(!bad, "bucket bounds contain the value and are <= 1/128 wide (%d bad)", bad);
	{
		uint64_t lo, hi;

		hist_bucket_bounds(hist_index(UINT64_MAX), &lo, &hi);
		ok(hist_index(UINT64_MAX) < HIST_BUCKETS && hi == UINT64_MAX,
		   "largest value has a bucket");
	}
	hist_reset(&h);
	ok(h.count == 0 && hist_percentile(&h, 50) == 0, "reset histogram is empty");
	hist_free(&h);
	{
		double lo, hi;

		/* Wilson score interval: 10 of 100 is [0.05523, 0.17437]. */
		wilson95(10, 100, &lo, &hi);
		ok(near(lo, 0.0552291, 1e-5) && near(hi, 0.1743657, 1e-5),
		   "Wilson 95%% interval of 10/100 (got [%.6f, %.6f])", lo, hi);
		/* None seen in 1000: [0, z^2/(n + z^2)] = [0, 0.0038268]. */
		wilson95(0, 1000, &lo, &hi);
		ok(lo == 0 && near(hi, 0.0038268, 1e-4), "Wilson 95%% interval of 0/1000 (got [%g, %.7f])", lo, hi);
	}
	{
		/* x's CI half-width is 35.8% of its mean: within 40, not 30. */
		double flat[] = { 100, 100, 100, 100 }, zero[] = { 0, 0, 0 };

		ok(ci_target_reached(x, 8, 3, 40) && !ci_target_reached(x, 8, 3, 30),
		   "--ci-target: stops when the CI is within the target, not before");
		ok(!ci_target_reached(flat, 2, 1, 50) && ci_target_reached(flat, 3, 1, 50),
		   "--ci-target: never before 3 repeats");
		ok(!ci_target_reached(flat, 3, 4, 50) && ci_target_reached(flat, 4, 4, 50),
		   "--ci-target: never before --repeat");
		ok(!ci_target_reached(flat, 4, 1, 0) && !ci_target_reached(zero, 3, 1, 50),
		   "--ci-target 0 (exactly --repeat) and a mean of 0 never stop early");
	}
	return done_testing();
}
