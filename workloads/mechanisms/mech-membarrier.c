// SPDX-License-Identifier: MIT
/*
 * The mainline membarrier(2) commands, each a mechanism. They share one file
 * because they differ only in the command issued and the registration it
 * needs; five copies of the same three functions would hide that.
 *
 * Costs measured on a 2-vCPU EPYC VM (kernel 6.18) with one spinning thread
 * on the other CPU: PRIVATE_EXPEDITED ~10-13 us (the IPI round trip), GLOBAL
 * 10-15 ms (a grace period). See README for how to reproduce.
 */
#include "config.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mech.h"
#include "seed-membarrier.h"
#include "util.h"

static uint64_t plant_ns;

void membarrier_plant(uint64_t ns)
{
	plant_ns = ns;
}

uint64_t membarrier_planted_ns(void)
{
	return plant_ns;
}

/* The commands whose cost a patch to the expedited barrier path moves. */
static int expedited_barrier(int cmd)
{
	switch (cmd) {
	case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ:
	case MEMBARRIER_CMD_SEED_V1_IPI_ALL:
	case MEMBARRIER_CMD_SEED_V5_EXPEDITED:
		return 1;
	default:
		return 0;
	}
}

int sys_membarrier(int cmd, unsigned int flags, int cpu_id)
{
	int r = (int)syscall(__NR_membarrier, cmd, flags, cpu_id);

	if (plant_ns && expedited_barrier(cmd)) {
		int e = errno;
		uint64_t end = now_ns() + plant_ns;

		while (now_ns() < end)
			;
		errno = e;
	}
	return r;
}

long membarrier_query(void)
{
	static long mask = -1;
	static int err;

	if (mask < 0 && !err) {
		int r = sys_membarrier(MEMBARRIER_CMD_QUERY, 0, 0);

		if (r < 0)
			err = errno;
		else
			mask = r;
	}
	return err ? -err : mask;
}

static const struct {
	int cmd;
	const char *name;
} cmd_names[] = {
	{ 1 << 0, "GLOBAL" },
	{ 1 << 1, "GLOBAL_EXPEDITED" },
	{ 1 << 2, "REGISTER_GLOBAL_EXPEDITED" },
	{ 1 << 3, "PRIVATE_EXPEDITED" },
	{ 1 << 4, "REGISTER_PRIVATE_EXPEDITED" },
	{ 1 << 5, "PRIVATE_EXPEDITED_SYNC_CORE" },
	{ 1 << 6, "REGISTER_PRIVATE_EXPEDITED_SYNC_CORE" },
	{ 1 << 7, "PRIVATE_EXPEDITED_RSEQ" },
	{ 1 << 8, "REGISTER_PRIVATE_EXPEDITED_RSEQ" },
	{ 1 << 9, "GET_REGISTRATIONS" },
	{ MEMBARRIER_CMD_SEED_V1_IPI_ALL, "SEED_V1_IPI_ALL" },
	{ MEMBARRIER_CMD_SEED_V5_EXPEDITED, "SEED_V5_EXPEDITED" },
	{ MEMBARRIER_CMD_SEED_V5_SCHED, "SEED_V5_SCHED" },
};

const char *membarrier_cmd_name(int cmd)
{
	for (size_t i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
		if (cmd_names[i].cmd == cmd)
			return cmd_names[i].name;
	return NULL;
}

int membarrier_probe_cmd(int cmd, const char *cmdname, const char *missing_hint,
			 char *reason, size_t len)
{
	long mask = membarrier_query();

	if (mask < 0) {
		snprintf(reason, len, "kernel has no membarrier system call (%s)",
			 strerror((int)-mask));
		return -1;
	}
	if (!(mask & cmd)) {
		snprintf(reason, len, "kernel lacks MEMBARRIER_CMD_%s%s", cmdname,
			 missing_hint ? missing_hint : "");
		return -1;
	}
	return 0;
}

int membarrier_register_cmd(int cmd)
{
	switch (cmd) {
	case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
		return MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED;
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
		return MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
		return MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE;
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ:
		return MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ;
	default:
		return 0;
	}
}

static int mb_probe(const struct mechanism *m, char *reason, size_t len)
{
	int reg = membarrier_register_cmd(m->membarrier_cmd);
	const char *hint = m->membarrier_cmd == MEMBARRIER_CMD_GLOBAL ?
				   " (absent when nohz_full is set)" : NULL;

	if (membarrier_probe_cmd(m->membarrier_cmd,
				 membarrier_cmd_name(m->membarrier_cmd), hint,
				 reason, len))
		return -1;
	if (reg && membarrier_probe_cmd(reg, membarrier_cmd_name(reg), NULL,
					reason, len))
		return -1;
	return 0;
}

static int mb_setup(const struct mechanism *m, char *reason, size_t len)
{
	int reg = membarrier_register_cmd(m->membarrier_cmd);

	if (reg && sys_membarrier(reg, 0, 0) < 0) {
		snprintf(reason, len, "MEMBARRIER_CMD_%s failed: %s",
			 membarrier_cmd_name(reg), strerror(errno));
		return -1;
	}
	return 0;
}

static int mb_barrier(const struct mechanism *m)
{
	return sys_membarrier(m->membarrier_cmd, 0, 0) < 0 ? -errno : 0;
}

#define MEMBARRIER_MECH(ident, cli, cmd, flags, text)				\
	const struct mechanism ident = {				\
		.name = cli,						\
		.summary = text,					\
		.caps = flags,						\
		.membarrier_cmd = cmd,					\
		.probe = mb_probe,					\
		.setup = mb_setup,					\
		.barrier = mb_barrier,					\
	}

MEMBARRIER_MECH(mech_membarrier_global, "membarrier-global",
		MEMBARRIER_CMD_GLOBAL, MC_PROCESS_WIDE | MC_GRACE_PERIOD,
		"MEMBARRIER_CMD_GLOBAL: waits for a grace period, no IPIs");
MEMBARRIER_MECH(mech_membarrier_global_expedited,
		"membarrier-global-expedited", MEMBARRIER_CMD_GLOBAL_EXPEDITED,
		MC_PROCESS_WIDE | MC_IPI | MC_REGISTER,
		"MEMBARRIER_CMD_GLOBAL_EXPEDITED: IPIs CPUs running registered processes");
MEMBARRIER_MECH(mech_membarrier_private_expedited,
		"membarrier-private-expedited", MEMBARRIER_CMD_PRIVATE_EXPEDITED,
		MC_PROCESS_WIDE | MC_IPI | MC_REGISTER,
		"MEMBARRIER_CMD_PRIVATE_EXPEDITED: IPIs CPUs running this mm (the v5 idea)");
MEMBARRIER_MECH(mech_membarrier_private_expedited_sync_core,
		"membarrier-private-expedited-sync-core",
		MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE,
		MC_PROCESS_WIDE | MC_IPI | MC_REGISTER,
		"PRIVATE_EXPEDITED plus a core-serializing instruction on each target");
MEMBARRIER_MECH(mech_membarrier_private_expedited_rseq,
		"membarrier-private-expedited-rseq",
		MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
		MC_PROCESS_WIDE | MC_IPI | MC_REGISTER,
		"PRIVATE_EXPEDITED that also restarts rseq critical sections");
