// SPDX-License-Identifier: MIT
/*
 * doctor's lazy-mm probe. It re-creates the paths into the bug the kernel
 * fix in kernel-patch/fixes/ closes: a CPU B whose idle task keeps the
 * process's mm as its lazy active_mm while B's rq->membarrier_state lacks
 * GLOBAL_EXPEDITED; membarrier_switch_mm() does not refresh the state when
 * a thread of the same mm comes back to B from idle (prev mm == next mm), so
 * GLOBAL_EXPEDITED skips B while that thread runs there. Ways in:
 *   A  a thread of the process ran on B and left before registration (a
 *      thread that exited, with one mm user or two; or the main thread
 *      itself, which ran on B and moved away);
 *   B  after registration, a thread ran on B and exited there: exit_mm()
 *      sets B's state from a NULL mm (0) and B keeps the mm lazily;
 *   C  kthread_unuse_mm() does the same for a kernel thread that borrowed
 *      the mm; no interface reachable from user space here lends an mm to a
 *      kernel thread (vhost and io_uring use tasks of their own since 6.4),
 *      so it is read from the code, not probed.
 * Each case counts the IPIs B gets per barrier (ipicount.c) in a fresh
 * process (doctor-lazy-case.c); this file decides how many attempts of
 * each, within what budget, and what they found.
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

/* ---- lazy-mm GLOBAL_EXPEDITED ------------------------------------------ */

/* What the reason names for each case that read 0. */
static const char *const lazy_path[NR_CASES] = {
	"", "a thread", "two mm users", "the main thread", "a thread's exit",
};
static const char *const case_names[NR_CASES] = {
	"control", "A: a thread ran there before registration, one mm user",
	"A: the same, two mm users", "A: the main thread ran there and moved",
	"B: a thread exited there after registration",
};

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

/*
 * How long the attempts take here, case by case: an emulated CPU (QEMU TCG)
 * or a slow host takes seconds an attempt where a native one takes a
 * fraction of one, and case B (a thread's exit) is the slowest. The budget
 * follows: LAZY_PACE_ROUNDS attempts of every lazy case at its mean pace,
 * after the control's time, never under LAZY_BUDGET_S nor over the cap.
 */
struct lazy_pace {
	double sum[NR_CASES], slowest, fastest, cap;
	int n[NR_CASES], explicit_budget;
};

static void lazy_pace_add(struct lazy_pace *p, int i, double dt)
{
	p->sum[i] += dt;
	p->n[i]++;
	p->slowest = fmax(p->slowest, dt);
	p->fastest = p->fastest > 0 ? fmin(p->fastest, dt) : dt;
}

/* The mean attempt of case i; an untried case takes the slowest mean seen. */
static double lazy_pace_mean(const struct lazy_pace *p, int i)
{
	double worst = 0;

	if (p->n[i])
		return p->sum[i] / p->n[i];
	for (int j = 0; j < NR_CASES; j++)
		if (p->n[j])
			worst = fmax(worst, p->sum[j] / p->n[j]);
	return worst;
}

/* The budget (s from the probe's start) that the pace measured so far asks for. */
static double lazy_budget(const struct lazy_pace *p)
{
	double need = p->sum[CASE_CONTROL];

	if (p->explicit_budget)
		return p->cap;
	for (int i = CASE_LAZY_SINGLE; i < NR_CASES; i++)
		need += LAZY_PACE_ROUNDS * lazy_pace_mean(p, i);
	return fmin(p->cap, fmax(LAZY_BUDGET_S, need));
}

static unsigned lazy_alarm_s(const struct lazy_pace *p)
{
	return (unsigned)fmax(LAZY_ALARM_S, ceil(5 * p->slowest));
}

/* Whether case i needs no more attempts: a control with a good reading;
 * a lazy case that read 0, or read 1 often enough. */
static int lazy_decided(int i, const struct lazy_res *best, const int *nhigh)
{
	if (i == CASE_CONTROL)
		return lazy_valid(&best[i]) && (best[i].head >= LAZY_CONTROL_MIN || !best[i].counted);
	return lazy_low(&best[i]) || nhigh[i] >= LAZY_OK_ATTEMPTS;
}

/*
 * One attempt of case i: 0, or -1 when it could not be started. Keeps the
 * attempt shown: for the control the highest reading, for a lazy case the
 * lowest; else the longest.
 */
static int lazy_try(int i, int a, int b, int ncpus, struct lazy_res *sh, struct lazy_res *best,
		    int *tries, int *nhigh, struct lazy_pace *pace)
{
	double t = doctor_now_s();

	if (lazy_attempt(i, a, b, ncpus, sh, lazy_alarm_s(pace)))
		return -1;
	lazy_pace_add(pace, i, doctor_now_s() - t);
	tries[i]++;
	nhigh[i] += lazy_high(sh);
	if (!best[i].done || (lazy_valid(sh) && !lazy_valid(&best[i])) ||
	    (lazy_valid(sh) && lazy_valid(&best[i]) &&
	     (i == CASE_CONTROL ? sh->head > best[i].head : sh->head < best[i].head)) ||
	    (!lazy_valid(&best[i]) && sh->done && sh->valid > best[i].valid))
		best[i] = *sh;
	return 0;
}

int doctor_lazy_budget_s;

void probe_lazy(struct finding *f, struct hostinfo *h)
{
	struct lazy_res *sh, best[NR_CASES];
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF), a, b, tries[NR_CASES] = { 0 };
	int nhigh[NR_CASES] = { 0 };
	long mask = membarrier_query();
	cpu_set_t saved;
	int affected = 0, allok = 1, counted = 1;
	double t0 = doctor_now_s(), budget = LAZY_BUDGET_S;
	struct lazy_pace pace = { .cap = doctor_lazy_budget_s > 0 ? doctor_lazy_budget_s : LAZY_BUDGET_MAX_S,
				  .explicit_budget = doctor_lazy_budget_s > 0 };
	int out_of_time = 0;

	(void)h;

	f->measure = NAN;
	f->unit = "IPIs/barrier";
	f->consequence = "a thread that runs on a CPU whose idle task held the process's mm lazily with a stale membarrier state gets no barrier from MEMBARRIER_CMD_GLOBAL_EXPEDITED: its loads and stores are not ordered against the caller's, and a userspace RCU or hazard-pointer scheme built on it can free memory the thread still reads. Any process can get there: a thread (or the main thread) that ran on the CPU before registration, or a thread that exits there after it";
	f->workaround = LAZY_ADVICE;
	f->fix = "kernel-patch/fixes/0001-sched-membarrier-Update-rq-membarrier_state.patch: membarrier_switch_mm() refreshes rq->membarrier_state also when prev_mm == next_mm, which covers paths A, B and C";
	f->reference = "kernel/sched/sched.h membarrier_switch_mm() returns early when prev_mm == next_mm; path A: 227a4aadc75b (the lazy switch), kernel/sched/membarrier.c sync_runqueues_membarrier_state(); path B: exit_mm() -> membarrier_update_current_mm(NULL) (5bc78502322a); path C: kthread_unuse_mm() (618758ed3a4f, 2020, which took a stale state under lazy TLB to cost an extra IPI only); docs/FINDINGS.md";
	if (ncpus < 2)
		ncpus = 2;
	if (mask < 0 || !(mask & MEMBARRIER_CMD_GLOBAL_EXPEDITED)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "MEMBARRIER_CMD_GLOBAL_EXPEDITED is not offered here (QUERY)");
		return;
	}
	if (doctor_pick(&a, &b, ncpus)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "needs two CPUs this process may run on");
		return;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	/* Children start on A: one that ran on B first would leave its mm lazy there. */
	if (sched_getaffinity(0, sizeof(saved), &saved) || doctor_pin_to(a))
		fail("cannot pin to CPU %d: %s", a, strerror(errno));
	memset(best, 0, sizeof(best));
	/*
	 * The control first; then the lazy cases in rounds, one attempt of each
	 * undecided case a round, so that a budget that runs out leaves every
	 * path tried alike; then the control again when it had no good reading
	 * (the host may have been busy only for its first attempts).
	 */
	for (int t = 0; t < LAZY_CONTROL_ATTEMPTS && !lazy_decided(CASE_CONTROL, best, nhigh); t++)
		if (lazy_try(CASE_CONTROL, a, b, ncpus, sh, best, tries, nhigh, &pace))
			break;
	for (int round = 0; round < LAZY_ATTEMPTS; round++) {
		int left = 0;

		for (int i = CASE_LAZY_SINGLE; i < NR_CASES; i++) {
			if (lazy_decided(i, best, nhigh))
				continue;
			budget = lazy_budget(&pace);
			if (doctor_now_s() - t0 >= budget) {
				out_of_time = 1;
				break;
			}
			left += !lazy_try(i, a, b, ncpus, sh, best, tries, nhigh, &pace);
		}
		if (!left || out_of_time)
			break;
	}
	for (int t = 0; t < LAZY_CONTROL_ATTEMPTS && !lazy_decided(CASE_CONTROL, best, nhigh) &&
			doctor_now_s() - t0 < (budget = lazy_budget(&pace)); t++)
		if (lazy_try(CASE_CONTROL, a, b, ncpus, sh, best, tries, nhigh, &pace))
			break;
	budget = lazy_budget(&pace);
	sched_setaffinity(0, sizeof(saved), &saved);
	munmap(sh, sizeof(*sh));

	doctor_say(f->evidence, "caller on CPU %d, spinner on CPU %d;", a, b);
	for (int i = 0; i < NR_CASES; i++) {
		const struct lazy_res *r = &best[i];

		if (!r->done) {
			doctor_say(f->evidence, " %s: %s;", case_names[i],
				   r->error[0] ? r->error : "not run (out of time)");
			if (r->error[0])
				counted = 0;
			continue;
		}
		if (r->counted && lazy_valid(r))
			doctor_say(f->evidence, " %s: %.3f IPIs/barrier on CPU %d in the first %d barriers, %.3f in all, %.1f us/call",
			    case_names[i], r->head, b, LAZY_MIN_VALID, r->per_barrier, r->us_per_call);
		else if (r->counted && r->valid)
			doctor_say(f->evidence, " %s: %.3f IPIs/barrier on CPU %d, %.1f us/call", case_names[i],
			    r->per_barrier, b, r->us_per_call);
		else if (r->valid)
			doctor_say(f->evidence, " %s: IPIs not countable, %.1f us/call", case_names[i], r->us_per_call);
		else
			doctor_say(f->evidence, " %s: no reading", case_names[i]);
		doctor_say(f->evidence, " over %ld of %ld barriers with the spinner on CPU %d", r->valid,
		    r->barriers, b);
		if (i != CASE_CONTROL)
			doctor_say(f->evidence, ", CPU %d idle %.0f%% of the lazy window", b, 100 * r->idle);
		if (i == CASE_CONTROL)
			doctor_say(f->evidence, " (best of %d attempt%s);", tries[i], tries[i] == 1 ? "" : "s");
		else
			doctor_say(f->evidence, " (lowest of %d attempt%s, %d read 1 with CPU %d idle);", tries[i],
			    tries[i] == 1 ? "" : "s", nhigh[i], b);
		counted &= r->counted;
	}
	if (best[CASE_CONTROL].done)
		doctor_say(f->evidence, " IPIs counted by %s;", best[CASE_CONTROL].src);
	doctor_say(f->evidence, " attempts took %.2f-%.2f s; budget %.0f s (%s);", pace.fastest, pace.slowest,
		   budget, pace.explicit_budget ? "--budget" :
		   budget >= pace.cap ? "scaled to the attempts' pace, at its cap; --budget gives more" :
		   budget > LAZY_BUDGET_S ? "scaled to the attempts' pace" : "the default");
	doctor_say(f->evidence, " path C (kthread_unuse_mm()) not probed: nothing reachable from user space here lends the mm to a kernel thread");

	if (!lazy_valid(&best[CASE_CONTROL])) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s",
			 best[CASE_CONTROL].done ? "the control's spinner never kept its CPU long enough: other tasks ran there (a busy host; rerun when it is quiet)"
						 : "the control case did not run");
		return;
	}
	if (counted && best[CASE_CONTROL].head < LAZY_CONTROL_MIN) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "the control case read %.3f IPIs/barrier in its first %d barriers, not 1: other work on its CPU (kernel threads too) took the spinner's place during barriers, or IPIs are not countable this way here",
			 best[CASE_CONTROL].head, LAZY_MIN_VALID);
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
	if (affected) {
		char a_paths[64] = "", paths[128];
		int b_path = 0;

		/* "path A (a thread; the main thread) and path B (a thread's exit)" */
		for (int i = CASE_LAZY_SINGLE; i < NR_CASES; i++) {
			if (!lazy_valid(&best[i]) || !best[i].counted || best[i].head >= 0.25)
				continue;
			if (i == CASE_LAZY_EXIT)
				b_path = 1;
			else
				snprintf(a_paths + strlen(a_paths), sizeof(a_paths) - strlen(a_paths), "%s%s",
					 a_paths[0] ? "; " : "", lazy_path[i]);
		}
		snprintf(paths, sizeof(paths), "%s%s%s%s%s", a_paths[0] ? "path A (" : "", a_paths,
			 a_paths[0] ? ")" : "", a_paths[0] && b_path ? " and " : "",
			 b_path ? "path B (a thread's exit)" : "");
		f->result = RES_AFFECTED;
		snprintf(f->reason, sizeof(f->reason),
			 "GLOBAL_EXPEDITED skipped CPU %d, whose idle task held the mm lazily with a stale state (%s)",
			 b, paths[0] ? paths : "per-call cost");
	} else if (allok) {
		/*
		 * Each attempt on a kernel with the bug reads 0 unless another
		 * process's task ran on B between the exit and the spinner's
		 * arrival; on a quiet host that spoils only some attempts, so
		 * LAZY_OK_ATTEMPTS readings of 1 in each case, with B idle and
		 * no reading of 0, clear the kernel (docs/FINDINGS.md gives the
		 * per-attempt rates seen with the bug).
		 */
		f->result = RES_OK;
		snprintf(f->reason, sizeof(f->reason),
			 "GLOBAL_EXPEDITED reached CPU %d in every attempt (%d of %d per lazy case read 1 with CPU %d idle, none 0)",
			 b, nhigh[CASE_LAZY_SINGLE], tries[CASE_LAZY_SINGLE], b);
	} else {
		f->result = RES_CANNOT_TELL;
		if (out_of_time)
			snprintf(f->reason, sizeof(f->reason),
				 "%.0f s (%.1f s an attempt at the slowest) were not enough to decide every path: no lazy case read 0, and fewer than %d attempts per case kept CPU %d idle and then the spinner on it (a busy host; rerun when it is quiet, or give --budget more)",
				 budget, pace.slowest, LAZY_OK_ATTEMPTS, b);
		else if (!counted)
			snprintf(f->reason, sizeof(f->reason),
				 "IPIs are not countable here and the per-call costs do not separate the cases");
		else
			snprintf(f->reason, sizeof(f->reason),
				 "fewer than %d attempts per lazy case kept CPU %d idle (%.0f%% of the window at least) and then the spinner on it: another task may have replaced the lazy mm (a busy host; rerun when it is quiet)",
				 LAZY_OK_ATTEMPTS, b, 100 * LAZY_IDLE_MIN);
	}
}
