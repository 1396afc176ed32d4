/* SPDX-License-Identifier: MIT */
/*
 * Loading a synthetic topology from fuzz input the way mbbench does
 * (MBBENCH_SYNTHETIC through topo_load), refusing descriptions whose
 * object count would only measure the allocator.
 */
#ifndef MBBENCH_FUZZ_SYNTHETIC_H
#define MBBENCH_FUZZ_SYNTHETIC_H

#include <ctype.h>
#include <errno.h>

#include "topo.h"

#define FUZZ_MAX_PUS 1024

/*
 * libhwloc 2.9 leaks a little when it refuses some descriptions (" [numa]");
 * that is hwloc's to fix, and mbbench exits right after. Leaks of our code
 * still count.
 */
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
	return "leak:libhwloc.so\n";
}

/*
 * Is the product of the arities (numbers after ':', a blank, ']' or the start)
 * small? Numbers in attributes (indexes=, memory=) are left free.
 */
static inline int synthetic_small(const char *s)
{
	unsigned long long prod = 1;

	if (strlen(s) > 512)
		return 0;
	for (const char *p = s; *p; p++) {
		unsigned long long v, v10;
		char *end, *end10;

		if (!isdigit((unsigned char)*p) || (p > s && isalnum((unsigned char)p[-1])))
			continue;
		if (p > s && !strchr(": \t]", p[-1]))
			continue;
		/*
		 * hwloc reads "0x8672" as hex but "00015428" as decimal: take
		 * the larger of both readings.
		 */
		errno = 0;
		v = strtoull(p, &end, 0);
		v10 = strtoull(p, &end10, 10);
		if (errno || v > FUZZ_MAX_PUS || v10 > FUZZ_MAX_PUS)
			return 0;
		if (v10 > v)
			v = v10;
		prod *= v ? v : 1;
		if (prod > FUZZ_MAX_PUS)
			return 0;
		p = (end10 > end ? end10 : end) - 1;
	}
	return 1;
}

/* 0 with *topo loaded, or -1 (refused here or by topo_load). */
static inline int synthetic_load(const char *desc, hwloc_topology_t *topo)
{
	char err[256];
	int rc;

	if (!*desc || !synthetic_small(desc))
		return -1;
	unsetenv("HWLOC_SYNTHETIC");
	unsetenv("HWLOC_XMLFILE");
	if (setenv("MBBENCH_SYNTHETIC", desc, 1))
		return -1;
	rc = topo_load(topo, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == -2 && err[0]);
		return -1;
	}
	return 0;
}

#endif
