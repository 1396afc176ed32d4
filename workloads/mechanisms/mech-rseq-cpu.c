// SPDX-License-Identifier: MIT
/*
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ with MEMBARRIER_CMD_FLAG_CPU: a
 * barrier on one CPU only, which also restarts an rseq critical section of
 * this process running there. tcmalloc issues it to take a per-CPU cache
 * back from whichever of its threads runs on that CPU.
 *
 * The target is the CPU of the first team thread of this process: each team
 * thread records sched_getcpu() in thread_init, after the harness (and
 * litmus, contend, distance) pinned it to its one CPU, and attach takes the
 * lowest index's. With no team thread in this process (T = 1, the team in
 * another process) it is the caller's own CPU, where the kernel runs the
 * barrier function locally, without an IPI. Not process-wide: a thread on
 * any other CPU gets no barrier.
 *
 * Needs Linux 5.10+ (REGISTER_PRIVATE_EXPEDITED_RSEQ and the CPU flag) and
 * threads registered with rseq, which glibc 2.35+ does unless
 * GLIBC_TUNABLES=glibc.pthread.rseq=0; without rseq the barrier still runs
 * but restarts nothing, so the probe refuses.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>	/* glibc 2.35+: __rseq_size, 0 when not registered */
#define HAVE_GLIBC_RSEQ 1
#endif
#endif

#include "mech.h"

#define CMD MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ
#define REG MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ
#define NONE LLONG_MAX

/* The lowest team index thread_init saw, with its CPU: index << 32 | cpu. */
static _Atomic long long first = NONE;
/* The CPU barriers target; -1: the caller's own. */
static _Atomic int target = -1;

static int rseq_cpu_probe(const struct mechanism *m, char *reason, size_t len)
{
	(void)m;
	if (membarrier_probe_cmd(CMD, membarrier_cmd_name(CMD), " (Linux 5.10+)",
				 reason, len) ||
	    membarrier_probe_cmd(REG, membarrier_cmd_name(REG), " (Linux 5.10+)",
				 reason, len))
		return -1;
#ifdef HAVE_GLIBC_RSEQ
	if (__rseq_size == 0) {
#ifdef RSEQ_SIG
		snprintf(reason, len,
			 "glibc did not register threads with rseq (GLIBC_TUNABLES=glibc.pthread.rseq=0, or the kernel refused)");
#else
		/* seen: Debian 12's riscv64 glibc 2.36 */
		snprintf(reason, len,
			 "this glibc registers no rseq area on this architecture (its <sys/rseq.h> defines no RSEQ_SIG here)");
#endif
		return -1;
	}
	return 0;
#else
	snprintf(reason, len,
		 "the C library does not register threads with rseq (glibc 2.35+ does)");
	return -1;
#endif
}

static int rseq_cpu_setup(const struct mechanism *m, char *reason, size_t len)
{
	(void)m;
	atomic_store(&first, NONE);
	atomic_store(&target, -1);
	if (sys_membarrier(REG, 0, 0) < 0) {
		snprintf(reason, len, "MEMBARRIER_CMD_%s failed: %s",
			 membarrier_cmd_name(REG), strerror(errno));
		return -1;
	}
	return 0;
}

/* In each team thread, once it is pinned. */
static void rseq_cpu_thread_init(const struct mechanism *m, int index)
{
	int cpu = sched_getcpu();
	long long mine = (long long)index << 32 | (unsigned)cpu;
	long long cur = atomic_load(&first);

	(void)m;
	if (cpu < 0 || index < 0)
		return;
	while (mine < cur && !atomic_compare_exchange_weak(&first, &cur, mine))
		;
}

static int rseq_cpu_attach(const struct mechanism *m, const struct mech_team *team)
{
	long long f = atomic_load(&first);

	(void)m;
	atomic_store(&target, team->nthreads > 0 && f != NONE ? (int)(f & 0xffffffff) : -1);
	return 0;
}

static void rseq_cpu_detach(const struct mechanism *m)
{
	(void)m;
	atomic_store(&first, NONE);
	atomic_store(&target, -1);
}

static int rseq_cpu_barrier(const struct mechanism *m)
{
	int cpu = atomic_load_explicit(&target, memory_order_relaxed);

	(void)m;
	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu < 0)
		return -errno;
	return sys_membarrier(CMD, MEMBARRIER_CMD_FLAG_CPU, cpu) < 0 ? -errno : 0;
}

const struct mechanism mech_membarrier_private_expedited_rseq_cpu = {
	.name = "membarrier-private-expedited-rseq-cpu",
	.summary = "PRIVATE_EXPEDITED_RSEQ on one CPU (FLAG_CPU, the first team thread's): tcmalloc's per-CPU cache restart",
	.caps = MC_IPI | MC_REGISTER,
	.membarrier_cmd = CMD,
	.probe = rseq_cpu_probe,
	.setup = rseq_cpu_setup,
	.thread_init = rseq_cpu_thread_init,
	.attach = rseq_cpu_attach,
	.detach = rseq_cpu_detach,
	.barrier = rseq_cpu_barrier,
};
