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
 *
 * The runner also owns the torture: old objects are poisoned before they are
 * retired, and kept poisoned in a quarantine until every reader has finished
 * the read it was in (checked by the reader's published read count, not by
 * the scheme under test), so a late reader of a broken scheme sees poison,
 * never freed or reused memory.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pinned.h"
#include "rcu-loop.h"
#include "util.h"

/* ---- objects, quarantine, clock ---------------------------------------- */

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
	struct rcu_obj *p = xmalloc(sizeof(*p));
	uint64_t seq = w ? w->seq++ : 0;

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
static void quarantine_drain(struct rcu_writer_slot *w)
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

/* ---- our RCU ------------------------------------------------------------ */

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

static struct {
	_Atomic unsigned long ctr;
	char pad[64 - sizeof(unsigned long)];
} our_gp __attribute__((aligned(64)));

static struct our_reader *our_readers;
static int our_nreaders;
static pthread_mutex_t our_gp_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct mechanism *our_mech;	/* write-side barrier */
static struct mech_team our_team;
static _Atomic int our_err;

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
static void master_mb(void)
{
	int e = (our_mech->barrier)(our_mech);

	if (e)
		atomic_store(&our_err, e);
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
static void wait_for_readers(void)
{
	for (int i = 0; i < our_nreaders; i++) {
		unsigned int spins = 0;

		for (;;) {
			unsigned long v = atomic_load_explicit(&our_readers[i].ctr,
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
	(void)a;
	pthread_mutex_lock(&our_gp_lock);
	master_mb();
	if (GP_ONE_WAIT) {
		atomic_store_explicit(&our_gp.ctr,
				      atomic_load_explicit(&our_gp.ctr, memory_order_relaxed) + GP_PHASE,
				      memory_order_relaxed);
		smp_mb_full();
		wait_for_readers();
	} else {
		wait_for_readers();
		smp_mb_full();
		atomic_store_explicit(&our_gp.ctr,
				      atomic_load_explicit(&our_gp.ctr, memory_order_relaxed) ^ GP_PHASE,
				      memory_order_relaxed);
		smp_mb_full();
		wait_for_readers();
	}
	/*
	 * No closing master_mb(): the writer loop retires the old object
	 * after the next update's opening master_mb() (or our_close() at the
	 * end), which orders every reader's critical section before the
	 * poison just as well. liburcu's synchronize_rcu() forces both.
	 */
	pthread_mutex_unlock(&our_gp_lock);
}

static void our_close(void *a)
{
	(void)a;
	master_mb();
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
	unsigned long g;

	(void)a;
	pthread_mutex_lock(&our_gp_lock);
	smp_mb_full();
	g = atomic_load_explicit(&our_gp.ctr, memory_order_relaxed) + 2;
	atomic_store_explicit(&our_gp.ctr, g, memory_order_relaxed);
	smp_mb_full();
	for (int i = 0; i < our_nreaders; i++) {
		unsigned int spins = 0;

		for (;;) {
			unsigned long v = atomic_load_explicit(&our_readers[i].ctr,
							       memory_order_relaxed);

			if (!v || v == g)	/* offline, or passed a QS */
				break;
			wait_spin(&spins);
		}
	}
	smp_mb_full();
	pthread_mutex_unlock(&our_gp_lock);
}

/*
 * The deliberately broken signal scheme: the handler acknowledges with a
 * plain store and no fence. Its own signal, so it never meets `signal`'s.
 */
#define NOFENCE_SIGNAL (SIGRTMIN + 3)

static _Atomic unsigned long *nofence_acks;
static __thread int nofence_slot = -1;

static void nofence_handler(int sig)
{
	(void)sig;
	if (nofence_slot >= 0)
		atomic_store_explicit(&nofence_acks[nofence_slot],
				      atomic_load_explicit(&nofence_acks[nofence_slot],
							   memory_order_relaxed) + 1,
				      memory_order_relaxed);
}

static int nofence_setup(const struct mechanism *m, char *reason, size_t len)
{
	struct sigaction sa;

	(void)m;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nofence_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(NOFENCE_SIGNAL, &sa, NULL) < 0) {
		snprintf(reason, len, "sigaction: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void nofence_thread_init(const struct mechanism *m, int index)
{
	(void)m;
	nofence_slot = index;
}

static int nofence_barrier(const struct mechanism *m)
{
	unsigned long want[64];
	int n = our_team.nthreads < 64 ? our_team.nthreads : 64;

	(void)m;
	for (int i = 0; i < n; i++) {
		int e;

		want[i] = atomic_load_explicit(&nofence_acks[i], memory_order_relaxed) + 1;
		e = pthread_kill(our_team.threads[i], NOFENCE_SIGNAL);
		if (e)
			return -e;
	}
	for (int i = 0; i < n; i++) {
		unsigned int spins = 0;

		while (atomic_load_explicit(&nofence_acks[i], memory_order_relaxed) < want[i])
			wait_spin(&spins);
	}
	return 0;
}

static const struct mechanism mech_signal_nofence = {
	.name = "signal-nofence",
	.summary = "signal handshake whose handler has no fence (test only)",
	.setup = nofence_setup,
	.thread_init = nofence_thread_init,
	.barrier = nofence_barrier,
};

static const struct mechanism *scheme_mech(const struct rcu_scheme *s)
{
	if (!s->mech)
		return NULL;
	if (!strcmp(s->mech, mech_signal_nofence.name))
		return &mech_signal_nofence;
	return mech_find(s->mech);
}

int rcu_probe_mech(const struct rcu_scheme *s, char *reason, size_t len)
{
	const struct mechanism *m = scheme_mech(s);

	if (!m) {
		snprintf(reason, len, "mechanism %s is not built in", s->mech);
		return -1;
	}
	return mech_probe(m, reason, len);
}

int rcu_no_liburcu(const struct rcu_scheme *s, char *reason, size_t len)
{
	(void)s;
	snprintf(reason, len, "built without liburcu (apt-get install liburcu-dev, then reconfigure)");
	return -1;
}

static int our_setup(struct rcu_run *r, char *reason, size_t len)
{
	our_nreaders = r->nreaders;
	our_readers = aligned_alloc(64, sizeof(*our_readers) * (size_t)(r->nreaders ? r->nreaders : 1));
	if (!our_readers) {
		snprintf(reason, len, "out of memory");
		return -1;
	}
	memset(our_readers, 0, sizeof(*our_readers) * (size_t)(r->nreaders ? r->nreaders : 1));
	atomic_store(&our_gp.ctr, GP_COUNT);
	atomic_store(&our_err, 0);
	our_mech = scheme_mech(r->s);
	if (our_mech == &mech_signal_nofence) {
		nofence_acks = calloc((size_t)(r->nreaders ? r->nreaders : 1), sizeof(*nofence_acks));
		if (!nofence_acks) {
			snprintf(reason, len, "out of memory");
			return -1;
		}
	}
	if (our_mech && our_mech->setup && our_mech->setup(our_mech, reason, len))
		return -1;
	if (our_mech && !strcmp(our_mech->name, "signal"))
		mech_signal_ack_wait(r->s->ack_sleep_ns);
	return 0;
}

static int our_attach(struct rcu_run *r)
{
	our_team.nthreads = r->nreaders;
	our_team.threads = r->reader_th;
	if (our_mech && our_mech->attach)
		return our_mech->attach(our_mech, &our_team);
	return 0;
}

static void our_teardown(struct rcu_run *r)
{
	(void)r;
	if (our_mech && !strcmp(our_mech->name, "signal"))
		mech_signal_ack_wait(0);
	if (our_mech && our_mech->detach)
		our_mech->detach(our_mech);
	if (our_mech && our_mech->teardown)
		our_mech->teardown(our_mech);
	free(our_readers);
	our_readers = NULL;
	free((void *)nofence_acks);
	nofence_acks = NULL;
	our_mech = NULL;
}

/*
 * Before the start barrier: a writer may signal this reader as soon as the
 * run starts, and the handler must already know whose ack it is.
 */
static void reader_init(struct rcu_run *r, int idx)
{
	(void)r;
	if (our_mech && our_mech->thread_init)
		our_mech->thread_init(our_mech, idx);
}

static void reader_fence(struct rcu_run *r, int idx)
{
	rcu_reader_loop(r, idx, lock_fence, unlock_fence, NULL, &our_readers[idx]);
}

static void reader_light(struct rcu_run *r, int idx)
{
	rcu_reader_loop(r, idx, lock_light, unlock_light, NULL, &our_readers[idx]);
}

static void reader_qsbr(struct rcu_run *r, int idx)
{
	struct our_reader *me = &our_readers[idx];

	qsbr_qs(me);	/* online */
	rcu_reader_loop(r, idx, qsbr_nothing, qsbr_nothing, qsbr_qs, me);
	smp_mb_full();	/* offline */
	atomic_store_explicit(&me->ctr, 0, memory_order_relaxed);
}

static void writer_sync(struct rcu_run *r, int idx)
{
	rcu_writer_loop(r, idx, our_synchronize, our_close, NULL);
}

static void writer_qsbr(struct rcu_run *r, int idx)
{
	rcu_writer_loop(r, idx, qsbr_synchronize, NULL, NULL);
}

static void writer_nowait(struct rcu_run *r, int idx)
{
	rcu_writer_loop(r, idx, no_synchronize, NULL, NULL);
}

#define OUR_SCHEME(ident, cli, fam, text, mechname, rd, wr, ...)	\
	static const struct rcu_scheme ident = {			\
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

OUR_SCHEME(rcu_mb, "mb", "ours", "full fence in the reader; writer fences (the seed's smp_mb row)",
	   "fence", reader_fence, writer_sync);
/*
 * `signal` waits for the acks as urcu-signal does, sleeping 1 ms between
 * checks: grace periods stay rare and the readers keep their speed, which
 * is the trade the seed's signal row shows. `signal-spin` spins instead:
 * the fastest grace period, paid by every reader on every signal.
 */
#define SIGNAL_ACK_SLEEP_NS 1000000u
OUR_SCHEME(rcu_signal, "signal", "ours",
	   "compiler barrier in the reader; writer signals every reader, sleeps 1 ms between ack checks",
	   "signal", reader_light, writer_sync, .ack_sleep_ns = SIGNAL_ACK_SLEEP_NS);
OUR_SCHEME(rcu_signal_spin, "signal-spin", "ours",
	   "compiler barrier in the reader; writer signals every reader, spins for the acks",
	   "signal", reader_light, writer_sync);
OUR_SCHEME(rcu_pe, "membarrier-private-expedited", "ours",
	   "compiler barrier in the reader; writer MEMBARRIER_CMD_PRIVATE_EXPEDITED",
	   "membarrier-private-expedited", reader_light, writer_sync);
OUR_SCHEME(rcu_global, "membarrier-global", "ours",
	   "compiler barrier in the reader; writer MEMBARRIER_CMD_GLOBAL (non-expedited)",
	   "membarrier-global", reader_light, writer_sync);
OUR_SCHEME(rcu_mprotect, "mprotect", "ours",
	   "compiler barrier in the reader; writer's mprotect TLB shootdown",
	   "mprotect", reader_light, writer_sync);
OUR_SCHEME(rcu_v5e, "seed-v5-expedited", "ours",
	   "compiler barrier in the reader; writer the 2010 v5 expedited call",
	   "seed-v5-expedited", reader_light, writer_sync);
OUR_SCHEME(rcu_v1, "seed-v1-ipi-all", "ours",
	   "compiler barrier in the reader; writer the 2010 v1 IPI-all call",
	   "seed-v1-ipi-all", reader_light, writer_sync);
OUR_SCHEME(rcu_v5s, "seed-v5-sched", "ours",
	   "compiler barrier in the reader; writer the 2010 v5 non-expedited call",
	   "seed-v5-sched", reader_light, writer_sync);
OUR_SCHEME(rcu_qsbr, "qsbr", "ours",
	   "quiescent-state reporting every 1024 reads: no read-side cost (upper bound)",
	   NULL, reader_qsbr, writer_qsbr);
OUR_SCHEME(rcu_broken_no_wait, "broken-no-wait", "broken",
	   "TEST ONLY: writer frees without waiting for a grace period",
	   NULL, reader_light, writer_nowait);
OUR_SCHEME(rcu_broken_no_barrier, "broken-no-barrier", "broken",
	   "TEST ONLY: signal scheme whose handler has no fence",
	   "signal-nofence", reader_light, writer_sync);

/* Placeholders so liburcu rows are skipped with a reason, not unknown. */
#ifdef HAVE_LIBURCU
extern const struct rcu_scheme rcu_liburcu_mb, rcu_liburcu_signal,
	rcu_liburcu_memb, rcu_liburcu_qsbr;
#else
#define NO_URCU(ident, cli)						\
	static const struct rcu_scheme ident = {			\
		.name = cli,						\
		.family = "liburcu",					\
		.summary = "liburcu's flavor (not built)",		\
		.probe = rcu_no_liburcu,				\
	}
NO_URCU(rcu_liburcu_mb, "liburcu-mb");
NO_URCU(rcu_liburcu_signal, "liburcu-signal");
NO_URCU(rcu_liburcu_memb, "liburcu-memb");
NO_URCU(rcu_liburcu_qsbr, "liburcu-qsbr");
#endif

const struct rcu_scheme *const rcu_schemes[] = {
	&rcu_mb,
	&rcu_signal,
	&rcu_signal_spin,
	&rcu_pe,
	&rcu_global,
	&rcu_mprotect,
	&rcu_v5e,
	&rcu_v1,
	&rcu_v5s,
	&rcu_qsbr,
	&rcu_liburcu_mb,
	&rcu_liburcu_signal,
	&rcu_liburcu_memb,
	&rcu_liburcu_qsbr,
	&rcu_broken_no_wait,
	&rcu_broken_no_barrier,
};

const size_t nr_rcu_schemes = sizeof(rcu_schemes) / sizeof(rcu_schemes[0]);

const struct rcu_scheme *rcu_scheme_find(const char *name)
{
	for (size_t i = 0; i < nr_rcu_schemes; i++)
		if (!strcmp(rcu_schemes[i]->name, name))
			return rcu_schemes[i];
	return NULL;
}

const char *rcu_scheme_names(int with_broken)
{
	static char buf[2][1024];
	char *b = buf[!!with_broken];

	if (!b[0]) {
		for (size_t i = 0; i < nr_rcu_schemes; i++) {
			if (!with_broken && rcu_scheme_is_broken(rcu_schemes[i]))
				continue;
			if (b[0])
				strcat(b, ", ");
			strcat(b, rcu_schemes[i]->name);
		}
	}
	return b;
}

int rcu_scheme_probe(const struct rcu_scheme *s, char *reason, size_t len)
{
	if (len)
		reason[0] = '\0';
	return s->probe ? s->probe(s, reason, len) : 0;
}

/* ---- the runner ---------------------------------------------------------- */

struct rcu_threads {
	struct rcu_run *r;
	pthread_barrier_t go;
};

/* Thread i: readers first, then writers. */
static void rcu_thread_init(void *arg, int i)
{
	struct rcu_threads *g = arg;

	if (i < g->r->nreaders && g->r->s->reader_init)
		g->r->s->reader_init(g->r, i);
}

static void rcu_thread(void *arg, int i)
{
	struct rcu_threads *g = arg;
	struct rcu_run *r = g->r;

	pthread_barrier_wait(&g->go);
	if (atomic_load(&r->stop))
		return;
	if (i >= r->nreaders) {
		r->s->writer(r, i - r->nreaders);
		atomic_fetch_add(&r->writers_done, 1);
	} else {
		struct timespec ts = { 0, 50000 };

		r->s->reader(r, i);
		/*
		 * Stay alive until every writer is out of synchronize: a
		 * writer may still be waiting for this thread's signal ack.
		 */
		while (atomic_load(&r->writers_done) < r->nwriters)
			nanosleep(&ts, NULL);
	}
}

int rcu_run_once(const struct rcu_scheme *s, int nreaders, int nwriters,
		 hwloc_topology_t topo, const int *cpus, double duration_s,
		 uint64_t cs_ns, uint64_t writer_delay_ns, struct rcu_result *res, char *reason, size_t len)
{
	struct rcu_run r;
	int n = nreaders + nwriters, ret = -1;
	struct rcu_threads g = { .r = &r };
	struct pinned p;
	struct timespec ts;
	uint64_t t0;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.nreaders = nreaders;
	r.nwriters = nwriters;
	r.cs_ns = cs_ns;
	r.writer_delay_ns = writer_delay_ns;
	r.readers = aligned_alloc(64, sizeof(*r.readers) * (size_t)(nreaders ? nreaders : 1));
	r.writers = aligned_alloc(64, sizeof(*r.writers) * (size_t)(nwriters ? nwriters : 1));
	if (!r.readers || !r.writers)
		die("out of memory");
	memset(r.readers, 0, sizeof(*r.readers) * (size_t)(nreaders ? nreaders : 1));
	memset(r.writers, 0, sizeof(*r.writers) * (size_t)(nwriters ? nwriters : 1));
	for (int i = 0; i < nwriters; i++)
		r.writers[i].seq = (uint64_t)(i + 1) << 48;
	atomic_store(&r.gp, rcu_obj_new(NULL));

	if (s->setup && s->setup(&r, reason, len))
		goto out;
	pthread_barrier_init(&g.go, NULL, (unsigned)n + 1);
	if (spawn_pinned(&p, topo, cpus, n, rcu_thread_init, rcu_thread, &g, reason, len)) {
		pthread_barrier_destroy(&g.go);
		goto out;
	}
	r.reader_th = p.th;
	if (s->attach && s->attach(&r)) {
		snprintf(reason, len, "%s: attach failed", s->name);
		atomic_store(&r.stop, 1);
	} else {
		ret = 0;
	}
	t0 = now_ns();
	pthread_barrier_wait(&g.go);
	if (!ret) {
		ts.tv_sec = (time_t)duration_s;
		ts.tv_nsec = (long)((duration_s - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		atomic_store(&r.stop, 1);
	}
	res->ns = now_ns() - t0;
	pinned_join(&p);
	pthread_barrier_destroy(&g.go);
	if (!ret && atomic_load(&our_err) && s->setup == our_setup) {
		snprintf(reason, len, "write-side barrier failed: %s",
			 strerror(-atomic_load(&our_err)));
		ret = -1;
	}
	for (int i = 0; i < nreaders; i++) {
		res->reads += atomic_load(&r.readers[i].reads);
		res->violations += r.readers[i].violations;
	}
	for (int i = 0; i < nwriters; i++) {
		res->writes += r.writers[i].writes;
		if (r.writers[i].peak_quarantined > res->peak_quarantined)
			res->peak_quarantined = r.writers[i].peak_quarantined;
	}
out:
	if (s->teardown)
		s->teardown(&r);
	for (int i = 0; i < nwriters; i++)
		quarantine_drain(&r.writers[i]);
	free(atomic_load(&r.gp));
	free(r.readers);
	free(r.writers);
	return ret;
}
