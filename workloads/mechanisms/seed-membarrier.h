/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Command values of the 2010 sys_membarrier() designs, as forward-ported to
 * Linux 6.1 by the series in kernel-patch/. This header is the one place the
 * values live: the kernel patch adds the same numbers to
 * include/uapi/linux/membarrier.h, and mbbench's seed-* mechanisms use them.
 *
 * Mainline commands reach 1 << 9 (MEMBARRIER_CMD_GET_REGISTRATIONS, 6.3);
 * the seed commands sit well clear of them so that a future mainline command
 * cannot collide with a measurement taken on the patched kernel.
 */
#ifndef MBBENCH_SEED_MEMBARRIER_H
#define MBBENCH_SEED_MEMBARRIER_H

/* v1 (2010-01-06): IPI every online CPU, each runs smp_mb(). */
#define MEMBARRIER_CMD_SEED_V1_IPI_ALL		(1 << 24)
/*
 * v5 (2010-01-12), expedited: IPI only the CPUs of mm_cpumask whose runqueue
 * currently runs the caller's mm (checked under the rq lock), minus self.
 */
#define MEMBARRIER_CMD_SEED_V5_EXPEDITED	(1 << 25)
/* v5, non-expedited: a scheduler grace period (synchronize_rcu() in 6.1). */
#define MEMBARRIER_CMD_SEED_V5_SCHED		(1 << 26)

#define MEMBARRIER_CMD_SEED_MASK					\
	(MEMBARRIER_CMD_SEED_V1_IPI_ALL | MEMBARRIER_CMD_SEED_V5_EXPEDITED | \
	 MEMBARRIER_CMD_SEED_V5_SCHED)

#endif /* MBBENCH_SEED_MEMBARRIER_H */
