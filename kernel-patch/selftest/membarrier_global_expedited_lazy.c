// SPDX-License-Identifier: GPL-2.0
/*
 * MEMBARRIER_CMD_GLOBAL_EXPEDITED must interrupt every CPU that runs a
 * thread of a registered process, also a CPU that kept the process's mm
 * lazily (in its idle task, a kernel thread or an exiting task) with a
 * stale runqueue membarrier state before the thread came.
 *
 * Each case runs in a fresh process (a registration cannot be undone),
 * with the caller on CPU A and, at the end, a spinning thread on CPU B:
 *
 *   control                 register; start the spinner on B.
 *   path_a_thread           a thread runs on B and exits; register (one
 *                           mm user); start the spinner on B.
 *   path_a_main             the main thread runs on B, then moves to A;
 *                           register; start the spinner on B.
 *   path_a_multi_user       as path_a_thread, registering while a second
 *                           thread sleeps on A (the other registration
 *                           path, which scans the runqueues).
 *   path_b_exit             register; a thread runs on B and exits; start
 *                           the spinner on B (B idles in between).
 *   path_b_exit_to_sibling  register; start the spinner on B; a second
 *                           thread runs on B and exits, so that B
 *                           switches from the exiting thread straight
 *                           back to the spinner.
 *
 * Then it issues barriers and counts the function call IPIs that CPU B
 * receives (the CAL row of /proc/interrupts, or the row named "Function
 * call interrupts"), minus the background rate measured just before with
 * the same placement. A case passes with at least 0.75 IPIs per barrier.
 * A CPU the kernel skips gets none in every attempt; a CPU it reaches
 * gets one for each barrier during which the spinner is its current
 * task, which a loaded machine can push below 1. So a case that falls
 * short is run again, ATTEMPTS times at most, and judged on its best.
 *
 * The test pins only its own threads. Another task that runs on CPU B
 * between the steps of a case can replace the lazy mm and hide the bug
 * (a pass on an affected kernel), never fail a kernel that is not
 * affected: so the steps follow each other closely, and each attempt
 * starts DRAIN_MS after the test's last output, so that a runner's
 * pipeline reading it has run and gone back to sleep.
 *
 * It skips (KSFT_SKIP) when not run as root, when membarrier or
 * GLOBAL_EXPEDITED is not available, with fewer than two CPUs to run on,
 * without a function call IPI row in /proc/interrupts, and when the
 * control does not reach CPU B: then the counts cannot tell.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"

#define PASS_MIN 0.75
#define ATTEMPTS 3
#define SETTLE_MS 10	/* for a thread to exit, a CPU to go idle */
#define DRAIN_MS 200	/* for the readers of our output to go to sleep */

enum {
	CASE_CONTROL,
	CASE_A_THREAD,
	CASE_A_MAIN,
	CASE_A_MULTI,
	CASE_B_EXIT,
	CASE_B_SIBLING,
	NR_CASES
};

static const char *const case_names[NR_CASES] = {
	"control", "path_a_thread", "path_a_main", "path_a_multi_user",
	"path_b_exit", "path_b_exit_to_sibling",
};

struct result {
	int done;
	double per_barrier;	/* IPIs per barrier on CPU B */
	double us_per_call;
	double base_per_s;	/* background IPI rate on CPU B */
	char error[128];
};

static int cpu_a, cpu_b;
static long nr_barriers = 1000;
static int stop_spinning;
static int spinning;

static int sys_membarrier(int cmd, unsigned int flags, int cpu_id)
{
	return syscall(__NR_membarrier, cmd, flags, cpu_id);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Pin the calling thread to @cpu and wait until it runs there. */
static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	while (sched_getcpu() != cpu)
		sched_yield();
	return 0;
}

/*
 * The function call IPIs CPU @cpu has received, from /proc/interrupts:
 * the CAL row (x86) or the row named "Function call interrupts" (other
 * architectures that count them per CPU). -1 if there is no such row.
 */
static long long read_ipis(int cpu)
{
	char *line = NULL, *p, *end;
	long long v = -1;
	int col = -1, i = 0;
	size_t len = 0;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return -1;
	if (getline(&line, &len, f) > 0) {
		/* The header names the CPU of each column. */
		for (p = strstr(line, "CPU"); p; p = strstr(p, "CPU"), i++) {
			p += 3;
			if (strtol(p, &end, 10) == cpu)
				col = i;
			p = end;
		}
	}
	while (col >= 0 && getline(&line, &len, f) > 0) {
		p = line + strspn(line, " ");
		if (strncmp(p, "CAL:", 4) &&
		    !strstr(p, "Function call interrupts"))
			continue;
		p = strchr(p, ':');
		if (!p)
			break;
		p++;
		for (i = 0; i <= col; i++) {
			v = strtoll(p, &end, 10);
			if (end == p) {
				v = -1;
				break;
			}
			p = end;
		}
		break;
	}
	free(line);
	fclose(f);
	return v;
}

/* Run on CPU B, touch the mm from user space, and exit. */
static void *exit_on_b(void *arg)
{
	if (pin_self(cpu_b))
		return (void *)1;
	memset(arg, 1, 4096);
	return NULL;
}

static void *sleep_on_a(void *arg)
{
	char c;

	if (pin_self(cpu_a))
		return (void *)1;
	if (read(*(int *)arg, &c, 1) < 0)
		return (void *)1;
	return NULL;
}

static void *spin_on_b(void *arg)
{
	if (pin_self(*(int *)arg))
		return (void *)1;
	__atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop_spinning, __ATOMIC_ACQUIRE))
		;
	return NULL;
}

/* Record why a case could not be set up; returns -1. */
static int set_error(struct result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
	return -1;
}

/* A thread that runs on CPU B and exits there; joined. */
static int thread_exits_on_b(struct result *res)
{
	static char page[4096];
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, exit_on_b, page) ||
	    pthread_join(t, &ret) || ret)
		return set_error(res, "no thread could run on CPU %d", cpu_b);
	return 0;
}

static int start_spinner(pthread_t *t, struct result *res)
{
	if (pthread_create(t, NULL, spin_on_b, &cpu_b))
		return set_error(res, "cannot start the spinning thread");
	while (!__atomic_load_n(&spinning, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	return 0;
}

/* Bring CPU B's runqueue into the state of case @which. */
static int setup_case(int which, pthread_t *spinner, int wake[2],
		      pthread_t *sleeper, struct result *res)
{
	switch (which) {
	case CASE_A_THREAD:
	case CASE_A_MULTI:
		if (thread_exits_on_b(res))
			return -1;
		break;
	case CASE_A_MAIN:
		if (pin_self(cpu_b) || pin_self(cpu_a))
			return set_error(res, "cannot move from CPU %d to %d",
					 cpu_b, cpu_a);
		break;
	}
	/*
	 * CPU B idles with the mm kept lazily. The waits below are short:
	 * another task that runs on B in the meantime replaces the lazy mm.
	 */
	sleep_ms(SETTLE_MS);
	if (which == CASE_A_MULTI) {
		if (pipe(wake) ||
		    pthread_create(sleeper, NULL, sleep_on_a, &wake[0]))
			return set_error(res, "cannot start the sleeping thread");
		sleep_ms(SETTLE_MS);
	}
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0))
		return set_error(res, "register: %s", strerror(errno));
	if (which == CASE_B_EXIT) {
		if (thread_exits_on_b(res))
			return -1;
		sleep_ms(SETTLE_MS);
	}
	if (start_spinner(spinner, res))
		return -1;
	/* B switches from the exiting thread back to the spinner. */
	if (which == CASE_B_SIBLING && thread_exits_on_b(res))
		return -1;
	sleep_ms(SETTLE_MS);
	return 0;
}

/* One case, in a fresh process pinned to CPU A. Fills @res. */
static void run_case(int which, struct result *res)
{
	pthread_t spinner = 0, sleeper;
	int wake[2] = { -1, -1 };
	long long before, after;
	double t0, t, busy;
	long i;

	if (pin_self(cpu_a)) {
		snprintf(res->error, sizeof(res->error),
			 "cannot pin to CPU %d: %s", cpu_a, strerror(errno));
		return;
	}
	if (setup_case(which, &spinner, wake, &sleeper, res))
		goto out;

	/* Background over 0.3 s, the caller busy in user space. */
	before = read_ipis(cpu_b);
	t0 = now_s();
	do
		t = now_s();
	while (t - t0 < 0.3);
	after = read_ipis(cpu_b);
	res->base_per_s = (after - before) / (t - t0);

	before = read_ipis(cpu_b);
	t0 = now_s();
	for (i = 0; i < nr_barriers; i++) {
		if (sys_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0)) {
			snprintf(res->error, sizeof(res->error),
				 "barrier %ld: %s", i, strerror(errno));
			goto out;
		}
	}
	busy = now_s() - t0;
	after = read_ipis(cpu_b);
	res->us_per_call = busy * 1e6 / nr_barriers;
	res->per_barrier = (after - before - res->base_per_s * busy) /
			   nr_barriers;
	res->done = 1;
out:
	__atomic_store_n(&stop_spinning, 1, __ATOMIC_RELEASE);
	if (spinner)
		pthread_join(spinner, NULL);
	if (wake[1] >= 0 && write(wake[1], "", 1) == 1)
		pthread_join(sleeper, NULL);
}

/* Case @which, ATTEMPTS times at most while it falls short; the best. */
static void judge_case(int which, struct result *best, struct result *scratch)
{
	const char *name = case_names[which];
	int a;

	for (a = 0; a < ATTEMPTS; a++) {
		pid_t pid;

		memset(scratch, 0, sizeof(*scratch));
		/*
		 * Whatever reads this output (a test runner's pipeline) runs
		 * now, not on CPU B in the middle of the case.
		 */
		fflush(stdout);
		sleep_ms(DRAIN_MS);
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (pid == 0) {
			run_case(which, scratch);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		if (a == 0 || (scratch->done &&
			       (!best->done ||
				scratch->per_barrier > best->per_barrier)))
			*best = *scratch;
		if (!best->done || best->per_barrier >= PASS_MIN)
			break;
		ksft_print_msg("%s: attempt %d: %.3f IPIs per barrier, trying again\n",
			       name, a + 1, scratch->per_barrier);
	}
	if (best->done)
		ksft_print_msg("%s: CPU %d: %.3f IPIs per barrier (%.1f/s bg, %.1f us/call)\n",
			       name, cpu_b, best->per_barrier, best->base_per_s,
			       best->us_per_call);
}

/* CPU A: the first CPU this process may run on; CPU B: the last. */
static int pick_cpus(void)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (n++ == 0)
			cpu_a = cpu;
		cpu_b = cpu;
	}
	return n >= 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct result *res;
	int mask, i;

	if (argc > 1) {
		nr_barriers = strtol(argv[1], NULL, 10);
		if (nr_barriers < 1) {
			fprintf(stderr, "usage: %s [BARRIERS]\n", argv[0]);
			return 2;
		}
	}
	ksft_print_header();

	if (geteuid())
		ksft_exit_skip("not root: run as root on an otherwise idle machine\n");
	mask = sys_membarrier(MEMBARRIER_CMD_QUERY, 0, 0);
	if (mask < 0)
		ksft_exit_skip("sys_membarrier: %s\n", strerror(errno));
	if (!(mask & MEMBARRIER_CMD_GLOBAL_EXPEDITED))
		ksft_exit_skip("MEMBARRIER_CMD_GLOBAL_EXPEDITED not supported\n");
	if (pick_cpus())
		ksft_exit_skip("needs two CPUs to run on\n");
	if (read_ipis(cpu_b) < 0)
		ksft_exit_skip("no function call IPI row for CPU %d in /proc/interrupts\n",
			       cpu_b);

	/* One result per case, and one for the attempt under way. */
	res = mmap(NULL, sizeof(*res) * (NR_CASES + 1), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(res, 0, sizeof(*res) * (NR_CASES + 1));

	/*
	 * The cases' processes start on CPU A: one that ran on CPU B first
	 * would leave its mm lazily there, which is what is under test.
	 */
	if (pin_self(cpu_a))
		ksft_exit_fail_msg("cannot pin to CPU %d: %s\n", cpu_a,
				   strerror(errno));
	ksft_print_msg("caller on CPU %d, spinner on CPU %d, %ld barriers\n",
		       cpu_a, cpu_b, nr_barriers);

	judge_case(CASE_CONTROL, &res[CASE_CONTROL], &res[NR_CASES]);
	if (!res[CASE_CONTROL].done)
		ksft_exit_fail_msg("control: %s\n", res[CASE_CONTROL].error);
	if (res[CASE_CONTROL].per_barrier < PASS_MIN)
		ksft_exit_skip("control: %.3f IPIs per barrier on CPU %d: cannot tell\n",
			       res[CASE_CONTROL].per_barrier, cpu_b);
	for (i = 1; i < NR_CASES; i++)
		judge_case(i, &res[i], &res[NR_CASES]);

	ksft_set_plan(NR_CASES);
	for (i = 0; i < NR_CASES; i++) {
		const char *name = case_names[i];
		struct result *r = &res[i];

		if (!r->done)
			ksft_test_result_fail("%s: %s\n", name,
					      r->error[0] ? r->error : "died");
		else
			ksft_test_result(r->per_barrier >= PASS_MIN,
					 "%s: GLOBAL_EXPEDITED interrupts CPU %d\n",
					 name, cpu_b);
	}
	ksft_finished();
}
