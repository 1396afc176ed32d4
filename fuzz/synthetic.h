/* SPDX-License-Identifier: MIT */
/*
 * Loading a synthetic topology from fuzz input the way mbbench does
 * (MBBENCH_SYNTHETIC through topo_load), refusing descriptions whose
 * object count would only measure the allocator.
 */
#ifndef MBBENCH_FUZZ_SYNTHETIC_H
#define MBBENCH_FUZZ_SYNTHETIC_H


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
 * Small enough that a run measures placement, not the allocator: the bound
 * mbbench itself applies (topo_synthetic_check), at fuzzing size.
 */
static inline int synthetic_small(const char *s)
{
	const char *at;

	return strlen(s) <= 512 && !topo_synthetic_check(s, FUZZ_MAX_PUS, FUZZ_MAX_PUS, &at);
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
