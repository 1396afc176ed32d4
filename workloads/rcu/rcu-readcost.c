// SPDX-License-Identifier: MIT
/*
 * What one read costs, priced on this host: the unit costs the read-side
 * model (exp-rcu.c) multiplies by each scheme's counts (struct rcu_readside).
 *
 *   - a fence as a reader pays it: a loop that stores to its own line,
 *     fences and loads, less the same loop with a compiler barrier; with
 *     and without the store (a fence waits for the store buffer to drain,
 *     so the pending store is what a reader's fence costs);
 *   - the reader loop itself: the light schemes' reader with no writer;
 *   - one cache line moved between the reader's CPU and the writer's: a
 *     ping-pong on one line, time per hand-over; and as a running reader
 *     pays for it: the publish probe, whose writer moves two lines a
 *     write (the pointer's, the new object's) and nothing else;
 *   - one interruption of a running reader by a mechanism: the gap probe's
 *     clock-reading loop, with the mechanism's barriers against without.
 *
 * Each is measured in rounds and given with its 95% interval over them.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_LIBURCU
#include <urcu/arch.h>
#endif

#include "barrier.h"
#include "pinned.h"
#include "rcu-readcost.h"
#include "stats.h"
#include "util.h"

/* liburcu's full barrier as its read side issues it (mfence on x86-64). */
static inline void urcu_style_mb(void)
{
#ifdef HAVE_LIBURCU
	cmm_smp_mb();
#elif defined(__x86_64__)
	__asm__ __volatile__("mfence" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

struct fence_line {
	_Atomic uint64_t mine __attribute__((aligned(64)));
	_Atomic uint64_t shared __attribute__((aligned(64)));
};

enum { FV_BASE, FV_RMW, FV_MFENCE, FV_BASE_IDLE, FV_RMW_IDLE, FV_MFENCE_IDLE, FV_N };

#define FENCE_LOOP(name, store, fence)						\
	static __attribute__((noinline)) uint64_t name(struct fence_line *f, uint64_t n) \
	{									\
		uint64_t sink = 0;						\
										\
		for (uint64_t i = 0; i < n; i++) {				\
			if (store)						\
				atomic_store_explicit(&f->mine, i, memory_order_relaxed); \
			fence;							\
			sink += atomic_load_explicit(&f->shared, memory_order_relaxed); \
		}								\
		return sink;							\
	}
FENCE_LOOP(fl_base, 1, compiler_barrier())
FENCE_LOOP(fl_rmw, 1, smp_mb_full())
FENCE_LOOP(fl_mfence, 1, urcu_style_mb())
FENCE_LOOP(fl_base_idle, 0, compiler_barrier())
FENCE_LOOP(fl_rmw_idle, 0, smp_mb_full())
FENCE_LOOP(fl_mfence_idle, 0, urcu_style_mb())

static uint64_t (*const fence_loops[FV_N])(struct fence_line *, uint64_t) = {
	fl_base, fl_rmw, fl_mfence, fl_base_idle, fl_rmw_idle, fl_mfence_idle,
};

#define FENCE_ITERS 200000
#define ROUNDS 7

static void cost_of(const double *x, int n, struct rcu_cost *c)
{
	struct summary s;

	summarize(x, n, &s);
	c->mean = s.mean;
	c->ci95 = n > 1 ? s.ci95 : NAN;
}

struct unit_job {
	struct rcu_unit_costs *c;
	struct fence_line *f;
	_Atomic int fences_done;
	_Atomic uint64_t ball __attribute__((aligned(64)));
	uint64_t handovers;
	double round_ns[2][ROUNDS];
};

/* Thread 0 on the reader's CPU times the fences; then both play ping-pong. */
static void unit_body(void *arg, int i)
{
	struct unit_job *j = arg;
	double per[FV_N][ROUNDS];
	volatile uint64_t sink = 0;

	if (i == 0) {
		for (int v = 0; v < FV_N; v++)	/* warm up */
			sink += fence_loops[v](j->f, FENCE_ITERS / 10);
		for (int r = 0; r < ROUNDS; r++) {
			for (int k = 0; k < FV_N; k++) {
				int v = (k + r) % FV_N;	/* rotate: drift spreads evenly */
				uint64_t t0 = now_ns();

				sink += fence_loops[v](j->f, FENCE_ITERS);
				per[v][r] = (double)(now_ns() - t0) / FENCE_ITERS;
			}
		}
		{
			double d[ROUNDS];
			struct { int v, base; struct rcu_cost *out; } m[] = {
				{ FV_RMW, FV_BASE, &j->c->rmw },
				{ FV_MFENCE, FV_BASE, &j->c->mfence },
				{ FV_RMW_IDLE, FV_BASE_IDLE, &j->c->rmw_idle },
				{ FV_MFENCE_IDLE, FV_BASE_IDLE, &j->c->mfence_idle },
			};

			for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
				for (int r = 0; r < ROUNDS; r++)
					d[r] = per[m[k].v][r] - per[m[k].base][r];
				cost_of(d, ROUNDS, m[k].out);
			}
		}
		atomic_store(&j->fences_done, 1);
	} else {
		/* Idle, not spinning, while the fences are timed. */
		struct timespec ts = { 0, 100000 };

		while (!atomic_load(&j->fences_done))
			nanosleep(&ts, NULL);
	}
	/* Ping-pong: thread i moves the ball from parity i to the other. */
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns(), n = j->handovers;

		for (uint64_t k = (uint64_t)i; k < n; k += 2) {
			while (atomic_load_explicit(&j->ball, memory_order_acquire) != (uint64_t)r * n + k)
				cpu_relax();
			atomic_store_explicit(&j->ball, (uint64_t)r * n + k + 1, memory_order_release);
		}
		/* Both finished the round: the ball is at its end. */
		while (atomic_load_explicit(&j->ball, memory_order_acquire) < (uint64_t)(r + 1) * n)
			cpu_relax();
		j->round_ns[i][r] = (double)(now_ns() - t0) / (double)n;
	}
	(void)sink;
}

int rcu_unit_costs_measure(hwloc_topology_t topo, int reader_cpu, int writer_cpu,
			   struct rcu_unit_costs *c, char *reason, size_t len)
{
	struct unit_job *j = aligned_alloc(64, sizeof(*j));
	struct fence_line *f = aligned_alloc(64, sizeof(*f));
	int cpus[2] = { reader_cpu, writer_cpu };
	struct pinned p;

	if (!j || !f) {
		free(j);
		free(f);
		snprintf(reason, len, "out of memory");
		return -1;
	}
	memset(j, 0, sizeof(*j));
	memset(f, 0, sizeof(*f));
	memset(c, 0, sizeof(*c));
	j->c = c;
	j->f = f;
	j->handovers = 20000;
	if (spawn_pinned(&p, topo, cpus, 2, NULL, unit_body, j, reason, len)) {
		free(j);
		free(f);
		return -1;
	}
	pinned_join(&p);
	/* The round's time is the later thread's: it saw the last hand-over. */
	{
		double x[ROUNDS];

		for (int r = 0; r < ROUNDS; r++)
			x[r] = j->round_ns[0][r] > j->round_ns[1][r] ? j->round_ns[0][r] : j->round_ns[1][r];
		cost_of(x, ROUNDS, &c->line);
	}
	free(j);
	free(f);
	return 0;
}

int rcu_line_paid_measure(hwloc_topology_t topo, int reader_cpu, int writer_cpu, double secs,
			  int repeats, struct rcu_unit_costs *c, char *reason, size_t len)
{
	int cpus[2] = { reader_cpu, writer_cpu };
	double *x = xcalloc((size_t)repeats, sizeof(double));
	int n = 0;

	for (int k = 0; k < repeats; k++) {
		struct rcu_result rr;

		if (rcu_run_once(&rcu_publish_probe, 1, 1, topo, cpus, secs, 0, 0, NULL, &rr, reason, len)) {
			free(x);
			return -1;
		}
		if (rr.reads && rr.writes)
			x[n++] = ((double)rr.ns / (double)rr.reads - c->loop.mean) /
				 ((double)rr.writes / (double)rr.reads) / 2;
	}
	if (!n) {
		snprintf(reason, len, "the publish probe's writer published nothing");
		free(x);
		return -1;
	}
	cost_of(x, n, &c->line_paid);
	free(x);
	return 0;
}

/* Reads of one reader alone, ns per read over `repeats` runs. */
int rcu_solo_measure(const struct rcu_scheme *s, hwloc_topology_t topo, int reader_cpu,
		     double secs, int repeats, struct rcu_cost *ns_per_read,
		     char *reason, size_t len)
{
	double *x = xcalloc((size_t)repeats, sizeof(double));
	int n = 0;

	for (int k = 0; k < repeats; k++) {
		struct rcu_result rr;

		if (rcu_run_once(s, 1, 0, topo, &reader_cpu, secs, 0, 0, NULL, &rr, reason, len)) {
			free(x);
			return -1;
		}
		if (rr.reads)
			x[n++] = (double)rr.ns / (double)rr.reads;
	}
	if (!n) {
		snprintf(reason, len, "%s: no read completed alone", s->name);
		free(x);
		return -1;
	}
	cost_of(x, n, ns_per_read);
	free(x);
	return 0;
}

/*
 * What one barrier of mechanism `mech` takes from a reader running on
 * another CPU: the gap probe with the mechanism's barriers (one every
 * RCU_PROBE_SPACING_NS) against the probe alone, pair by pair.
 */
int rcu_stolen_measure(const char *mech, hwloc_topology_t topo, int reader_cpu, int writer_cpu,
		       double secs, int repeats, struct rcu_cost *ns_per_barrier,
		       char *reason, size_t len)
{
	struct rcu_scheme probe = rcu_gap_probe;
	int cpus[2] = { reader_cpu, writer_cpu };
	double *x = xcalloc((size_t)repeats, sizeof(double));
	int n = 0;

	probe.mech = mech;
	if (rcu_probe_mech(&probe, reason, len)) {
		free(x);
		return -1;
	}
	for (int k = 0; k < repeats; k++) {
		struct rcu_result alone, with;

		if (rcu_run_once(&probe, 1, 0, topo, cpus, secs, 0, 0, NULL, &alone, reason, len) ||
		    rcu_run_once(&probe, 1, 1, topo, cpus, secs, 0, RCU_PROBE_SPACING_NS, NULL, &with,
				 reason, len)) {
			free(x);
			return -1;
		}
		if (with.writes && alone.ns && with.ns)
			x[n++] = ((double)with.stolen_ns -
				  (double)alone.stolen_ns * (double)with.ns / (double)alone.ns) /
				 (double)with.writes;
	}
	if (!n) {
		snprintf(reason, len, "%s: the probe's writer forced no barrier", mech);
		free(x);
		return -1;
	}
	cost_of(x, n, ns_per_barrier);
	free(x);
	return 0;
}

void rcu_read_model(const struct rcu_readside *rs, const struct rcu_unit_costs *c,
		    double solo_ns, double stolen_ns, double writes_per_read,
		    struct rcu_read_model *m)
{
	m->loop_ns = c->loop.mean;
	m->fence_ns = rs->rmw * c->rmw.mean + rs->rmw_idle * c->rmw_idle.mean +
		      rs->mfence * c->mfence.mean + rs->mfence_idle * c->mfence_idle.mean;
	m->solo_ns = m->loop_ns + m->fence_ns;
	m->transfer_ns = writes_per_read * rs->lines * c->line_paid.mean;
	m->interrupt_ns = rs->interrupts > 0 ? writes_per_read * rs->interrupts * stolen_ns : 0;
	m->read_ns = solo_ns + m->transfer_ns + m->interrupt_ns;
}
