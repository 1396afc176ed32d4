// SPDX-License-Identifier: MIT
/*
 * The 2010 sys_membarrier() designs, as extra membarrier commands that exist
 * only on a kernel carrying the kernel-patch/ series. They are measured
 * beside the mainline commands on that kernel; elsewhere they are reported
 * unavailable with the reason, never silently dropped.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "mech.h"
#include "seed-membarrier.h"

static int seed_probe(const struct mechanism *m, char *reason, size_t len)
{
	long mask = membarrier_query();

	if (mask >= 0 && (mask & m->membarrier_cmd))
		return 0;
	if (mask < 0)
		return membarrier_probe_cmd(m->membarrier_cmd, "", NULL, reason,
					    len);
	snprintf(reason, len, "needs the patched kernel (kernel-patch/)");
	return -1;
}

static int seed_barrier(const struct mechanism *m)
{
	return sys_membarrier(m->membarrier_cmd, 0, 0) < 0 ? -errno : 0;
}

#define SEED_MECH(ident, cli, cmd, flags, text)				\
	const struct mechanism ident = {				\
		.name = cli,						\
		.summary = text,					\
		.caps = MC_PROCESS_WIDE | MC_PATCHED_KERNEL | (flags),	\
		.membarrier_cmd = cmd,					\
		.probe = seed_probe,					\
		.barrier = seed_barrier,				\
	}

SEED_MECH(mech_seed_v1_ipi_all, "seed-v1-ipi-all",
	  MEMBARRIER_CMD_SEED_V1_IPI_ALL, MC_IPI,
	  "2010 v1: IPI and smp_mb on every online CPU");
SEED_MECH(mech_seed_v5_expedited, "seed-v5-expedited",
	  MEMBARRIER_CMD_SEED_V5_EXPEDITED, MC_IPI,
	  "2010 v5 expedited: IPI CPUs whose runqueue runs this mm");
SEED_MECH(mech_seed_v5_sched, "seed-v5-sched", MEMBARRIER_CMD_SEED_V5_SCHED,
	  MC_GRACE_PERIOD,
	  "2010 v5 non-expedited: one scheduler grace period");
