// SPDX-License-Identifier: MIT
/*
 * A local full fence. Not a process-wide barrier: it is what every reader
 * pays in the smp_mb scheme, and the cost that membarrier moves to the
 * writer. Measured next to the others it shows the trade.
 */
#include "config.h"

#include "barrier.h"
#include "mech.h"

static int fence_barrier(const struct mechanism *m)
{
	(void)m;
	smp_mb_full();
	return 0;
}

const struct mechanism mech_fence = {
	.name = "fence",
	.caps = MC_FENCE_LIKE,
	.summary = "local full fence only: the reader-side cost in the smp_mb scheme",
	.barrier = fence_barrier,
};
