// SPDX-License-Identifier: MIT
/*
 * Store buffering (SB) under each barrier pairing. It proves, on the host at
 * hand, that every heavy barrier orders memory as claimed: A's barrier must
 * order A's store before A's load *and*, through the IPI or signal it sends,
 * B's store before B's load, although B only has a compiler barrier. The
 * no-barrier control proves that the test can see a reordering at all.
 *
 * Both threads meet at a counter they both increment (a two-party barrier),
 * then each waits a small random number of loop turns, so that over many
 * trials their stores and loads overlap at every relative offset.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "barrier.h"
#include "litmus.h"
#include "util.h"

/* The controls and fences; the heavy mechanisms follow them. */
static const struct litmus_pairing fixed[LITMUS_NFIXED] = {
	{ "none", LS_COMPILER, LS_COMPILER, NULL, 0 },
	{ "fence-one-side", LS_FENCE, LS_COMPILER, NULL, 0 },
	{ "fence-both", LS_FENCE, LS_FENCE, NULL, 1 },
};

int litmus_heavy(const struct mechanism *m)
{
	return mech_has(m, 0, MC_FENCE_LIKE);
}

const char *litmus_side_name(enum litmus_side s, const struct mechanism *m)
{
	return s == LS_FENCE ? "fence" : s == LS_MECH ? m->name : "compiler";
}

size_t litmus_pairings(struct litmus_pairing *out)
{
	size_t n = 0;

	for (size_t i = 0; i < LITMUS_NFIXED; i++)
		out[n++] = fixed[i];
	for (size_t i = 0; i < nr_mechanisms; i++)
		if (litmus_heavy(mechanisms[i]))
			out[n++] = (struct litmus_pairing){
				mechanisms[i]->name, LS_MECH, LS_COMPILER, mechanisms[i], 1
			};
	return n;
}

#define JITTER_MASK 63u	/* up to 64 loop turns before a side runs */

static struct {
	_Atomic unsigned long x __attribute__((aligned(64)));
	_Atomic unsigned long y __attribute__((aligned(64)));
	_Atomic uint64_t arrive __attribute__((aligned(64)));
	_Atomic int r1 __attribute__((aligned(64)));
	_Atomic int stop;
	_Atomic int err;
} sb;

struct side_arg {
	const struct litmus_pairing *p;
	int cpu;
	int (*bind)(void *arg, int cpu);
	void *bind_arg;
	pthread_barrier_t *ready;
	sem_t *start;		/* posted once both threads exist */
	_Atomic int *abort;	/* set: a thread could not be created, return */
	_Atomic int bind_failed;
	uint64_t trials;	/* B: the outcome counts */
	uint64_t deadline;
	struct litmus_counts *out;
};

static inline uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Wait until litmus_run has both threads: 0 to go on, -1 to return at once
 * (the other one could not be created, so the barrier would never fill).
 */
static int await_start(struct side_arg *a)
{
	while (sem_wait(a->start) && errno == EINTR)
		;
	return atomic_load(a->abort) ? -1 : 0;
}

/* Both sides arrive; each leaves once the other has arrived too. */
static inline void meet(uint64_t round)
{
	atomic_fetch_add_explicit(&sb.arrive, 1, memory_order_acq_rel);
	while (atomic_load_explicit(&sb.arrive, memory_order_acquire) < 2 * round)
		cpu_relax();
}

static inline void jitter(uint32_t *seed)
{
	for (unsigned int i = xorshift(seed) & JITTER_MASK; i; i--)
		compiler_barrier();
}

static inline void side_barrier(enum litmus_side s, const struct mechanism *m)
{
	switch (s) {
	case LS_COMPILER:
		compiler_barrier();
		break;
	case LS_FENCE:
		smp_mb_full();
		break;
	case LS_MECH: {
		int e = (m->barrier)(m);

		if (e)
			atomic_store(&sb.err, e);
		break;
	}
	}
}

static void *side_a(void *arg)
{
	struct side_arg *a = arg;
	const struct litmus_pairing *p = a->p;
	uint32_t seed = 0x9e3779b9u;
	uint64_t round = 0;

	if (await_start(a))
		return NULL;
	if (a->bind(a->bind_arg, a->cpu))
		atomic_store(&a->bind_failed, 1);
	pthread_barrier_wait(a->ready);	/* bound */
	pthread_barrier_wait(a->ready);	/* go */
	for (;;) {
		int r1;

		meet(++round * 2 - 1);
		if (atomic_load_explicit(&sb.stop, memory_order_relaxed))
			break;
		jitter(&seed);
		atomic_store_explicit(&sb.x, 1, memory_order_relaxed);
		side_barrier(p->a, p->mech);
		r1 = (int)atomic_load_explicit(&sb.y, memory_order_relaxed);
		atomic_store_explicit(&sb.r1, r1, memory_order_relaxed);
		meet(round * 2);
	}
	return NULL;
}

static void *side_b(void *arg)
{
	struct side_arg *a = arg;
	const struct litmus_pairing *p = a->p;
	uint32_t seed = 0x85ebca6bu;
	uint64_t round = 0, n = 0;

	if (await_start(a))
		return NULL;
	if (a->bind(a->bind_arg, a->cpu))
		atomic_store(&a->bind_failed, 1);
	if (p->a == LS_MECH && p->mech->thread_init)
		p->mech->thread_init(p->mech, 0);
	pthread_barrier_wait(a->ready);	/* bound */
	pthread_barrier_wait(a->ready);	/* go */
	for (;;) {
		int r2;

		/* B decides when to stop, between trials. */
		if ((a->trials && n >= a->trials) ||
		    (!a->trials && now_ns() >= a->deadline) ||
		    atomic_load_explicit(&sb.err, memory_order_relaxed))
			atomic_store_explicit(&sb.stop, 1, memory_order_relaxed);
		meet(++round * 2 - 1);
		if (atomic_load_explicit(&sb.stop, memory_order_relaxed))
			break;
		jitter(&seed);
		atomic_store_explicit(&sb.y, 1, memory_order_relaxed);
		side_barrier(p->b, NULL);
		r2 = (int)atomic_load_explicit(&sb.x, memory_order_relaxed);
		meet(round * 2);
		a->out->r[atomic_load_explicit(&sb.r1, memory_order_relaxed) * 2 + r2]++;
		n++;
		atomic_store_explicit(&sb.x, 0, memory_order_relaxed);
		atomic_store_explicit(&sb.y, 0, memory_order_relaxed);
	}
	a->out->trials = n;
	return NULL;
}

int litmus_run(const struct litmus_pairing *p, int cpu_a, int cpu_b,
	       int (*bind)(void *arg, int cpu), void *bind_arg, uint64_t trials,
	       double duration_s, struct litmus_counts *out, char *reason,
	       size_t len)
{
	pthread_barrier_t ready;
	sem_t start;
	_Atomic int abort_run = 0;
	struct side_arg a, b;
	pthread_t ta, tb;
	struct mech_team team;
	int ret = 0, e;
	uint64_t t0;

	memset(out, 0, sizeof(*out));
	memset((void *)&sb, 0, sizeof(sb));
	memset(&a, 0, sizeof(a));
	if (sem_init(&start, 0, 0)) {
		snprintf(reason, len, "sem_init: %s", strerror(errno));
		return -1;
	}
	pthread_barrier_init(&ready, NULL, 3);
	a.p = p;
	a.bind = bind;
	a.bind_arg = bind_arg;
	a.ready = &ready;
	a.start = &start;
	a.abort = &abort_run;
	b = a;
	a.cpu = cpu_a;
	b.cpu = cpu_b;
	b.trials = trials;
	b.out = out;
	/* pthread_create returns its error (errno is not set). */
	e = pthread_create(&tb, NULL, side_b, &b);
	if (!e) {
		e = pthread_create(&ta, NULL, side_a, &a);
		if (e) {	/* B exists: let it return before the barrier */
			atomic_store(&abort_run, 1);
			sem_post(&start);
			pthread_join(tb, NULL);
		}
	}
	if (e) {
		snprintf(reason, len, "cannot start the litmus threads: pthread_create: %s",
			 strerror(e));
		pthread_barrier_destroy(&ready);
		sem_destroy(&start);
		return -1;
	}
	sem_post(&start);
	sem_post(&start);
	pthread_barrier_wait(&ready);
	if (atomic_load(&a.bind_failed) || atomic_load(&b.bind_failed)) {
		snprintf(reason, len, "cannot bind the litmus threads to CPUs %d and %d",
			 cpu_a, cpu_b);
		atomic_store(&sb.stop, 1);
		ret = -1;
	} else if (p->a == LS_MECH && p->mech->attach) {
		team.nthreads = 1;
		team.threads = &tb;
		if (p->mech->attach(p->mech, &team)) {
			snprintf(reason, len, "%s: attach failed", p->mech->name);
			atomic_store(&sb.stop, 1);
			ret = -1;
		}
	}
	t0 = now_ns();
	/* Set before the go barrier: B reads it after. */
	b.deadline = t0 + (uint64_t)(duration_s * 1e9);
	pthread_barrier_wait(&ready);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	out->ns = now_ns() - t0;
	pthread_barrier_destroy(&ready);
	sem_destroy(&start);
	if (p->a == LS_MECH && p->mech->detach && !ret)
		p->mech->detach(p->mech);
	out->err = atomic_load(&sb.err);
	return ret;
}
