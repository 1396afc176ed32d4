// SPDX-License-Identifier: MIT
/*
 * One attempt of one case of doctor's lazy-mm probe, in a fresh process
 * (doctor-lazy.c explains the paths and judges the attempts): the threads
 * that leave CPU B holding the process's mm lazily by each path, a spinner
 * back on B, and the barriers whose IPIs on B are counted segment by
 * segment while the spinner has not lost its CPU.
 */
#include "config.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "doctor-lazy.h"
#include "experiment.h"
#include "ipicount.h"
#include "paths.h"
#include "register-child.h"
#include "results.h"
#include "util.h"

#ifndef MEMBARRIER_CMD_GET_REGISTRATIONS
#define MEMBARRIER_CMD_GET_REGISTRATIONS (1 << 9)
#endif

struct lazy_ctx {
	int a, b;
	_Atomic int stop, spinning;
	_Atomic uint64_t first_gap;	/* when the spinner first lost B, or 0 */
	_Atomic uint64_t beat;		/* the spinner's latest clock read */
	_Atomic int rebase;		/* the spinner takes its switch count anew */
	int wake[2];
	char page[4096];
};

static void *exit_on_b(void *arg)
{
	struct lazy_ctx *c = arg;

	if (doctor_pin_to(c->b) || sched_getcpu() != c->b)
		return (void *)1;
	/* Use the mm from user space on B, then exit: B's idle task keeps it. */
	memset(c->page, 1, sizeof(c->page));
	return NULL;
}

static void *sleep_on_a(void *arg)
{
	struct lazy_ctx *c = arg;
	char ch;

	doctor_pin_to(c->a);
	if (read(c->wake[0], &ch, 1) < 0)
		return NULL;
	return NULL;
}

/* Context switches away from the calling thread, or -1. */
static long thread_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * A gap in the clock reads is a break only if the spinner was switched
 * out during it: in a guest whose vCPUs outnumber the host's CPUs (QEMU
 * TCG), the vCPU running the spinner stops for milliseconds while no
 * other task runs on B, which is not the break that refreshes B's state.
 */
static void *spin_on_b(void *arg)
{
	struct lazy_ctx *c = arg;
	uint64_t last, t;
	long sw0;

	if (doctor_pin_to(c->b))
		return (void *)1;
	while (sched_getcpu() != c->b)
		;
	sw0 = thread_switches();
	last = now_ns();
	atomic_store(&c->spinning, 1);
	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		t = now_ns();
		if (atomic_load_explicit(&c->rebase, memory_order_relaxed)) {
			sw0 = thread_switches();
			atomic_store(&c->rebase, 0);
		}
		if (t - last > LAZY_GAP_NS && !atomic_load_explicit(&c->first_gap, memory_order_relaxed) &&
		    (sw0 < 0 || thread_switches() != sw0))
			atomic_store(&c->first_gap, last);
		atomic_store_explicit(&c->beat, t, memory_order_release);
		last = t;
	}
	return NULL;
}

static int lazy_register(struct lazy_res *r)
{
	if (!sys_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0))
		return 0;
	snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED: %s", strerror(errno));
	return -1;
}

/* One attempt of one case, in a fresh process pinned to CPU a. */
static void lazy_case(int which, int a, int b, int ncpus, struct lazy_res *r)
{
	static struct lazy_ctx c;
	struct ipicount ic;
	pthread_t th, sleeper;
	uint64_t *idle0 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t *idle1 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t *tot0 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t *tot1 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t cnt0, cnt1, ipis = 0, gap, t_seg, t_valid = 0, t_start;
	long regs, n = 0;
	int counted, opened = 0, e;
	void *ret;

	c.a = a;
	c.b = b;
	r->idle = 1;
	if (doctor_pin_to(a)) {
		snprintf(r->error, sizeof(r->error), "cannot pin to CPU %d: %s", a, strerror(errno));
		goto out_free;
	}
	regs = membarrier_query() & MEMBARRIER_CMD_GET_REGISTRATIONS ?
		       sys_membarrier(MEMBARRIER_CMD_GET_REGISTRATIONS, 0, 0) : 0;
	if (regs > 0 && (regs & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED)) {
		snprintf(r->error, sizeof(r->error), "the process was already registered (0x%lx)", regs);
		goto out_free;
	}
	/* Path B registers first, then leaves B lazily; the others after. */
	if (which == CASE_LAZY_EXIT && lazy_register(r))
		goto out;
	if (which == CASE_LAZY_MAIN) {
		/* The main thread itself on B, then back on A: B keeps the mm. */
		int on_b = !doctor_pin_to(b) && sched_getcpu() == b;

		memset(c.page, 1, sizeof(c.page));
		if (!on_b || doctor_pin_to(a)) {
			snprintf(r->error, sizeof(r->error), "the main thread could not run on CPU %d and return", b);
			goto out;
		}
	} else if (which != CASE_CONTROL) {
		if (pthread_create(&th, NULL, exit_on_b, &c) || pthread_join(th, &ret) || ret) {
			snprintf(r->error, sizeof(r->error), "no thread could run on CPU %d", b);
			goto out;
		}
	}
	if (which != CASE_CONTROL) {
		/*
		 * The idle share of the time accounted to B, not of the
		 * wall-clock window: a vCPU of a guest whose vCPUs outnumber
		 * the host's CPUs (QEMU TCG) loses ticks, and an idle one
		 * read 32-109% idle over 100 ms by the clock, 100% this way.
		 */
		doctor_stat_ticks(idle0, tot0, ncpus);
		doctor_sleep_ms(LAZY_WINDOW_MS);
		if (!doctor_stat_ticks(idle1, tot1, ncpus))
			r->idle = tot1[b] > tot0[b] ?
					  (double)(idle1[b] - idle0[b]) / (double)(tot1[b] - tot0[b]) : 0;
	}
	if (which == CASE_LAZY_MULTI) {
		if (pipe(c.wake) || pthread_create(&sleeper, NULL, sleep_on_a, &c)) {
			snprintf(r->error, sizeof(r->error), "cannot start the sleeping thread");
			goto out;
		}
		doctor_sleep_ms(20);
	}
	if (which != CASE_LAZY_EXIT && lazy_register(r))
		goto out;
	e = pthread_create(&th, NULL, spin_on_b, &c);
	if (e) {	/* pthread_create returns its error; errno is not set */
		snprintf(r->error, sizeof(r->error), "cannot start the spinning thread: %s", strerror(e));
		goto out;
	}
	while (!atomic_load(&c.spinning))
		;
	/*
	 * The counters are opened only now, with the spinner on B: opened
	 * before the window, the lazily held state rarely survived to the
	 * barriers on a 6.18 guest (docs/FINDINGS.md, "What mbbench doctor
	 * checks").
	 */
	ipicount_open(&ic, ncpus, IPI_SRC_AUTO, &b, 1);
	opened = 1;
	snprintf(r->src, sizeof(r->src), "%s",
		 ic.afd ? "csd_queue_cpu (membarrier IPIs)" :
		 ic.src == IPI_SRC_TRACEPOINT ? "call_function tracepoints" : "the function-call row of /proc/interrupts");
	/*
	 * Opening them interrupts the spinner for a while, also later (work
	 * queued on B; in a TCG guest it ran within the first 20 barriers):
	 * its breaks count from here.
	 */
	doctor_sleep_ms(LAZY_SETTLE_MS);
	atomic_store(&c.rebase, 1);
	for (t_start = now_ns(); atomic_load(&c.rebase) && now_ns() - t_start < LAZY_WAIT_NS;)
		;
	atomic_store(&c.first_gap, 0);
	t_start = t_seg = now_ns();
	counted = !ipicount_read_cpu(&ic, b, &cnt0);
	while (n < LAZY_BARRIERS && ((double)(now_ns() - t_start) / 1e9 < LAZY_LOOP_S ||
					 (r->valid < LAZY_MIN_VALID &&
					  (double)(now_ns() - t_start) / 1e9 < LAZY_LOOP_MAX_S))) {
		for (int i = 0; i < LAZY_SEGMENT; i++, n++)
			if (sys_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0)) {
				snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_GLOBAL_EXPEDITED: %s",
					 strerror(errno));
				break;
			}
		if (r->error[0])
			break;
		counted = counted && !ipicount_read_cpu(&ic, b, &cnt1);
		/*
		 * A break seen by the spinner, or one it may still be in: wait
		 * for its next beat, which comes after it noted a switch.
		 */
		gap = atomic_load(&c.first_gap);
		if (!gap && now_ns() - atomic_load(&c.beat) > LAZY_GAP_NS) {
			uint64_t w = now_ns();

			while (atomic_load(&c.beat) < w && now_ns() - w < LAZY_WAIT_NS)
				;
			gap = atomic_load(&c.first_gap) || atomic_load(&c.beat) < w;
		}
		if (gap)
			break;	/* this segment may have met another task on B */
		r->valid += LAZY_SEGMENT;
		ipis += cnt1 - cnt0;
		if (r->valid == LAZY_MIN_VALID)
			r->head = (double)ipis / LAZY_MIN_VALID;
		t_valid += now_ns() - t_seg;
		cnt0 = cnt1;
		t_seg = now_ns();
	}
	atomic_store(&c.stop, 1);
	pthread_join(th, NULL);
	if (which == CASE_LAZY_MULTI) {
		if (write(c.wake[1], "", 1) < 0)
			pthread_cancel(sleeper);
		pthread_join(sleeper, NULL);
	}
	if (r->error[0])
		goto out;
	r->barriers = n;
	r->counted = counted;
	if (r->valid) {
		r->us_per_call = (double)t_valid / 1e3 / (double)r->valid;
		r->per_barrier = (double)ipis / (double)r->valid;
	}
	r->done = 1;
out:
	if (opened)
		ipicount_close(&ic);
out_free:
	free(idle0);
	free(idle1);
	free(tot0);
	free(tot1);
}

/* Run one attempt in a child; 0, or -1 when it could not be started. */
int lazy_attempt(int which, int a, int b, int ncpus, struct lazy_res *shared, unsigned alarm_s)
{
	pid_t pid;
	int st;

	memset(shared, 0, sizeof(*shared));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(alarm_s);
		lazy_case(which, a, b, ncpus, shared);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!shared->done && !shared->error[0])
			snprintf(shared->error, sizeof(shared->error), "the measuring process died (status 0x%x)", st);
	return 0;
}

