// SPDX-License-Identifier: MIT
/*
 * The torture every RCU run is: objects carry a magic and a check word;
 * old objects are poisoned before they are retired, and kept poisoned in a
 * quarantine until every reader has finished the read it was in (checked by
 * the reader's published read count, not by the scheme under test), so a
 * late reader of a broken scheme sees poison, never freed or reused memory.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "barrier.h"
#include "rcu.h"
#include "util.h"

#define QBLOCK 256		/* retired objects per quarantine block */
#define QMIN_AGE_NS 2000000ull	/* store buffers drain long before this */

struct rcu_qblock {
	struct rcu_qblock *next;
	uint64_t closed_ns;
	int n;
	struct rcu_obj *obj[QBLOCK];
	uint64_t snap[];	/* each reader's read count when closed */
};

void rcu_spin_ns(uint64_t ns)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < ns)
		cpu_relax();
}

struct rcu_obj *rcu_obj_new(struct rcu_writer_slot *w)
{
	struct rcu_obj *p = aligned_alloc(64, sizeof(*p));
	uint64_t seq = w ? w->seq++ : 0;

	if (!p)
		die("out of memory for an rcu object");
	p->seq = seq;
	p->check = seq ^ RCU_OBJ_KEY;
	p->next = NULL;
	p->magic = RCU_OBJ_LIVE;
	return p;
}

static void poison(struct rcu_obj *p)
{
	__atomic_store_n(&p->magic, RCU_OBJ_POISON, __ATOMIC_RELAXED);
	__atomic_store_n(&p->seq, RCU_OBJ_POISON, __ATOMIC_RELAXED);
	__atomic_store_n(&p->check, RCU_OBJ_POISON, __ATOMIC_RELAXED);
}

static int qblock_safe(const struct rcu_run *r, const struct rcu_qblock *b,
		       uint64_t now)
{
	if (now - b->closed_ns < QMIN_AGE_NS)
		return 0;
	for (int i = 0; i < r->nreaders; i++) {
		const struct rcu_reader_slot *s = &r->readers[i];

		/* Two reads later: the one in progress at close has ended. */
		if (!atomic_load_explicit(&s->done, memory_order_acquire) &&
		    atomic_load_explicit(&s->reads, memory_order_acquire) < b->snap[i] + 2)
			return 0;
	}
	return 1;
}

static void qblock_free(struct rcu_writer_slot *w, struct rcu_qblock *b)
{
	for (int i = 0; i < b->n; i++)
		free(b->obj[i]);
	w->quarantined -= (uint64_t)b->n;
	free(b);
}

void rcu_retire(struct rcu_run *r, struct rcu_writer_slot *w, struct rcu_obj *old)
{
	struct rcu_qblock *b = w->qcur;
	uint64_t now;

	poison(old);
	if (!b) {
		b = xmalloc(sizeof(*b) + (size_t)r->nreaders * sizeof(uint64_t));
		b->next = NULL;
		b->n = 0;
		w->qcur = b;
	}
	b->obj[b->n++] = old;
	if (++w->quarantined > w->peak_quarantined)
		w->peak_quarantined = w->quarantined;
	if (b->n < QBLOCK)
		return;
	/* Close the block: every object in it is unreachable from now on. */
	for (int i = 0; i < r->nreaders; i++)
		b->snap[i] = atomic_load_explicit(&r->readers[i].reads,
						  memory_order_acquire);
	now = now_ns();
	b->closed_ns = now;
	if (w->qtail)
		w->qtail->next = b;
	else
		w->qhead = b;
	w->qtail = b;
	w->qcur = NULL;
	while (w->qhead && qblock_safe(r, w->qhead, now)) {
		struct rcu_qblock *h = w->qhead;

		w->qhead = h->next;
		if (!w->qhead)
			w->qtail = NULL;
		qblock_free(w, h);
	}
}

/* After every thread has been joined. */
void rcu_quarantine_drain(struct rcu_writer_slot *w)
{
	while (w->qhead) {
		struct rcu_qblock *h = w->qhead;

		w->qhead = h->next;
		qblock_free(w, h);
	}
	if (w->qcur)
		qblock_free(w, w->qcur);
	w->qcur = w->qtail = NULL;
}
