/* SPDX-License-Identifier: MIT */
/*
 * The few fields of the `--json=FILE` output of rt-tests 2.x (oslat,
 * cyclictest) that disturb compares with its own victims: per-thread
 * min/avg/max and the histogram, read with the JSON reader of jv.h.
 * rt-tests writes some keys with a stray colon ("cmdline:"); only the keys
 * read here matter, and those are plain.
 */
#ifndef MBBENCH_RTJSON_H
#define MBBENCH_RTJSON_H

#include <stddef.h>
#include <stdint.h>

#include "jv.h"
#include "stats.h"

struct rt_result {
	char tool[16];		/* "oslat" or "cyclictest" from cmdline */
	int cpu;
	double min_ns, avg_ns, max_ns;
	uint64_t samples;	/* histogram total (0 when it has none) */
	uint64_t overflow;	/* oslat: samples in its last, open-ended bucket;
				 * cyclictest: samples beyond its -h range */
};

/*
 * Read thread "0" of an rt-tests JSON file. When the file has a histogram
 * (oslat always; cyclictest with -h), its microsecond buckets are added to
 * h (values in ns). Returns 0, or -1 with err.
 */
int rtjson_read(const char *path, struct rt_result *r, struct hist *h,
		char *err, size_t len);
/* The same from the file's text; path only names it in err. */
int rtjson_parse(const char *text, const char *path, struct rt_result *r,
		 struct hist *h, char *err, size_t len);

#endif
