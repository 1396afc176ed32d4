// SPDX-License-Identifier: MIT
/*
 * A small userspace RCU in the seed's style (liburcu's urcu.c: a per-reader
 * nesting counter that snapshots a global grace-period word), whose read
 * side and write-side barrier come from a scheme. Two things differ from
 * liburcu's synchronize_rcu, both to make a grace period cheaper: one wait
 * for readers instead of two (a 48-bit counter, not a phase bit, see
 * GP_PHASE), and one forced barrier instead of two (the next grace period's
 * opening barrier closes this one; the writer loop retires the old object
 * after it). It measures what the seed's closing table measured: how
 * moving the reader's fence into the writer (signals, sys_membarrier) trades
 * write throughput for read throughput.
 *
 * The write-side barrier is a mechanism from the foundation's table
 * (mech.h), so the barrier code is written once: `mb` uses `fence`,
 * `signal` the urcu-signal handshake, the membarrier schemes their command.
 * `qsbr` is the read-side upper bound: readers announce quiescent states and
 * have no read-side cost at all.
 */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu-loop.h"
#include "util.h"

/*
 * A reader's word: nesting count in the low 16 bits, the grace-period word
 * it snapshotted above them. With 64-bit words the part above is a 48-bit
 * counter that synchronize increments: a stale snapshot cannot wrap around
 * to the current value (2^48 grace periods), so one wait per grace period
 * is enough (the argument liburcu's QSBR flavor makes on 64-bit). With
 * 32-bit words it is a phase bit, flipped twice per grace period as in
 * liburcu's urcu.c.
 */
#define GP_COUNT 1ul
#define GP_PHASE (1ul << 16)
#define NEST_MASK (GP_PHASE - 1)
#if ULONG_MAX > 0xffffffffUL
#define GP_ONE_WAIT 1
#else
#define GP_ONE_WAIT 0
#endif

struct our_reader {
	_Atomic unsigned long ctr;
	char pad[64 - sizeof(unsigned long)];
} __attribute__((aligned(64)));

/*
 * The grace-period word stays a global, as liburcu's rcu_gp is: the read
 * side loads it at a constant address, with no pointer to follow.
 */
static struct {
	_Atomic unsigned long ctr;
	char pad[64 - sizeof(unsigned long)];
} our_gp __attribute__((aligned(64)));

/* One run's state, in the run's priv. */
struct our_state {
	struct rcu_run *r;
	struct our_reader *readers;	/* r->nreaders */
	pthread_mutex_t gp_lock;	/* writers take turns */
	const struct mechanism *mech;	/* write-side barrier, or NULL */
	struct mech_team team;		/* the readers, for the mechanism */
};

static inline __attribute__((always_inline)) void
our_lock(struct our_reader *me, int fence)
{
	unsigned long tmp = atomic_load_explicit(&me->ctr, memory_order_relaxed);

	if (!(tmp & NEST_MASK)) {
		atomic_store_explicit(&me->ctr,
				      atomic_load_explicit(&our_gp.ctr, memory_order_relaxed),
				      memory_order_relaxed);
		/* Orders the counter store before the pointer load. */
		if (fence)
			smp_mb_full();
		else
			compiler_barrier();
	} else {
		atomic_store_explicit(&me->ctr, tmp + GP_COUNT, memory_order_relaxed);
	}
}

static inline __attribute__((always_inline)) void
our_unlock(struct our_reader *me, int fence)
{
	unsigned long tmp = atomic_load_explicit(&me->ctr, memory_order_relaxed);

	/* Orders the critical section's loads before the counter store. */
	if (fence)
		smp_mb_full();
	else
		compiler_barrier();
	atomic_store_explicit(&me->ctr, tmp - GP_COUNT, memory_order_relaxed);
}

static void lock_fence(void *a) { our_lock(a, 1); }
static void unlock_fence(void *a) { our_unlock(a, 1); }
static void lock_light(void *a) { our_lock(a, 0); }
static void unlock_light(void *a) { our_unlock(a, 0); }

/* The heavy barrier: pairs with the readers' compiler barriers. */
static void master_mb(struct our_state *st)
{
	int e = (st->mech->barrier)(st->mech);

	if (e)
		atomic_store(&st->r->err, e);
}

static void wait_spin(unsigned int *spins)
{
	/* Spin while the readers run on other CPUs; yield if oversubscribed. */
	if (++*spins > 1024)
		sched_yield();
	else
		cpu_relax();
}

/* Wait until no reader is in a critical section begun in the old phase. */
static void wait_for_readers(struct our_state *st)
{
	for (int i = 0; i < st->r->nreaders; i++) {
		unsigned int spins = 0;

		for (;;) {
			unsigned long v = atomic_load_explicit(&st->readers[i].ctr,
							       memory_order_relaxed);
			unsigned long g = atomic_load_explicit(&our_gp.ctr,
							       memory_order_relaxed);

			if (!(v & NEST_MASK) || !((v ^ g) & ~NEST_MASK))
				break;
			wait_spin(&spins);
		}
	}
}

static void our_synchronize(void *a)
{
	struct our_state *st = a;

	pthread_mutex_lock(&st->gp_lock);
	master_mb(st);
	if (GP_ONE_WAIT) {
		atomic_store_explicit(&our_gp.ctr,
				      atomic_load_explicit(&our_gp.ctr, memory_order_relaxed) + GP_PHASE,
				      memory_order_relaxed);
		smp_mb_full();
		wait_for_readers(st);
	} else {
		wait_for_readers(st);
		smp_mb_full();
		atomic_store_explicit(&our_gp.ctr,
				      atomic_load_explicit(&our_gp.ctr, memory_order_relaxed) ^ GP_PHASE,
				      memory_order_relaxed);
		smp_mb_full();
		wait_for_readers(st);
	}
	/*
	 * No closing master_mb(): the writer loop retires the old object
	 * after the next update's opening master_mb() (or our_close() at the
	 * end), which orders every reader's critical section before the
	 * poison just as well. liburcu's synchronize_rcu() forces both.
	 */
	pthread_mutex_unlock(&st->gp_lock);
}

static void our_close(void *a)
{
	struct our_state *st = a;

	master_mb(st);
}

static void no_synchronize(void *a)
{
	(void)a;
}

/* QSBR: readers publish the grace-period counter they have seen. */
static void qsbr_qs(void *a)
{
	struct our_reader *me = a;

	smp_mb_full();
	atomic_store_explicit(&me->ctr,
			      atomic_load_explicit(&our_gp.ctr, memory_order_relaxed),
			      memory_order_relaxed);
	smp_mb_full();
}

static void qsbr_nothing(void *a)
{
	(void)a;
	compiler_barrier();
}

static void qsbr_synchronize(void *a)
{
	struct our_state *st = a;
	unsigned long g;

	pthread_mutex_lock(&st->gp_lock);
	smp_mb_full();
	g = atomic_load_explicit(&our_gp.ctr, memory_order_relaxed) + 2;
	atomic_store_explicit(&our_gp.ctr, g, memory_order_relaxed);
	smp_mb_full();
	for (int i = 0; i < st->r->nreaders; i++) {
		unsigned int spins = 0;

		for (;;) {
			unsigned long v = atomic_load_explicit(&st->readers[i].ctr,
							       memory_order_relaxed);

			if (!v || v == g)	/* offline, or passed a QS */
				break;
			wait_spin(&spins);
		}
	}
	smp_mb_full();
	pthread_mutex_unlock(&st->gp_lock);
}

static int our_setup(struct rcu_run *r, char *reason, size_t len)
{
	size_t n = (size_t)(r->nreaders ? r->nreaders : 1);
	struct our_state *st = calloc(1, sizeof(*st));

	if (!st) {
		snprintf(reason, len, "out of memory");
		return -1;
	}
	r->priv = st;
	st->r = r;
	pthread_mutex_init(&st->gp_lock, NULL);
	st->readers = aligned_alloc(64, sizeof(*st->readers) * n);
	if (!st->readers) {
		snprintf(reason, len, "out of memory");
		return -1;
	}
	memset(st->readers, 0, sizeof(*st->readers) * n);
	atomic_store(&our_gp.ctr, GP_COUNT);
	st->mech = rcu_scheme_mech(r->s);
	if (st->mech && st->mech->setup && st->mech->setup(st->mech, reason, len))
		return -1;
	if (st->mech && !strcmp(st->mech->name, "signal"))
		mech_signal_ack_wait(r->s->ack_sleep_ns);
	return 0;
}

static int our_attach(struct rcu_run *r)
{
	struct our_state *st = r->priv;

	st->team.nthreads = r->nreaders;
	st->team.threads = r->reader_th;
	if (st->mech && st->mech->attach)
		return st->mech->attach(st->mech, &st->team);
	return 0;
}

/* Also after a failed setup (the runner always calls it). */
static void our_teardown(struct rcu_run *r)
{
	struct our_state *st = r->priv;

	if (!st)
		return;
	if (st->mech && !strcmp(st->mech->name, "signal"))
		mech_signal_ack_wait(0);
	if (st->mech && st->mech->detach)
		st->mech->detach(st->mech);
	if (st->mech && st->mech->teardown)
		st->mech->teardown(st->mech);
	pthread_mutex_destroy(&st->gp_lock);
	free(st->readers);
	free(st);
	r->priv = NULL;
}

/*
 * Before the start barrier: a writer may signal this reader as soon as the
 * run starts, and the handler must already know whose ack it is.
 */
static void reader_init(struct rcu_run *r, int idx)
{
	struct our_state *st = r->priv;

	if (st->mech && st->mech->thread_init)
		st->mech->thread_init(st->mech, idx);
}

static struct our_reader *reader_of(struct rcu_run *r, int idx)
{
	return &((struct our_state *)r->priv)->readers[idx];
}

static void reader_fence(struct rcu_run *r, int idx)
{
	rcu_reader_loop(r, idx, lock_fence, unlock_fence, NULL, reader_of(r, idx));
}

static void reader_light(struct rcu_run *r, int idx)
{
	rcu_reader_loop(r, idx, lock_light, unlock_light, NULL, reader_of(r, idx));
}

static void reader_qsbr(struct rcu_run *r, int idx)
{
	struct our_reader *me = reader_of(r, idx);

	qsbr_qs(me);	/* online */
	rcu_reader_loop(r, idx, qsbr_nothing, qsbr_nothing, qsbr_qs, me);
	smp_mb_full();	/* offline */
	atomic_store_explicit(&me->ctr, 0, memory_order_relaxed);
}

static void writer_sync(struct rcu_run *r, int idx)
{
	rcu_writer_loop(r, idx, our_synchronize, our_close, r->priv);
}

/*
 * The interruption probe's reader (rcu-readcost.c): it does nothing but
 * read the clock, and adds up every gap longer than RCU_GAP_NS between two
 * readings, the time something else had its CPU.
 */
static void reader_gaps(struct rcu_run *r, int idx)
{
	struct rcu_reader_slot *slot = &r->readers[idx];
	uint64_t prev = now_ns(), stolen = 0, n = 0;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		uint64_t t = now_ns();

		if (t - prev > RCU_GAP_NS)
			stolen += t - prev;
		prev = t;
		n++;
	}
	slot->stolen_ns = stolen;
	atomic_store_explicit(&slot->reads, n, memory_order_release);
	atomic_store_explicit(&slot->done, 1, memory_order_release);
}

/* The probe's writer: the scheme's forced barrier, nothing to wait for. */
static void barrier_only(void *a)
{
	master_mb(a);
}

static void writer_barrier(struct rcu_run *r, int idx)
{
	rcu_writer_loop(r, idx, barrier_only, NULL, r->priv);
}

static void writer_qsbr(struct rcu_run *r, int idx)
{
	rcu_writer_loop(r, idx, qsbr_synchronize, NULL, r->priv);
}

static void writer_nowait(struct rcu_run *r, int idx)
{
	rcu_writer_loop(r, idx, no_synchronize, NULL, NULL);
}

#define OUR_SCHEME(ident, cli, fam, text, mechname, rd, wr, ...)	\
	const struct rcu_scheme ident = {				\
		.name = cli,						\
		.family = fam,						\
		.summary = text,					\
		.mech = mechname,					\
		.probe = mechname ? rcu_probe_mech : NULL,		\
		.setup = our_setup,					\
		.attach = our_attach,					\
		.reader_init = reader_init,				\
		.reader = rd,						\
		.writer = wr,						\
		.teardown = our_teardown,				\
		__VA_ARGS__						\
	}

/*
 * The read side, counted from the code above (struct rcu_readside). Every
 * scheme's grace period takes four lines from a running reader: the
 * pointer's line (with the stop flag), the new object, our_gp.ctr, and the
 * reader's own counter, which wait_for_readers() loads between the
 * reader's stores. QSBR's too: its writer waits for one quiescent state of
 * each reader per grace period, and there the reader loads our_gp.ctr and
 * stores its counter, both lines the writer moved.
 */
#define RS_LINES 4
#define RS_FENCE { .rmw = 1, .rmw_idle = 1, .lines = RS_LINES, \
		   .why = "our_lock: smp_mb_full after the counter store (stores pending); our_unlock: smp_mb_full before it (none pending)" }
#define RS_LIGHT(mechname, n) { .lines = RS_LINES, .interrupts = (n), .interrupt = (n) ? (mechname) : NULL, \
				.why = "compiler barriers only; the writer's barrier interrupts each reader " #n " time(s) a write" }

OUR_SCHEME(rcu_mb, "mb", "ours", "full fence in the reader; writer fences (the seed's smp_mb row)",
	   "fence", reader_fence, writer_sync, .rs = RS_FENCE);
/*
 * `signal` waits for the acks as urcu-signal does, sleeping 1 ms between
 * checks: grace periods stay rare and the readers keep their speed, which
 * is the trade the seed's signal row shows. `signal-spin` spins instead:
 * the fastest grace period, paid by every reader on every signal.
 */
#define SIGNAL_ACK_SLEEP_NS 1000000u
OUR_SCHEME(rcu_signal, "signal", "ours",
	   "compiler barrier in the reader; writer signals every reader, sleeps 1 ms between ack checks",
	   "signal", reader_light, writer_sync, .ack_sleep_ns = SIGNAL_ACK_SLEEP_NS,
	   .rs = RS_LIGHT("signal", 1));
OUR_SCHEME(rcu_signal_spin, "signal-spin", "ours",
	   "compiler barrier in the reader; writer signals every reader, spins for the acks",
	   "signal", reader_light, writer_sync, .rs = RS_LIGHT("signal", 1));
OUR_SCHEME(rcu_pe, "membarrier-private-expedited", "ours",
	   "compiler barrier in the reader; writer MEMBARRIER_CMD_PRIVATE_EXPEDITED",
	   "membarrier-private-expedited", reader_light, writer_sync,
	   .rs = RS_LIGHT("membarrier-private-expedited", 1));
OUR_SCHEME(rcu_global, "membarrier-global", "ours",
	   "compiler barrier in the reader; writer MEMBARRIER_CMD_GLOBAL (non-expedited)",
	   "membarrier-global", reader_light, writer_sync, .rs = RS_LIGHT(NULL, 0));
OUR_SCHEME(rcu_mprotect, "mprotect", "ours",
	   "compiler barrier in the reader; writer's mprotect TLB shootdown",
	   "mprotect", reader_light, writer_sync, .rs = RS_LIGHT("mprotect", 1));
OUR_SCHEME(rcu_v5e, "seed-v5-expedited", "ours",
	   "compiler barrier in the reader; writer the 2010 v5 expedited call",
	   "seed-v5-expedited", reader_light, writer_sync, .rs = RS_LIGHT("seed-v5-expedited", 1));
OUR_SCHEME(rcu_v1, "seed-v1-ipi-all", "ours",
	   "compiler barrier in the reader; writer the 2010 v1 IPI-all call",
	   "seed-v1-ipi-all", reader_light, writer_sync, .rs = RS_LIGHT("seed-v1-ipi-all", 1));
OUR_SCHEME(rcu_v5s, "seed-v5-sched", "ours",
	   "compiler barrier in the reader; writer the 2010 v5 non-expedited call",
	   "seed-v5-sched", reader_light, writer_sync, .rs = RS_LIGHT(NULL, 0));
OUR_SCHEME(rcu_qsbr, "qsbr", "ours",
	   "quiescent-state reporting every 1024 reads: no read-side cost (upper bound)",
	   NULL, reader_qsbr, writer_qsbr,
	   .rs = { .rmw = 2.0 / RCU_QS_EVERY, .lines = RS_LINES,
		   .why = "qsbr_qs: two smp_mb_full every 1024 reads; a grace period waits for one of them" });
OUR_SCHEME(rcu_broken_no_wait, "broken-no-wait", "broken",
	   "TEST ONLY: writer frees without waiting for a grace period",
	   NULL, reader_light, writer_nowait);
OUR_SCHEME(rcu_broken_no_barrier, "broken-no-barrier", "broken",
	   "TEST ONLY: signal scheme whose handler has no fence",
	   "signal-nofence", reader_light, writer_sync);

/*
 * Not schemes a user runs (they are in no table): the probes the read-side
 * model times. The light loop is every light scheme's reader with no
 * writer; the publish probe's writer moves exactly two lines a write (the
 * pointer's and the new object's) and nothing else; the gap probe's
 * mechanism is set by its caller.
 */
OUR_SCHEME(rcu_light_loop, "light-loop", "probe",
	   "the reader loop with compiler barriers only (a probe)",
	   NULL, reader_light, writer_nowait);
OUR_SCHEME(rcu_publish_probe, "publish-probe", "probe",
	   "the light reader; a writer that publishes and retires, never waits (a probe)",
	   NULL, reader_light, writer_nowait);
OUR_SCHEME(rcu_gap_probe, "gap-probe", "probe",
	   "a reader that times its gaps; a writer that forces barriers (a probe)",
	   NULL, reader_gaps, writer_barrier);

/* Placeholders so liburcu rows are skipped with a reason, not unknown. */
