/* SPDX-License-Identifier: MIT */
/*
 * liburcu's flavors as rcu schemes, so the library users already run is
 * measured in the same loop, on the same CPUs, beside ours. Every flavor
 * defines the same rcu_* names, so each gets its own small file
 * (rcu-urcu-<flavor>.c) that includes only its flavor's header and uses the
 * flavor-prefixed API (urcu_mb_*, urcu_signal_*, ...; liburcu >= 0.11).
 * _LGPL_SOURCE inlines the read side, as liburcu's own benchmarks do.
 *
 * The read-side counts (struct rcu_readside) are from liburcu 0.13's
 * static headers and urcu.c: synchronize_rcu() runs wait_for_readers()
 * twice around one flip of the parity in the flavor's gp word, so a grace
 * period takes five lines from a running reader: the pointer, the object,
 * the gp line (its ctr and the futex read_unlock loads share it), and the
 * reader's counter once per wait. Its smp_mb_master() runs before and
 * after: two forced barriers a write where the flavor forces them.
 */
#define URCU_RS_LINES 5
#ifndef MBBENCH_RCU_URCU_H
#define MBBENCH_RCU_URCU_H

#include "rcu-loop.h"

#define URCU_SCHEME(flavor, cli, text, qsfn, ...)				\
	static void flavor##_lock(void *a)				\
	{								\
		(void)a;						\
		urcu_##flavor##_read_lock();				\
	}								\
	static void flavor##_unlock(void *a)				\
	{								\
		(void)a;						\
		urcu_##flavor##_read_unlock();				\
	}								\
	static void flavor##_sync(void *a)				\
	{								\
		(void)a;						\
		urcu_##flavor##_synchronize_rcu();			\
	}								\
	static void flavor##_reader(struct rcu_run *r, int idx)	\
	{								\
		urcu_##flavor##_register_thread();			\
		rcu_reader_loop(r, idx, flavor##_lock, flavor##_unlock,	\
				qsfn, NULL);				\
		urcu_##flavor##_unregister_thread();			\
	}								\
	static void flavor##_writer(struct rcu_run *r, int idx)	\
	{								\
		rcu_writer_loop(r, idx, flavor##_sync, NULL, NULL);	\
	}								\
	const struct rcu_scheme rcu_liburcu_##flavor = {		\
		.name = cli,						\
		.family = "liburcu",					\
		.summary = text,					\
		.reader = flavor##_reader,				\
		.writer = flavor##_writer,				\
		.rs = __VA_ARGS__,					\
	}

#endif
