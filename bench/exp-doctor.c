// SPDX-License-Identifier: MIT
/*
 * doctor: what this kernel gets wrong or makes expensive about process-wide
 * barriers, found by measurement in seconds. Each probe answers one
 * question with a result (ok, affected, cannot tell and why, or info), the
 * evidence as numbers, what it means for a user, the workaround and the
 * fix, and the upstream reference. The exit status is 1 when a probe finds
 * the host affected, so scripts can gate on it.
 *
 * The lazy-mm probe re-creates the scenario of the kernel fix in
 * kernel-patch/fixes/: a CPU that last ran a thread of the process and went
 * idle keeps the process's mm as its lazy active_mm; a registration for
 * GLOBAL_EXPEDITED made then leaves that runqueue's membarrier_state stale,
 * and membarrier_switch_mm() does not refresh it when a thread of the same
 * mm comes back, so GLOBAL_EXPEDITED skips that CPU while the thread runs.
 * It counts the IPIs the lazily held CPU gets per barrier (ipicount.c).
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"
#include "ipicount.h"
#include "paths.h"
#include "register-child.h"
#include "results.h"
#include "util.h"

#ifndef MEMBARRIER_CMD_GET_REGISTRATIONS
#define MEMBARRIER_CMD_GET_REGISTRATIONS (1 << 9)
#endif

static const struct col doctor_cols[] = {
	{ "probe", COL_STR },
	{ "question", COL_STR },
	{ "result", COL_STR },
	{ "reason", COL_STR },
	{ "measure", COL_NUM },
	{ "measure_unit", COL_STR },
	{ "evidence", COL_STR },
	{ "consequence", COL_STR },
	{ "workaround", COL_STR },
	{ "fix", COL_STR },
	{ "reference", COL_STR },
};

enum { RES_OK, RES_AFFECTED, RES_CANNOT_TELL, RES_INFO };
static const char *const result_names[] = { "ok", "affected", "cannot tell", "info" };

/* One probe's row, filled by its run function. */
struct finding {
	int result;
	char reason[256];
	double measure;		/* NaN: none */
	const char *unit;
	char evidence[1024];
	const char *consequence, *workaround, *fix, *reference;
};

struct probe {
	const char *name;
	const char *question;
	void (*run)(struct finding *f, struct hostinfo *h);
};

__attribute__((format(printf, 2, 3)))
static void say(char *buf, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= 1023)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, 1024 - l, fmt, ap);
	va_end(ap);
}

static double now_s(void)
{
	return (double)now_ns() / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Idle and iowait time of each CPU from /proc/stat, in USER_HZ ticks. */
static int cpu_idle_ticks(uint64_t *out, int ncpus)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	memset(out, 0, sizeof(*out) * (size_t)ncpus);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[5];
		int cpu;

		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
			   &v[3], &v[4]) == 6 && cpu >= 0 && cpu < ncpus) {
			out[cpu] = v[3] + v[4];
			n++;
		}
	}
	fclose(f);
	return n ? 0 : -1;
}

/* ---- lazy-mm GLOBAL_EXPEDITED ------------------------------------------ */

enum { CASE_CONTROL, CASE_LAZY_SINGLE, CASE_LAZY_MULTI, NR_CASES };
static const char *const case_names[NR_CASES] = {
	"control", "lazy, single user", "lazy, multi user",
};

#define LAZY_ATTEMPTS 4
#define LAZY_OK_ATTEMPTS 3	/* lazy readings of 1 that an ok needs */
#define LAZY_BARRIERS 2000
#define LAZY_SEGMENT 20		/* barriers between two readings of the counts */
#define LAZY_LOOP_S 0.3
#define LAZY_WINDOW_MS 100
#define LAZY_GAP_NS 200000	/* the spinner off its CPU this long: another task ran */
#define LAZY_MIN_VALID 60	/* barriers a reading needs: its head */
#define LAZY_IDLE_MIN 0.9	/* CPU B idle this much of the lazy window */

/*
 * Only the barriers issued while the spinner ran on B without a break count:
 * once another task of another process has run on B, the kernel has set B's
 * state from that task's mm and the case under test is gone; and a barrier
 * while that task runs rightly skips B. The spinner notes its first break
 * (a gap in its clock reads), and the counts are read every LAZY_SEGMENT
 * barriers, so the segments that ended before that break are the evidence.
 */
struct lazy_res {
	int done;
	int counted;		/* IPIs on CPU B were counted */
	double per_barrier;	/* IPIs per valid barrier on CPU B */
	double head;		/* ... over the first LAZY_MIN_VALID of them */
	double us_per_call;	/* over the valid barriers */
	double idle;		/* fraction of the lazy window CPU B was idle; 1 for control */
	long barriers, valid;
	char src[48];
	char error[160];
};

struct lazy_ctx {
	int a, b;
	_Atomic int stop, spinning;
	_Atomic uint64_t first_gap;	/* when the spinner first lost B, or 0 */
	_Atomic uint64_t beat;		/* the spinner's latest clock read */
	int wake[2];
	char page[4096];
};

static void *exit_on_b(void *arg)
{
	struct lazy_ctx *c = arg;

	if (pin_to(c->b) || sched_getcpu() != c->b)
		return (void *)1;
	/* Use the mm from user space on B, then exit: B's idle task keeps it. */
	memset(c->page, 1, sizeof(c->page));
	return NULL;
}

static void *sleep_on_a(void *arg)
{
	struct lazy_ctx *c = arg;
	char ch;

	pin_to(c->a);
	if (read(c->wake[0], &ch, 1) < 0)
		return NULL;
	return NULL;
}

static void *spin_on_b(void *arg)
{
	struct lazy_ctx *c = arg;
	uint64_t last, t;

	if (pin_to(c->b))
		return (void *)1;
	while (sched_getcpu() != c->b)
		;
	last = now_ns();
	atomic_store(&c->spinning, 1);
	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		t = now_ns();
		if (t - last > LAZY_GAP_NS && !atomic_load_explicit(&c->first_gap, memory_order_relaxed))
			atomic_store(&c->first_gap, last);
		atomic_store_explicit(&c->beat, t, memory_order_relaxed);
		last = t;
	}
	return NULL;
}

/* One attempt of one case, in a fresh process pinned to CPU a. */
static void lazy_case(int which, int a, int b, int ncpus, struct lazy_res *r)
{
	static struct lazy_ctx c;
	struct ipicount ic;
	pthread_t th, sleeper;
	uint64_t *idle0 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t *idle1 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t cnt0, cnt1, ipis = 0, gap, t_seg, t_valid = 0, t_start;
	double t0;
	long regs, n = 0;
	int counted, opened = 0;
	void *ret;

	c.a = a;
	c.b = b;
	r->idle = 1;
	if (pin_to(a)) {
		snprintf(r->error, sizeof(r->error), "cannot pin to CPU %d: %s", a, strerror(errno));
		goto out_free;
	}
	regs = membarrier_query() & MEMBARRIER_CMD_GET_REGISTRATIONS ?
		       sys_membarrier(MEMBARRIER_CMD_GET_REGISTRATIONS, 0, 0) : 0;
	if (regs > 0 && (regs & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED)) {
		snprintf(r->error, sizeof(r->error), "the process was already registered (0x%lx)", regs);
		goto out_free;
	}
	if (which != CASE_CONTROL) {
		if (pthread_create(&th, NULL, exit_on_b, &c) || pthread_join(th, &ret) || ret) {
			snprintf(r->error, sizeof(r->error), "no thread could run on CPU %d", b);
			goto out;
		}
		t0 = now_s();
		cpu_idle_ticks(idle0, ncpus);
		sleep_ms(LAZY_WINDOW_MS);
		if (!cpu_idle_ticks(idle1, ncpus)) {
			long hz = sysconf(_SC_CLK_TCK);

			r->idle = (double)(idle1[b] - idle0[b]) / ((now_s() - t0) * (double)(hz > 0 ? hz : 100));
			if (r->idle > 1)
				r->idle = 1;
		}
	}
	if (which == CASE_LAZY_MULTI) {
		if (pipe(c.wake) || pthread_create(&sleeper, NULL, sleep_on_a, &c)) {
			snprintf(r->error, sizeof(r->error), "cannot start the sleeping thread");
			goto out;
		}
		sleep_ms(20);
	}
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0)) {
		snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED: %s",
			 strerror(errno));
		goto out;
	}
	if (pthread_create(&th, NULL, spin_on_b, &c)) {
		snprintf(r->error, sizeof(r->error), "cannot start the spinning thread");
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
		 ic.src == IPI_SRC_TRACEPOINT ? "call_function tracepoints" : "CAL row of /proc/interrupts");
	/* Opening them interrupts the spinner for a while: its breaks count from here. */
	atomic_store(&c.first_gap, 0);
	t_start = t_seg = now_ns();
	counted = !ipicount_read_cpu(&ic, b, &cnt0);
	while (n < LAZY_BARRIERS && (double)(now_ns() - t_start) / 1e9 < LAZY_LOOP_S) {
		for (int i = 0; i < LAZY_SEGMENT; i++, n++)
			if (sys_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0)) {
				snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_GLOBAL_EXPEDITED: %s",
					 strerror(errno));
				break;
			}
		if (r->error[0])
			break;
		counted = counted && !ipicount_read_cpu(&ic, b, &cnt1);
		/* A break seen by the spinner, or one it is still in. */
		gap = atomic_load(&c.first_gap);
		if (gap || now_ns() - atomic_load(&c.beat) > LAZY_GAP_NS)
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
}

/* Whether an attempt has a reading: enough barriers with the spinner on B. */
static int lazy_valid(const struct lazy_res *r)
{
	return r->done && r->valid >= LAZY_MIN_VALID;
}

/*
 * The bug does not show in every attempt: a task of another process that
 * runs on B for a moment between the thread's exit and the spinner's
 * arrival refreshes B's state, and some host activity does that about half
 * the time here. So one reading of 0 (with the spinner on B and the control
 * at 1) is the finding, and ok needs LAZY_OK_ATTEMPTS readings of 1, each
 * with B idle through the window.
 */
static int lazy_low(const struct lazy_res *r)
{
	return lazy_valid(r) && r->counted && r->head < 0.25;
}

static int lazy_high(const struct lazy_res *r)
{
	return lazy_valid(r) && r->counted && r->head >= 0.75 && r->idle >= LAZY_IDLE_MIN;
}

/* Run one attempt in a child; 0, or -1 when it could not be started. */
static int lazy_attempt(int which, int a, int b, int ncpus, struct lazy_res *shared)
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
		alarm(10);
		lazy_case(which, a, b, ncpus, shared);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!shared->done && !shared->error[0])
			snprintf(shared->error, sizeof(shared->error), "the measuring process died (status 0x%x)", st);
	return 0;
}

/* The two allowed CPUs for the caller (a) and the lazily held one (b): b idlest. */
static int lazy_pick(int *a, int *b, int ncpus)
{
	cpu_set_t set;
	uint64_t *i0 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t *i1 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	int n = 0, best = -1, second = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		goto out;
	cpu_idle_ticks(i0, ncpus);
	sleep_ms(50);
	cpu_idle_ticks(i1, ncpus);
	for (int c = 0; c < ncpus && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		n++;
		if (best < 0 || i1[c] - i0[c] > i1[best] - i0[best]) {
			second = best;
			best = c;
		} else if (second < 0 || i1[c] - i0[c] > i1[second] - i0[second]) {
			second = c;
		}
	}
	*b = best;
	*a = second;
out:
	free(i0);
	free(i1);
	return n >= 2 ? 0 : -1;
}

static void probe_lazy(struct finding *f, struct hostinfo *h)
{
	struct lazy_res *sh, best[NR_CASES];
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF), a, b, tries[NR_CASES] = { 0 };
	int nhigh[NR_CASES] = { 0 };
	long mask = membarrier_query();
	cpu_set_t saved;
	int affected = 0, allok = 1, counted = 1;

	(void)h;
	f->measure = NAN;
	f->unit = "IPIs/barrier";
	f->consequence = "a thread running on a CPU that held the process's mm lazily when it registered gets no barrier from MEMBARRIER_CMD_GLOBAL_EXPEDITED: its loads and stores are not ordered against the caller's, and a userspace RCU or hazard-pointer scheme built on it can free memory the thread still reads";
	f->workaround = "register GLOBAL_EXPEDITED after the process's threads exist (or before any thread ever ran), or use MEMBARRIER_CMD_PRIVATE_EXPEDITED, which selects CPUs by the task they run";
	f->fix = "kernel-patch/fixes/0001-sched-membarrier-Update-rq-membarrier_state.patch: membarrier_switch_mm() refreshes rq->membarrier_state also when prev_mm == next_mm";
	f->reference = "kernel/sched/sched.h membarrier_switch_mm() returns early when prev_mm == next_mm; kernel/sched/membarrier.c sync_runqueues_membarrier_state() single-user shortcut; 618758ed3a4f (2020, \"sched: membarrier: cover kthread_use_mm\") accepted a stale state under lazy TLB as an extra IPI only; docs/FINDINGS.md";
	if (ncpus < 2)
		ncpus = 2;
	if (mask < 0 || !(mask & MEMBARRIER_CMD_GLOBAL_EXPEDITED)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "MEMBARRIER_CMD_GLOBAL_EXPEDITED is not offered here (QUERY)");
		return;
	}
	if (lazy_pick(&a, &b, ncpus)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "needs two CPUs this process may run on");
		return;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	/* Children start on A: one that ran on B first would leave its mm lazy there. */
	if (sched_getaffinity(0, sizeof(saved), &saved) || pin_to(a))
		die("cannot pin to CPU %d: %s", a, strerror(errno));
	memset(best, 0, sizeof(best));
	for (int i = 0; i < NR_CASES; i++) {
		for (int t = 0; t < LAZY_ATTEMPTS; t++) {
			if (lazy_attempt(i, a, b, ncpus, sh))
				break;
			tries[i]++;
			nhigh[i] += lazy_high(sh);
			/*
			 * The attempt shown: for the control the highest reading,
			 * for a lazy case the lowest; else the longest.
			 */
			if (!best[i].done || (lazy_valid(sh) && !lazy_valid(&best[i])) ||
			    (lazy_valid(sh) && lazy_valid(&best[i]) &&
			     (i == CASE_CONTROL ? sh->per_barrier > best[i].per_barrier
						: sh->head < best[i].head)) ||
			    (!lazy_valid(&best[i]) && sh->done && sh->valid > best[i].valid))
				best[i] = *sh;
			if (i == CASE_CONTROL ? lazy_valid(&best[i]) &&
						(best[i].per_barrier >= 0.6 || !best[i].counted)
					      : lazy_low(&best[i]) || nhigh[i] >= LAZY_OK_ATTEMPTS)
				break;
		}
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	munmap(sh, sizeof(*sh));

	say(f->evidence, "caller on CPU %d, spinner on CPU %d;", a, b);
	for (int i = 0; i < NR_CASES; i++) {
		const struct lazy_res *r = &best[i];

		if (!r->done) {
			say(f->evidence, " %s: %s;", case_names[i], r->error[0] ? r->error : "not run");
			counted = 0;
			continue;
		}
		if (r->counted && lazy_valid(r))
			say(f->evidence, " %s: %.3f IPIs/barrier on CPU %d in the first %d barriers, %.3f in all, %.1f us/call",
			    case_names[i], r->head, b, LAZY_MIN_VALID, r->per_barrier, r->us_per_call);
		else if (r->counted && r->valid)
			say(f->evidence, " %s: %.3f IPIs/barrier on CPU %d, %.1f us/call", case_names[i],
			    r->per_barrier, b, r->us_per_call);
		else if (r->valid)
			say(f->evidence, " %s: IPIs not countable, %.1f us/call", case_names[i], r->us_per_call);
		else
			say(f->evidence, " %s: no reading", case_names[i]);
		say(f->evidence, " over %ld of %ld barriers with the spinner on CPU %d", r->valid,
		    r->barriers, b);
		if (i != CASE_CONTROL)
			say(f->evidence, ", CPU %d idle %.0f%% of the lazy window", b, 100 * r->idle);
		if (i == CASE_CONTROL)
			say(f->evidence, " (best of %d attempt%s);", tries[i], tries[i] == 1 ? "" : "s");
		else
			say(f->evidence, " (lowest of %d attempt%s, %d read 1 with CPU %d idle);", tries[i],
			    tries[i] == 1 ? "" : "s", nhigh[i], b);
		counted &= r->counted;
	}
	if (best[CASE_CONTROL].done)
		say(f->evidence, " IPIs counted by %s", best[CASE_CONTROL].src);

	if (!lazy_valid(&best[CASE_CONTROL])) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s",
			 best[CASE_CONTROL].done ? "the control's spinner never kept its CPU long enough: other tasks ran there (a busy host; rerun when it is quiet)"
						 : "the control case did not run");
		return;
	}
	if (counted && best[CASE_CONTROL].per_barrier < 0.6) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "the control case read %.3f IPIs/barrier, not 1: other work on its CPU (kernel threads too) took the spinner's place during barriers, or IPIs are not countable this way here",
			 best[CASE_CONTROL].per_barrier);
		return;
	}
	for (int i = CASE_LAZY_SINGLE; i < NR_CASES; i++) {
		const struct lazy_res *r = &best[i];
		int low;

		if (!lazy_valid(r)) {
			allok = 0;
			continue;
		}
		if (r->counted)
			low = r->head < 0.25;
		else
			low = r->us_per_call < best[CASE_CONTROL].us_per_call / 4;
		/* Nothing but the bug makes a spinner that kept its CPU miss the barriers. */
		affected |= low;
		if (low || !r->counted || nhigh[i] < LAZY_OK_ATTEMPTS)
			allok = 0;
		if (r->counted && (isnan(f->measure) || r->head < f->measure))
			f->measure = r->head;
	}
	if (affected && counted && best[CASE_CONTROL].per_barrier < 0.9) {
		/* A CPU that loses half its IPIs to noise can read 0 by chance. */
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "a lazy case read %.3f IPIs/barrier, but the control only %.3f: too noisy to call (a busy host; rerun when it is quiet)",
			 f->measure, best[CASE_CONTROL].per_barrier);
	} else if (affected) {
		f->result = RES_AFFECTED;
		snprintf(f->reason, sizeof(f->reason),
			 "GLOBAL_EXPEDITED skipped CPU %d, which held the mm lazily at registration", b);
	} else if (allok) {
		/*
		 * Not ok: on an unfixed 6.18 guest, run from here, the lazy
		 * state survived to the barriers in few attempts (a standalone
		 * reproducer: half), so readings of 1 with the CPU idle were
		 * seen on a kernel that has the bug. Until that is understood
		 * they do not clear a kernel (docs/FINDINGS.md).
		 */
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "every lazy reading was 1 with CPU %d idle, which this probe has also read on kernels with the bug: not a clean bill (kernel-patch/selftest/membarrier_global_expedited_lazy.c is the check)",
			 b);
	} else {
		f->result = RES_CANNOT_TELL;
		if (!counted)
			snprintf(f->reason, sizeof(f->reason),
				 "IPIs are not countable here and the per-call costs do not separate the cases");
		else
			snprintf(f->reason, sizeof(f->reason),
				 "fewer than %d attempts per case kept CPU %d idle (%.0f%% of the window at least) and then the spinner on it: another task may have replaced the lazy mm (a busy host; rerun when it is quiet)",
				 LAZY_OK_ATTEMPTS, b, 100 * LAZY_IDLE_MIN);
	}
}

/* ---- expedited serialization ------------------------------------------- */

#define SER_S 0.3

struct ser_res {
	_Atomic int ready, go;
	long calls[2];
	double secs[2];
	char error[160];
};

static void *ser_spin(void *arg)
{
	_Atomic int *stop = arg;

	while (!atomic_load_explicit(stop, memory_order_relaxed))
		;
	return NULL;
}

/* A process with a caller on cpu and a spinner on spin_cpu; calls when call. */
static void ser_child(struct ser_res *r, int idx, int cpu, int spin_cpu, int call)
{
	static _Atomic int stop;
	pthread_t th;
	long n = 0;
	double t0;

	if (pin_to(spin_cpu) || pthread_create(&th, NULL, ser_spin, &stop) || pin_to(cpu)) {
		snprintf(r->error, sizeof(r->error), "cannot place the threads");
		_exit(0);
	}
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: %s",
			 strerror(errno));
		_exit(0);
	}
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load(&r->go))
		;
	t0 = now_s();
	while (now_s() - t0 < SER_S) {
		for (int i = 0; i < 20 && call; i++)
			if (sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)) {
				snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_PRIVATE_EXPEDITED: %s",
					 strerror(errno));
				_exit(0);
			}
		n += 20;
	}
	r->calls[idx] = call ? n : 0;
	r->secs[idx] = now_s() - t0;
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	_exit(0);
}

/* Aggregate calls/s of two processes, the second calling only when both. */
static double ser_run(struct ser_res *r, const int *cpu, int both)
{
	pid_t pid[2];
	double rate = 0;

	memset(r, 0, sizeof(*r));
	fflush(NULL);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			die("fork: %s", strerror(errno));
		if (pid[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			alarm(10);
			ser_child(r, i, cpu[2 * i], cpu[2 * i + 1], i == 0 || both);
		}
	}
	for (double t0 = now_s(); atomic_load(&r->ready) < 2 && now_s() - t0 < 2;)
		sleep_ms(1);
	atomic_store(&r->go, 1);
	for (int i = 0; i < 2; i++)
		while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
			;
	for (int i = 0; i < 2; i++)
		if (r->secs[i] > 0)
			rate += (double)r->calls[i] / r->secs[i];
	return r->error[0] || r->secs[0] <= 0 ? -1 : rate;
}

static void probe_serialization(struct finding *f, struct hostinfo *h)
{
	long mask = membarrier_query();
	const char *ser = hostinfo_get(h, "membarrier_ipi_serialized");
	cpu_set_t set;
	int cpu[4], n = 0;
	double alone = 0, both = 0, ratio;
	struct ser_res *r;

	f->unit = "ratio";
	f->measure = NAN;
	f->consequence = "concurrent PRIVATE_EXPEDITED or GLOBAL_EXPEDITED callers anywhere on the machine wait for each other: a process that issues many barriers slows every other user of expedited membarrier, and its barrier rate does not grow with callers";
	f->workaround = "issue fewer expedited barriers (batch the frees of a userspace RCU or hazard-pointer reclaim), or target one CPU with MEMBARRIER_CMD_FLAG_CPU where the design allows";
	f->fix = "none in released kernels; tip (2026) moves the targeted commands to per-CPU mutexes (\"Use per-CPU mutexes for targeted commands\")";
	f->reference = "944d5fe50f3f (6.8, membarrier_ipi_mutex, backported to stable down to 4.19); scylladb/seastar#2143";
	if (mask < 0 || !(mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "MEMBARRIER_CMD_PRIVATE_EXPEDITED is not offered here (QUERY)");
		return;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity: %s", strerror(errno));
	for (int c = 0; c < CPU_SETSIZE && n < 4; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	say(f->evidence, "kernel release says serialized: %s;", ser ? ser : "unknown");
	if (n < 4) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "needs 4 CPUs (each of two callers with a thread of its process on a CPU of its own, so that its barrier holds the mutex while it sends an IPI); %d allowed here",
			 n);
		return;
	}
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	for (int rep = 0; rep < 2; rep++) {
		double a1 = ser_run(r, cpu, 0), b1 = a1 < 0 ? -1 : ser_run(r, cpu, 1);

		if (a1 < 0 || b1 < 0)
			break;
		alone += a1 / 2;
		both += b1 / 2;
	}
	if (r->error[0] || alone <= 0) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s", r->error[0] ? r->error : "the callers did not run");
		munmap(r, sizeof(*r));
		return;
	}
	munmap(r, sizeof(*r));
	ratio = both / alone;
	f->measure = ratio;
	f->result = RES_INFO;
	say(f->evidence, " one caller %.0f calls/s; two callers in two processes %.0f calls/s together: %.2fx (1: serialized, 2: parallel); callers on CPUs %d and %d, their spinners on %d and %d",
	    alone, both, ratio, cpu[0], cpu[2], cpu[1], cpu[3]);
	if (ratio < 1.4)
		snprintf(f->reason, sizeof(f->reason), "serialized: two callers get %.2fx one caller's barriers", ratio);
	else
		snprintf(f->reason, sizeof(f->reason), "not serialized in this measurement: %.2fx", ratio);
}

/* ---- registration cost -------------------------------------------------- */

static void probe_register(struct finding *f, struct hostinfo *h)
{
	const struct mechanism *m = mech_find("membarrier-private-expedited");
	const char *helper = helper_require("mbbench-fresh");
	double ns[2] = { 0, 0 };
	char reason[256];
	const int reps = 3;

	(void)h;
	f->unit = "ms";
	f->measure = NAN;
	f->consequence = "REGISTER_PRIVATE_EXPEDITED made once the process has other threads waits for an RCU grace period (milliseconds; tens of microseconds where rcu_expedited=1): a runtime that registers lazily pays it on a critical path";
	f->workaround = "register before creating threads (at start-up), as .NET's runtime now does";
	f->fix = "none: by design (sync_runqueues_membarrier_state() runs synchronize_rcu() once the mm has several users)";
	f->reference = "kernel/sched/membarrier.c sync_runqueues_membarrier_state(); dotnet/runtime#106722";
	if (!m || mech_probe(m, reason, sizeof(reason))) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s", m ? reason : "no private-expedited mechanism");
		return;
	}
	for (int k = 0; k < 2; k++) {
		for (int r = 0; r < reps; r++) {
			struct sample s;

			if (register_fresh(helper, m, k, "compact", BEH_SPIN, &s) || s.err) {
				f->result = RES_CANNOT_TELL;
				snprintf(f->reason, sizeof(f->reason), "%.200s", s.why[0] ? s.why : "fork failed");
				return;
			}
			ns[k] += s.reg_ns / reps;
		}
	}
	f->result = RES_INFO;
	f->measure = ns[1] / 1e6;
	say(f->evidence, "REGISTER_PRIVATE_EXPEDITED in a fresh process: %.1f us with no other thread, %.3f ms with one other thread running (%.0fx; mean of %d each)",
	    ns[0] / 1e3, ns[1] / 1e6, ns[0] > 0 ? ns[1] / ns[0] : 0, reps);
	snprintf(f->reason, sizeof(f->reason), "registering with a thread running costs %.3f ms", ns[1] / 1e6);
}

/* ---- GLOBAL semantics --------------------------------------------------- */

static void probe_global(struct finding *f, struct hostinfo *h)
{
	long mask = membarrier_query();
	const char *nohz = hostinfo_get(h, "nohz_full"), *exp = hostinfo_get(h, "rcu_expedited");
	int refused_nohz = nohz && strcmp(nohz, "none") && strcmp(nohz, "unknown") && nohz[0];
	int expedited = exp && !strcmp(exp, "1");
	double t0, total = 0;
	int n = 0;

	f->unit = "us/call";
	f->measure = NAN;
	f->workaround = "where GLOBAL is refused, register and use GLOBAL_EXPEDITED or PRIVATE_EXPEDITED (liburcu's memb flavor falls back to them)";
	f->fix = "none: by design (GLOBAL relies on the scheduler tick's quiescent states, which nohz_full CPUs do not have)";
	f->reference = "kernel/sched/membarrier.c membarrier_query()/membarrier(): MEMBARRIER_CMD_GLOBAL refused when tick_nohz_full_enabled(); sched-ext/scx#3809; /sys/kernel/rcu_expedited";
	say(f->evidence, "QUERY offers GLOBAL: %s; nohz_full: %s; rcu_expedited: %s;",
	    mask >= 0 && (mask & MEMBARRIER_CMD_GLOBAL) ? "yes" : "no", nohz ? nohz : "unknown",
	    exp ? exp : "unknown");
	if (mask < 0 || !(mask & MEMBARRIER_CMD_GLOBAL) || refused_nohz) {
		f->result = RES_AFFECTED;
		f->consequence = "MEMBARRIER_CMD_GLOBAL fails with EINVAL: a program that uses it as its process-wide barrier must fall back to the expedited commands, which need registration and send IPIs";
		snprintf(f->reason, sizeof(f->reason), "%s",
			 refused_nohz ? "GLOBAL is refused (EINVAL) on a nohz_full kernel"
				      : "GLOBAL is not offered by this kernel (QUERY)");
		return;
	}
	/* A few calls; each is a grace period, so stop after half a second. */
	for (t0 = now_s(); n < 5 && now_s() - t0 < 0.5; n++) {
		double c0 = now_s();

		if (sys_membarrier(MEMBARRIER_CMD_GLOBAL, 0, 0)) {
			f->result = RES_AFFECTED;
			snprintf(f->reason, sizeof(f->reason), "MEMBARRIER_CMD_GLOBAL: %s", strerror(errno));
			return;
		}
		total += now_s() - c0;
	}
	f->measure = total * 1e6 / n;
	f->result = RES_INFO;
	say(f->evidence, " %.1f us per MEMBARRIER_CMD_GLOBAL (mean of %d)", f->measure, n);
	if (expedited) {
		f->consequence = "GLOBAL is an expedited grace period here (rcu_expedited=1): microseconds, but IPIs to every CPU running a task";
		snprintf(f->reason, sizeof(f->reason), "available, expedited (rcu_expedited=1)");
	} else {
		f->consequence = "GLOBAL is a normal RCU grace period here: milliseconds per call, no IPIs; fine for rare barriers, too slow for frequent ones";
		snprintf(f->reason, sizeof(f->reason), "available, a normal grace period");
	}
}

/* ---- sync-core and rseq availability ------------------------------------ */

static void probe_avail(struct finding *f, const char *mech, const char *what)
{
	const struct mechanism *m = mech_find(mech);
	char reason[256];
	long mask = membarrier_query();

	f->measure = NAN;
	f->unit = "";
	say(f->evidence, "QUERY mask 0x%lx", mask < 0 ? 0 : mask);
	if (m && !mech_probe(m, reason, sizeof(reason))) {
		f->result = RES_OK;
		snprintf(f->reason, sizeof(f->reason), "%s is available", what);
		return;
	}
	f->result = RES_INFO;
	snprintf(f->reason, sizeof(f->reason), "%s is missing: %.200s", what, m ? reason : "not built in");
}

static void probe_sync_core(struct finding *f, struct hostinfo *h)
{
	(void)h;
	f->consequence = "without it, a JIT that rewrites code other threads run has no cheap way to make them resynchronize their instruction stream";
	f->workaround = "where missing: mprotect-based cross-modification or a signal to every thread";
	f->fix = "MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE needs Linux 4.16 and an architecture that selects ARCH_HAS_MEMBARRIER_SYNC_CORE (x86 and arm64 do)";
	f->reference = "membarrier(2) (MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, since Linux 4.16)";
	probe_avail(f, "membarrier-private-expedited-sync-core", "PRIVATE_EXPEDITED_SYNC_CORE");
}

static void probe_rseq(struct finding *f, struct hostinfo *h)
{
	(void)h;
	f->consequence = "without it, per-CPU data structures built on rseq cannot fence the critical sections of other threads (e.g. to quiesce a per-CPU memory pool)";
	f->workaround = "where missing: a PRIVATE_EXPEDITED barrier with a protocol that does not need restarts";
	f->fix = "MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ needs Linux 5.10 and CONFIG_RSEQ";
	f->reference = "membarrier(2) (MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, since Linux 5.10)";
	probe_avail(f, "membarrier-private-expedited-rseq", "PRIVATE_EXPEDITED_RSEQ");
}

/* ---- IPI delivery in a guest -------------------------------------------- */

static void probe_guest(struct finding *f, struct hostinfo *h)
{
	const char *virt = hostinfo_get(h, "virtualization"), *feat = hostinfo_get(h, "hypervisor_features"),
		   *idle = hostinfo_get(h, "cpuidle");

	f->result = RES_INFO;
	f->measure = NAN;
	f->unit = "";
	f->consequence = "in a guest an IPI costs a VM exit on the sender (one hypercall for many CPUs with PV send-IPI) and, without posted interrupts, one on the receiver; a haltpoll guest polls before halting, so a barrier to an idle vCPU can be cheap and uncounted";
	f->workaround = "compare barrier costs between hosts only with these facts equal";
	f->fix = "host configuration: KVM PV send-IPI (kvm_para), APICv/posted interrupts (kvm_intel enable_apicv), cpuidle-haltpoll";
	f->reference = "docs/FINDINGS.md (Counting IPIs); Documentation/virt/kvm/x86/cpuid.rst (KVM_FEATURE_PV_SEND_IPI); Documentation/virt/guest-halt-polling.rst";
	say(f->evidence, "virtualization: %s; hypervisor features: %s; cpuidle: %s; posted interrupts: not visible from inside a guest",
	    virt ? virt : "unknown", feat ? feat : "unknown", idle ? idle : "unknown");
	snprintf(f->reason, sizeof(f->reason), "%s",
		 !feat || !strncmp(feat, "unknown", 7) ?
			 "a guest whose hypervisor does not describe its features, or unknown" :
		 !strncmp(feat, "none (not a guest)", 18) ? "not a guest: IPIs are native" :
		 strstr(feat, "pv-send-ipi") ? "a KVM guest with PV send-IPI" :
					       "a KVM guest without PV send-IPI: one VM exit per target");
}

static const struct probe probes[] = {
	{ "lazy-mm", "Does MEMBARRIER_CMD_GLOBAL_EXPEDITED reach a thread on a CPU that held the process's mm lazily when it registered?", probe_lazy },
	{ "expedited-serialization", "Do expedited barriers of two processes wait for each other (one mutex for the system)?", probe_serialization },
	{ "register-cost", "What does REGISTER_PRIVATE_EXPEDITED cost before and after a second thread exists?", probe_register },
	{ "global", "Is MEMBARRIER_CMD_GLOBAL available here, a normal or an expedited grace period, and at what cost?", probe_global },
	{ "sync-core", "Is MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE available?", probe_sync_core },
	{ "rseq", "Is MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ available?", probe_rseq },
	{ "guest-ipi", "How are IPIs delivered here (guest, PV send-IPI, posted interrupts, haltpoll)?", probe_guest },
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

static char selected[NPROBES];

/* --probe: a comma-separated list of probe names. */
static int parse_probes(const char *arg, void *dest)
{
	const char *p = arg;

	(void)dest;
	memset(selected, 0, sizeof(selected));
	for (;;) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < NPROBES; i++)
			if (strlen(probes[i].name) == n && !strncmp(p, probes[i].name, n))
				break;
		if (i == NPROBES)
			return -1;
		selected[i] = 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static void human(const struct table *t, int naffected)
{
	static const char *const fields[] = { "question", "evidence", "consequence", "workaround",
					      "fix", "reference" };

	for (int r = 0; r < t->nrows; r++) {
		const char *reason = table_get(t, r, "reason");

		printf("%s: %s%s%s\n", table_get(t, r, "probe"), table_get(t, r, "result"),
		       reason ? ": " : "", reason ? reason : "");
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			const char *v = table_get(t, r, fields[i]);

			if (v)
				printf("  %-12s %s\n", fields[i], v);
		}
		printf("\n");
	}
	printf("# %d probe%s found this host affected%s\n", naffected, naffected == 1 ? "" : "s",
	       naffected ? " (exit status 1)" : "");
}

int exp_doctor_main(int argc, char **argv)
{
	static char fix[512];
	struct exp_opt own[] = {
		OPT_CALLBACK("probe", "LIST", "run only these probes (comma-separated; default: all)",
			     NULL, parse_probes, fix),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "doctor",
		.synopsis = "What this kernel gets wrong or makes expensive about process-wide barriers, by measurement.",
		.common = CO_FORMAT | CO_JSON,
		.opts = own,
		.extra_help = "  probes: lazy-mm, expedited-serialization, register-cost, global, sync-core,\n"
			      "  rseq, guest-ipi. Exit status: 0 none affected, 1 some probe affected,\n"
			      "  2 bad input.\n",
	};
	struct opts o;
	struct table t;
	struct results res;
	struct hostinfo h;
	int naffected = 0, any = 0, done = 0, nsel = 0;

	snprintf(fix, sizeof(fix), "(valid:");
	for (size_t i = 0; i < NPROBES; i++)
		snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix), "%s%s", i ? ", " : " ", probes[i].name);
	snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix), ")");
	opts_parse(argc, argv, &spec, &o);
	for (size_t i = 0; i < NPROBES; i++)
		any |= selected[i];
	for (size_t i = 0; i < NPROBES; i++)
		nsel += !any || selected[i];
	table_init(&t, doctor_cols, (int)(sizeof(doctor_cols) / sizeof(doctor_cols[0])));
	results_begin(&res, &o, &t);
	hostinfo_collect(&h, o.topo);
	for (size_t i = 0; i < NPROBES; i++) {
		struct finding f;
		int r;

		if (any && !selected[i])
			continue;
		progress("doctor", ++done, nsel, probes[i].name);
		memset(&f, 0, sizeof(f));
		f.measure = NAN;
		probes[i].run(&f, &h);
		r = table_add_row(&t);
		table_set_str(&t, r, "probe", probes[i].name);
		table_set_str(&t, r, "question", probes[i].question);
		table_set_str(&t, r, "result", result_names[f.result]);
		table_set_str(&t, r, "reason", f.reason[0] ? f.reason : NULL);
		table_set_num(&t, r, "measure", f.measure);
		table_set_str(&t, r, "measure_unit", isnan(f.measure) || !f.unit || !f.unit[0] ? NULL : f.unit);
		table_set_str(&t, r, "evidence", f.evidence[0] ? f.evidence : NULL);
		table_set_str(&t, r, "consequence", f.consequence);
		table_set_str(&t, r, "workaround", f.workaround);
		table_set_str(&t, r, "fix", f.fix);
		table_set_str(&t, r, "reference", f.reference);
		naffected += f.result == RES_AFFECTED;
	}
	hostinfo_free(&h);
	if (o.format == FMT_HUMAN) {
		human(&t, naffected);
		res.files_only = 1;
	}
	results_derived(&res, "probes_affected", naffected, "%d probe%s found this host affected",
			naffected, naffected == 1 ? "" : "s");
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return naffected ? 1 : 0;
}
