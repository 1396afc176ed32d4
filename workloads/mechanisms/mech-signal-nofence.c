// SPDX-License-Identifier: MIT
/*
 * A deliberately broken signal mechanism, for the rcu torture's own test
 * (scheme broken-no-barrier): the handler acknowledges with a plain store
 * and no fence, so a writer that trusts the ack may free an object a reader
 * still reads. Its own signal, so it never meets `signal`'s. Not in the
 * registry: only the rcu scheme table names it.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "barrier.h"
#include "mech.h"

#define NOFENCE_SIGNAL (SIGRTMIN + 3)
#define NOFENCE_MAX 64	/* team threads signalled */

static _Atomic unsigned long *nofence_acks;
static const struct mech_team *nofence_team;
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
	(void)m;
	return mech_signal_install(NOFENCE_SIGNAL, nofence_handler, reason, len);
}

static void nofence_thread_init(const struct mechanism *m, int index)
{
	(void)m;
	nofence_slot = index;
}

static int nofence_attach(const struct mechanism *m, const struct mech_team *t)
{
	(void)m;
	free((void *)nofence_acks);
	nofence_acks = calloc((size_t)(t->nthreads > 0 ? t->nthreads : 1),
			      sizeof(*nofence_acks));
	if (!nofence_acks)
		return -ENOMEM;
	nofence_team = t;
	return 0;
}

static void nofence_detach(const struct mechanism *m)
{
	(void)m;
	nofence_team = NULL;
}

static void nofence_teardown(const struct mechanism *m)
{
	(void)m;
	free((void *)nofence_acks);
	nofence_acks = NULL;
}

static int nofence_barrier(const struct mechanism *m)
{
	unsigned long want[NOFENCE_MAX];
	int n;

	(void)m;
	if (!nofence_team)
		return 0;
	n = nofence_team->nthreads < NOFENCE_MAX ? nofence_team->nthreads : NOFENCE_MAX;
	for (int i = 0; i < n; i++) {
		int e;

		want[i] = atomic_load_explicit(&nofence_acks[i], memory_order_relaxed) + 1;
		e = pthread_kill(nofence_team->threads[i], NOFENCE_SIGNAL);
		if (e)
			return -e;
	}
	for (int i = 0; i < n; i++) {
		unsigned int spins = 0;

		/* Spin while the readers run on other CPUs; yield if oversubscribed. */
		while (atomic_load_explicit(&nofence_acks[i], memory_order_relaxed) < want[i]) {
			if (++spins > 1024)
				sched_yield();
			else
				cpu_relax();
		}
	}
	return 0;
}

const struct mechanism mech_signal_nofence = {
	.name = "signal-nofence",
	.caps = MC_PROCESS_WIDE | MC_IPI | MC_REGISTER,
	.summary = "signal handshake whose handler has no fence (test only)",
	.setup = nofence_setup,
	.thread_init = nofence_thread_init,
	.attach = nofence_attach,
	.detach = nofence_detach,
	.barrier = nofence_barrier,
	.teardown = nofence_teardown,
};
