/* SPDX-License-Identifier: MIT */
/*
 * The reader and writer loops every RCU scheme runs, ours and liburcu's, so
 * that a difference in reads/s or writes/s comes from the scheme's read-side
 * primitives and synchronize, not from the loop. They are always inlined
 * with the scheme's primitives as constants: the read side is a few
 * instructions and an indirect call would be most of its cost.
 *
 * The torture check is on every read: the object must be live at the start
 * of the read-side critical section and still live at its end.
 */
#ifndef MBBENCH_RCU_LOOP_H
#define MBBENCH_RCU_LOOP_H

#include "barrier.h"
#include "rcu.h"

#define RCU_QS_EVERY 1024	/* reads between QSBR quiescent states */

static inline int rcu_obj_ok(const struct rcu_obj *p)
{
	uint64_t magic = __atomic_load_n(&p->magic, __ATOMIC_RELAXED);
	uint64_t seq = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);
	uint64_t check = __atomic_load_n(&p->check, __ATOMIC_RELAXED);

	return magic == RCU_OBJ_LIVE && check == (seq ^ RCU_OBJ_KEY);
}

static inline __attribute__((always_inline)) void
rcu_reader_loop(struct rcu_run *r, int idx, void (*lock)(void *),
		void (*unlock)(void *), void (*qs)(void *), void *arg)
{
	struct rcu_reader_slot *slot = &r->readers[idx];
	uint64_t n = 0, bad = 0, cs = r->cs_ns;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		struct rcu_obj *p;
		int good;

		lock(arg);
		p = atomic_load_explicit(&r->gp, memory_order_consume);
		good = rcu_obj_ok(p);
		if (cs && good) {
			rcu_spin_ns(cs);
			good = rcu_obj_ok(p);
		}
		unlock(arg);
		bad += !good;
		/* Published for the quarantine: this read is over. */
		atomic_store_explicit(&slot->reads, ++n, memory_order_release);
		if (qs && !(n & (RCU_QS_EVERY - 1)))
			qs(arg);
	}
	slot->violations = bad;
	atomic_store_explicit(&slot->done, 1, memory_order_release);
}

/*
 * One update: publish a new object, wait for a grace period, retire the old
 * one. A scheme whose sync leaves out the closing barrier passes it as
 * close: the next update's opening barrier closes the previous grace period
 * as well, so the old object is retired one update later (one forced
 * barrier per grace period instead of two), and close runs once at the end
 * for the last one.
 */
static inline __attribute__((always_inline)) void
rcu_writer_loop(struct rcu_run *r, int idx, void (*sync)(void *),
		void (*close)(void *), void *arg)
{
	struct rcu_writer_slot *w = &r->writers[idx];
	struct rcu_obj *pending = NULL;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		struct rcu_obj *obj = rcu_obj_new(w), *old;

		old = atomic_exchange_explicit(&r->gp, obj, memory_order_seq_cst);
		sync(arg);
		if (!close) {
			rcu_retire(r, w, old);
		} else {
			if (pending)
				rcu_retire(r, w, pending);
			pending = old;
		}
		w->writes++;
		if (r->writer_delay_ns)
			rcu_spin_ns(r->writer_delay_ns);
	}
	if (pending) {
		close(arg);
		rcu_retire(r, w, pending);
	}
}

#endif
