// SPDX-License-Identifier: MIT
/*
 * The signal scheme of liburcu's urcu-signal flavor: the caller sends a
 * signal to every other thread of the team; each handler runs a full fence
 * and acknowledges; the caller waits for every acknowledgement. Every thread
 * is interrupted, running or blocked, which is the cost sys_membarrier was
 * proposed to remove (seed v5: 1251 writes in 10 s against 503790).
 *
 * A real-time signal is used so that this scheme never collides with
 * liburcu's SIGUSR1 when both run in one process.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "barrier.h"
#include "mech.h"

#define MB_SIGNAL (SIGRTMIN + 2)

static __thread int my_slot = -1;
static _Atomic unsigned long *acks;	/* per team thread */
static int acks_len;
static _Atomic unsigned long acks_total;
static const struct mech_team *team;
/* Writers take turns, as liburcu's synchronize_rcu() does (rcu_gp_lock). */
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
/* 0: the caller spins for the acks; else it sleeps this long between checks. */
static _Atomic uint64_t ack_sleep_ns;

void mech_signal_ack_wait(uint64_t sleep_ns)
{
	atomic_store(&ack_sleep_ns, sleep_ns);
}

static void mb_signal_handler(int sig)
{
	(void)sig;
	smp_mb_full();
	if (my_slot >= 0 && my_slot < acks_len)
		atomic_fetch_add_explicit(&acks[my_slot], 1,
					  memory_order_relaxed);
	atomic_fetch_add_explicit(&acks_total, 1, memory_order_release);
	smp_mb_full();
}

int mech_signal_install(int sig, void (*handler)(int), char *reason, size_t len)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0) {
		snprintf(reason, len, "sigaction: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int sig_setup(const struct mechanism *m, char *reason, size_t len)
{
	(void)m;
	return mech_signal_install(MB_SIGNAL, mb_signal_handler, reason, len);
}

static void sig_thread_init(const struct mechanism *m, int index)
{
	(void)m;
	my_slot = index;
}

static int sig_attach(const struct mechanism *m, const struct mech_team *t)
{
	(void)m;
	free((void *)acks);
	acks = calloc((size_t)(t->nthreads > 0 ? t->nthreads : 1),
		      sizeof(*acks));
	if (!acks)
		return -ENOMEM;
	acks_len = t->nthreads;
	team = t;
	return 0;
}

static void sig_detach(const struct mechanism *m)
{
	(void)m;
	team = NULL;
}

static int sig_barrier(const struct mechanism *m)
{
	unsigned long target;
	unsigned int spins = 0;
	pthread_t self = pthread_self();
	uint64_t sleep_ns = atomic_load(&ack_sleep_ns);
	int sent = 0;

	(void)m;
	smp_mb_full();
	if (!team || team->nthreads == 0)
		return 0;
	pthread_mutex_lock(&sig_lock);
	target = atomic_load_explicit(&acks_total, memory_order_relaxed);
	for (int i = 0; i < team->nthreads; i++) {
		int err;

		if (pthread_equal(team->threads[i], self))
			continue;
		err = pthread_kill(team->threads[i], MB_SIGNAL);
		if (err) {
			pthread_mutex_unlock(&sig_lock);
			return -err;
		}
		sent++;
	}
	target += (unsigned long)sent;
	/*
	 * Either sleep between checks, as urcu-signal does (poll(NULL, 0, 1)),
	 * or spin while the targets run on other CPUs and yield if
	 * oversubscribed.
	 */
	while (atomic_load_explicit(&acks_total, memory_order_acquire) < target) {
		if (sleep_ns) {
			struct timespec ts = {
				(time_t)(sleep_ns / 1000000000u),
				(long)(sleep_ns % 1000000000u)
			};

			nanosleep(&ts, NULL);
		} else if (++spins > 4096)
			sched_yield();
		else
			cpu_relax();
	}
	pthread_mutex_unlock(&sig_lock);
	smp_mb_full();
	return 0;
}

unsigned long mech_signal_acks(int index)
{
	if (!acks || index < 0 || index >= acks_len)
		return 0;
	return atomic_load(&acks[index]);
}

const struct mechanism mech_signal = {
	.name = "signal",
	.caps = MC_PROCESS_WIDE | MC_IPI | MC_REGISTER,
	.summary = "signal every other thread; handlers fence and ack (urcu-signal)",
	.setup = sig_setup,
	.thread_init = sig_thread_init,
	.attach = sig_attach,
	.detach = sig_detach,
	.barrier = sig_barrier,
};
