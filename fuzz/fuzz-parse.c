// SPDX-License-Identifier: MIT
/*
 * The number, duration and list parsers of lib/util.c (parse_u64,
 * parse_seconds, parse_int_list, parse_int_set): every option value goes
 * through them.
 * The first byte picks the parser and the bounds, the rest is the text.
 * A value returned must lie within the bounds asked for.
 */
#include "config.h"

#include <limits.h>
#include <math.h>

#include "fuzz.h"
#include "util.h"

static const struct {
	uint64_t min, max;
} u64_bounds[] = {
	{ 0, UINT64_MAX }, { 1, 10000000000ull }, { 1, 100000 }, { 0, 4095 },
	{ 0, 1u << 20 }, { 2, 100000 }, { 0, 50 },
};

static const struct {
	double min, max;
} sec_bounds[] = {
	{ 1e-3, 86400.0 }, { 0, 1e300 }, { 0, 0 }, { 1e-9, 1.0 },
};

static const struct {
	int min, max;
} list_bounds[] = {
	{ 1, 4096 }, { 0, 4095 }, { 0, 1 << 20 }, { 0, INT_MAX }, { 5, 5 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned sel;
	char *s;

	if (size < 1)
		return 0;
	sel = data[0];
	s = fuzz_str(data + 1, size - 1);
	switch (sel % 3) {
	case 0: {
		unsigned b = (sel / 3) % N(u64_bounds);
		uint64_t v = 0;

		if (!parse_u64(s, u64_bounds[b].min, u64_bounds[b].max, &v))
			FUZZ_CHECK(v >= u64_bounds[b].min && v <= u64_bounds[b].max);
		break;
	}
	case 1: {
		unsigned b = (sel / 3) % N(sec_bounds);
		double v = 0;

		if (!parse_seconds(s, sec_bounds[b].min, sec_bounds[b].max, &v))
			FUZZ_CHECK(isfinite(v) && v >= sec_bounds[b].min &&
				   v <= sec_bounds[b].max);
		break;
	}
	default: {
		unsigned b = (sel / 3) % N(list_bounds);
		int *v = NULL, n = -1, listed = 0;

		if (!parse_int_list(s, list_bounds[b].min, list_bounds[b].max, &v, &n)) {
			FUZZ_CHECK(v && n >= 1);
			for (int i = 0; i < n; i++)
				FUZZ_CHECK(v[i] >= list_bounds[b].min &&
					   v[i] <= list_bounds[b].max);
			free(v);
			listed = 1;
		}
		/* The same text as a set: accepted when the list is, its
		 * repeats merged, each value once. */
		int *w = NULL, m = -1;
		int rc = parse_int_set(s, list_bounds[b].min, list_bounds[b].max, &w, &m);

		FUZZ_CHECK(!listed || !rc);
		if (!rc) {
			FUZZ_CHECK(w && m >= 1 && (!listed || m <= n));
			qsort(w, (size_t)m, sizeof(*w), cmp_int);
			for (int i = 1; i < m; i++)
				FUZZ_CHECK(w[i] != w[i - 1]);
			free(w);
		}
		break;
	}
	}
	free(s);
	return 0;
}
