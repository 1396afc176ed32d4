// SPDX-License-Identifier: MIT
/*
 * contend's serialization factor: in processes mode, the aggregate rate of
 * C callers in separate processes over the rate of one caller (C = 1) of
 * the same mechanism. 1 means the callers take turns (one kernel mutex
 * behind every call), C means they run side by side. Computed once every
 * point is measured, from the table's rows, so it is a ratio of the
 * aggregate means (the sweep's replicate merge recomputes it the same way
 * from the merged means).
 *
 * A factor only says something when each caller and each of its spinners
 * (the CPUs its barriers target) has a CPU of its own: on an oversubscribed
 * point (C = 1 or C) the callers also share CPUs with the scheduler's help,
 * and the factor is left empty with the reason in serialization_skip_reason.
 * So is it without spinners: membarrier returns before taking its mutex in
 * a process of one thread (mm_users == 1), so nothing would serialize.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "contend.h"

static int same(const struct table *t, int a, int b, const char *col)
{
	const char *x = table_get(t, a, col), *y = table_get(t, b, col);

	return x && y && !strcmp(x, y);
}

static int is_ok(const struct table *t, int r)
{
	const char *s = table_get(t, r, "status");

	return s && !strcmp(s, "ok");
}

static void __attribute__((format(printf, 3, 4)))
no_factor(struct table *t, int r, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	table_set_str(t, r, "serialization_skip_reason", why);
}

/* Threads in all at row r: C callers, each with its spinners. */
static int row_threads(const struct table *t, int r)
{
	int C = (int)table_get_num(t, r, "callers");

	return C * (1 + (int)table_get_num(t, r, "spinners"));
}

void contend_serialization(struct table *t, int npus)
{
	for (int r = 0; r < t->nrows; r++) {
		const char *mode = table_get(t, r, "mode");
		int C = (int)table_get_num(t, r, "callers"), one = -1;
		double a, h, a1, h1, f;

		if (!mode || strcmp(mode, "processes") || !is_ok(t, r))
			continue;
		for (int k = 0; k < t->nrows; k++)
			if (same(t, k, r, "mechanism") && same(t, k, r, "mode") &&
			    table_get_num(t, k, "callers") == 1)
				one = k;
		if (one < 0) {
			no_factor(t, r, "no C=1 point of this mechanism to divide by (add 1 to --callers)");
			continue;
		}
		if (!is_ok(t, one)) {
			no_factor(t, r, "the C=1 point was skipped");
			continue;
		}
		if (table_get_num(t, r, "spinners") == 0) {
			no_factor(t, r, "no spinners: a barrier has no CPU to target, and the kernel returns before its mutex in a one-thread process (give --spinners 1 or more)");
			continue;
		}
		if (table_get_num(t, r, "oversubscribed") == 1) {
			no_factor(t, r, "oversubscribed: %d threads (callers and the spinners their barriers target) on %d CPUs; the factor needs a CPU for each (a host of %d CPUs)",
				  row_threads(t, r), npus, row_threads(t, r));
			continue;
		}
		if (table_get_num(t, one, "oversubscribed") == 1) {
			no_factor(t, r, "the C=1 point is oversubscribed: %d threads on %d CPUs; the factor needs a CPU for each (a host of %d CPUs)",
				  row_threads(t, one), npus, row_threads(t, one));
			continue;
		}
		a = table_get_num(t, r, "aggregate_calls_per_s");
		a1 = table_get_num(t, one, "aggregate_calls_per_s");
		if (!(a > 0) || !(a1 > 0))
			continue;
		f = C == 1 ? 1 : a / a1;
		table_set_num(t, r, "serialization_factor", f);
		if (C == 1)
			continue;
		/* The ratio's half-width from both relative half-widths (first
		 * order; the two points' repeats are independent). */
		h = table_get_num(t, r, "aggregate_calls_per_s_ci95");
		h1 = table_get_num(t, one, "aggregate_calls_per_s_ci95");
		if (!isnan(h) && !isnan(h1))
			table_set_num(t, r, "serialization_factor_ci95",
				      f * sqrt((h / a) * (h / a) + (h1 / a1) * (h1 / a1)));
	}
}
