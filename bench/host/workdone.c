// SPDX-License-Identifier: MIT
/*
 * The work a barrier did during one repeat (workdone.h): IPIs received on
 * the targets' CPUs, the targets' time on their CPUs, the host's steal.
 */
#include "config.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "experiment.h"
#include "harness.h"
#include "ipicount.h"
#include "util.h"
#include "workdone.h"

/* A repeat is good when each spinning target was on its CPU this share of
 * it, and received this share of the IPIs its command sends. Below, the
 * cost mixes barriers that interrupted a target with barriers that found
 * none (docs/FINDINGS.md). */
#define ONCPU_MIN 0.90
#define IPI_MIN 0.90
/* A sleeping point expects no IPI: more than this per target is not it. */
#define IPI_SLEEP_MAX 0.10

static int floor_ready;

int floor_prepare(char *why, size_t len)
{
	const struct mechanism *m = mech_find("membarrier-private-expedited-rseq-cpu");

	if (!m || mech_prepare(m, why, len))
		return -1;
	floor_ready = 1;
	return 0;
}

double workdone_floor(struct workdone *w, double duration_s)
{
	uint64_t *b, *a, t0, t1, n = 0, end, got;
	int cpu;

	if (!w->floor)
		return NAN;
	cpu = w->cpus[0];
	b = xcalloc((size_t)w->ncpus + 1, sizeof(uint64_t));
	a = xcalloc((size_t)w->ncpus + 1, sizeof(uint64_t));
	if (proc_interrupts_read("CAL", b, w->ncpus)) {
		free(b);
		free(a);
		return NAN;
	}
	t0 = now_ns();
	end = t0 + (uint64_t)(duration_s * 1e9);
	do {
		for (int i = 0; i < 16; i++, n++)
			if (sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, cpu) < 0) {
				free(b);
				free(a);
				return NAN;
			}
		t1 = now_ns();
	} while (t1 < end);
	if (proc_interrupts_read("CAL", a, w->ncpus))
		n = 0;
	got = a[cpu] - b[cpu];
	free(b);
	free(a);
	/* A floor that found its target off its CPU is no floor. */
	if (!n || (double)got < IPI_MIN * (double)n)
		return NAN;
	return (double)(t1 - t0) / (double)n;
}

/*
 * A thread's CPU time as the scheduler has it this instant. schedstat's run
 * time of a running thread moves only at the scheduler's tick (every 1-10
 * ms), which a repeat of a few ms cannot use; the thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID's per-thread form: ~tid << 3 | CPUCLOCK_SCHED |
 * CPUCLOCK_PERTHREAD_MASK) brings it up to date. The kernel gives it for
 * threads of this process only.
 */
static int thread_cpu_ns(pid_t tid, uint64_t *ns)
{
	clockid_t id = (clockid_t)(((unsigned int)~tid << 3) | 6);
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

int task_schedstat(pid_t tid, uint64_t *run_ns, uint64_t *wait_ns)
{
	char path[96];
	unsigned long long run, wait;
	FILE *f;
	int n;

	/* /proc/TID names any thread, of this process or of another. */
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	if (n != 2)
		return -1;
	*wait_ns = wait;
	if (!thread_cpu_ns(tid, run_ns))
		return 0;
	*run_ns = run;	/* another process's thread: as of the last tick */
	return 1;
}

/* steal and all jiffies of /proc/stat's cpu line. 0 or -1. */
static int read_steal(uint64_t *steal, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return -1;
	*steal = v[7];
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	return 0;
}

/* CAL + RES of every CPU into out (ncpus entries). 0 or -1 without CAL. */
static int read_irqs(int ncpus, uint64_t *out, uint64_t *tmp)
{
	if (proc_interrupts_read("CAL", out, ncpus))
		return -1;
	/* A signal interrupts a running thread with a reschedule IPI. */
	if (!proc_interrupts_read("RES", tmp, ncpus))
		for (int c = 0; c < ncpus; c++)
			out[c] += tmp[c];
	return 0;
}

static enum behaviour worker_beh(const struct team *t, int i)
{
	return t->cfg.behs ? t->cfg.behs[i] : t->cfg.beh;
}

static void workdone_alloc(struct workdone *w)
{
	w->irq0 = xcalloc((size_t)w->ncpus + 1, sizeof(uint64_t));
	w->irq1 = xcalloc((size_t)w->ncpus + 1, sizeof(uint64_t));
	w->run0 = xcalloc((size_t)w->spinners + 1, sizeof(uint64_t));
	w->wait0 = xcalloc((size_t)w->spinners + 1, sizeof(uint64_t));
	w->tid = xcalloc((size_t)w->spinners + 1, sizeof(pid_t));
}

/* Add CPU c to the targets unless it is there already or is `not`. */
static void add_target(struct workdone *w, int c, int not)
{
	for (int j = 0; j < w->ntargets; j++)
		if (w->cpus[j] == c)
			return;
	if (c == not)
		return;
	w->cpus[w->ntargets++] = c;
	if (c + 1 > w->ncpus)
		w->ncpus = c + 1;
}

void workdone_init_cpus(struct workdone *w, const int *cpus, int ntargets, const pid_t *tids,
			int nspin, int judged, double expect_ipis)
{
	memset(w, 0, sizeof(*w));
	w->cpus = xcalloc((size_t)ntargets + 1, sizeof(int));
	for (int i = 0; i < ntargets; i++)
		add_target(w, cpus[i], -1);
	w->tids = tids;
	w->spinners = nspin;
	w->judged = judged;
	w->expect_ipis = w->ntargets ? expect_ipis : -1;
	workdone_alloc(w);
}

void workdone_init(struct workdone *w, const struct team *t)
{
	const struct placement *pl = t->cfg.pl;
	const struct mechanism *m = t->cfg.mech;
	int sleepers = 0, k = 0;

	memset(w, 0, sizeof(*w));
	w->cpus = xcalloc((size_t)(pl->n + 1), sizeof(int));
	for (int i = 1; i < pl->n; i++)
		add_target(w, pl->pu_os[i], pl->pu_os[0]);
	for (int i = 0; i < t->nth; i++) {
		if (worker_beh(t, i) == BEH_SPIN)
			w->spinners++;
		else
			sleepers++;
	}
	/* Where the spinners' tids are: the threads write them as they start. */
	w->tids = t->tids;
	w->idx = xcalloc((size_t)w->spinners + 1, sizeof(int));
	for (int i = 0; i < t->nth; i++)
		if (worker_beh(t, i) == BEH_SPIN)
			w->idx[k++] = i;
	workdone_alloc(w);
	w->judged = !pl->oversubscribed;
	w->expect_ipis = -1;
	/*
	 * IPIs are judged for membarrier commands, whose kernel side is known:
	 * a process-wide command interrupts every CPU running a thread of the
	 * process, a targeted one its one CPU, and neither a sleeping thread.
	 * A signal's or a TLB shootdown's IPIs depend on the host (a guest may
	 * flush without one): they are counted, not judged.
	 */
	/* The floor: where a barrier interrupts spinning threads of this
	 * process on CPUs of their own. */
	w->floor = floor_ready && w->judged && mech_has(m, MC_IPI, 0) && !t->cfg.other_process &&
		   w->ntargets && w->spinners == t->nth;
	if (m->membarrier_cmd && mech_has(m, MC_IPI, 0) && !t->cfg.other_process && w->ntargets) {
		if (w->spinners == t->nth)
			w->expect_ipis = mech_has(m, MC_PROCESS_WIDE, 0) ? w->ntargets : 1;
		else if (sleepers == t->nth)
			w->expect_ipis = 0;
	}
}

void workdone_free(struct workdone *w)
{
	free(w->cpus);
	free(w->irq0);
	free(w->irq1);
	free(w->run0);
	free(w->wait0);
	free(w->tid);
	free(w->idx);
	memset(w, 0, sizeof(*w));
}

void workdone_begin(struct workdone *w)
{
	w->have_irq = w->ntargets && !read_irqs(w->ncpus, w->irq0, w->irq1);
	w->have_steal = !read_steal(&w->steal0, &w->total0);
	w->have_run = w->tids != NULL && w->spinners > 0;
	w->coarse = 0;
	for (int i = 0; i < w->spinners && w->have_run; i++) {
		w->tid[i] = w->tids[w->idx ? w->idx[i] : i];
		int r = w->tid[i] ? task_schedstat(w->tid[i], &w->run0[i], &w->wait0[i]) : -1;

		if (r < 0)
			w->have_run = 0;
		w->coarse |= r > 0;
	}
	w->t0 = now_ns();
}

void workdone_end(struct workdone *w, uint64_t barriers, struct work *out)
{
	uint64_t dt = now_ns() - w->t0, steal, total;

	out->ipis_per_barrier = out->oncpu_share = out->wait_share = out->steal_share = NAN;
	out->floor_ns = NAN;
	if (w->have_run && dt) {
		for (int i = 0; i < w->spinners; i++) {
			uint64_t run, wait;
			double on, wt;

			if (task_schedstat(w->tid[i], &run, &wait) < 0) {
				out->oncpu_share = out->wait_share = NAN;
				break;
			}
			/* Read as of the last tick, a run time may lag by one at each
			 * end: the benefit of the doubt, at most HZ=100's 10 ms. */
			if (w->coarse)
				run += 10000000;
			on = (double)(run - w->run0[i]) / (double)dt;
			wt = (double)(wait - w->wait0[i]) / (double)dt;
			/* The clock and the scheduler's differ by a tick's rounding. */
			on = on > 1 ? 1 : on;
			wt = wt > 1 ? 1 : wt;
			if (isnan(out->oncpu_share) || on < out->oncpu_share) {
				out->oncpu_share = on;
				out->wait_share = wt;
			}
		}
	}
	if (w->have_irq && barriers) {
		uint64_t *now = xcalloc((size_t)w->ncpus + 1, sizeof(uint64_t));
		uint64_t *tmp = xcalloc((size_t)w->ncpus + 1, sizeof(uint64_t));

		if (!read_irqs(w->ncpus, now, tmp)) {
			uint64_t sum = 0;

			for (int j = 0; j < w->ntargets; j++)
				sum += now[w->cpus[j]] - w->irq0[w->cpus[j]];
			out->ipis_per_barrier = (double)sum / (double)barriers;
		}
		free(now);
		free(tmp);
	}
	if (w->have_steal && !read_steal(&steal, &total) && total > w->total0)
		out->steal_share = (double)(steal - w->steal0) / (double)(total - w->total0);
}

int work_degraded(const struct workdone *w, const struct work *k, char *why, size_t len)
{
	if (!w->judged)
		return 0;
	if (!isnan(k->oncpu_share) && k->oncpu_share < ONCPU_MIN) {
		double off = 1 - k->oncpu_share;

		/* Off its CPU and runnable: another task ran there. Off and not
		 * waiting: interrupt and softirq time, or the hypervisor's (the
		 * scheduler's task clock leaves out both). */
		if (k->wait_share >= off / 2)
			snprintf(why, len,
				 "a target thread was on its CPU %.0f%% of the repeat: another task had it %.0f%%",
				 100 * k->oncpu_share, 100 * k->wait_share);
		else
			snprintf(why, len,
				 "a target thread was on its CPU %.0f%% of the repeat: interrupts or the hypervisor had it (host steal %.1f%%)",
				 100 * k->oncpu_share, isnan(k->steal_share) ? 0 : 100 * k->steal_share);
		return 1;
	}
	if (isnan(k->ipis_per_barrier) || w->expect_ipis < 0)
		return 0;
	if (w->expect_ipis > 0 && k->ipis_per_barrier < IPI_MIN * w->expect_ipis) {
		if (isnan(k->oncpu_share))
			snprintf(why, len, "%.3f IPIs per barrier where %.0f were due", k->ipis_per_barrier,
				 w->expect_ipis);
		else
			snprintf(why, len,
				 "%.3f IPIs per barrier where %.0f were due, with the targets on their CPUs %.0f%% of the repeat",
				 k->ipis_per_barrier, w->expect_ipis, 100 * k->oncpu_share);
		return 1;
	}
	if (w->expect_ipis == 0 && k->ipis_per_barrier > IPI_SLEEP_MAX * w->ntargets) {
		snprintf(why, len, "%.3f IPIs per barrier to sleeping targets, where none were due",
			 k->ipis_per_barrier);
		return 1;
	}
	return 0;
}

void worksum_reset(struct worksum *s)
{
	memset(s, 0, sizeof(*s));
}

/* A measured figure into its sum and count; NAN (not measured) is left out. */
static void acc(double *sum, int *n, double v)
{
	if (!isnan(v)) {
		*sum += v;
		(*n)++;
	}
}

void worksum_add(struct worksum *s, const struct work *k, int degraded, const char *why)
{
	if (degraded) {
		if (!s->degraded++)
			snprintf(s->why, sizeof(s->why), "%s", why);
		return;
	}
	s->good++;
	acc(&s->ipis, &s->n_ipis, k->ipis_per_barrier);
	acc(&s->oncpu, &s->n_oncpu, k->oncpu_share);
	acc(&s->steal, &s->n_steal, k->steal_share);
	acc(&s->floor, &s->n_floor, k->floor_ns);
}

int work_attempts(int want)
{
	return want + (want > 3 ? want : 3);
}
