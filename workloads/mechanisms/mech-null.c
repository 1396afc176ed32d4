// SPDX-License-Identifier: MIT
/*
 * An empty barrier: the cost of the harness's own call path, subtracted by
 * the reader (and compared with a bare loop by `mbbench calls`).
 */
#include "config.h"

#include "mech.h"

static int __attribute__((noinline)) null_barrier(const struct mechanism *m)
{
	(void)m;
	__asm__ __volatile__("" ::: "memory");
	return 0;
}

const struct mechanism mech_null = {
	.name = "null",
	.caps = MC_FENCE_LIKE,
	.summary = "empty call: harness overhead",
	.barrier = null_barrier,
};
