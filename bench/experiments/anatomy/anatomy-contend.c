// SPDX-License-Identifier: MIT
/*
 * anatomy --contenders N: the wait on the kernel's expedited mutex, seen
 * from the traced caller. N - 1 other processes issue the same command in a
 * loop (each with one idle second thread: a barrier of a one-thread process
 * returns before the mutex) while more traced batches run; their entry ->
 * first queue phase (entry -> first IPI without csd:*) next to the one
 * traced alone is the mutex wait, as a `setup-contended` (`to-ipi-contended`)
 * phase row.
 *
 * The contenders are forked before the team starts, so they hold no perf
 * event and no copy of a spinning thread, and wait for a shared flag. They
 * die with mbbench whatever ends it (PR_SET_PDEATHSIG, set before the
 * parent is checked) and are killed and reaped by ana_contenders_stop on
 * every ordinary path.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "anatomy-trace.h"
#include "experiment.h"
#include "results.h"
#include "util.h"

struct ana_shared {
	_Atomic int ready, go, failed;
	_Atomic unsigned long calls;
	char why[256];
};

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void __attribute__((noreturn))
contender(const struct mechanism *m, struct ana_shared *sh, pid_t parent)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	char why[200];
	pthread_t th;
	int e;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* it died before PDEATHSIG was set */
		_exit(0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	prctl(PR_SET_NAME, "mbb-contender");
	if (m->setup && m->setup(m, why, sizeof(why))) {
		if (!atomic_exchange(&sh->failed, 1))
			snprintf(sh->why, sizeof(sh->why), "a contender's setup: %s", why);
		_exit(3);
	}
	e = pthread_create(&th, NULL, idle_thread, NULL);
	if (e) {
		if (!atomic_exchange(&sh->failed, 1))
			snprintf(sh->why, sizeof(sh->why), "a contender's thread: %s", strerror(e));
		_exit(3);
	}
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load(&sh->go))
		sleep_ms(1);
	for (;;) {
		e = m->barrier(m);
		if (e) {
			if (!atomic_exchange(&sh->failed, 1))
				snprintf(sh->why, sizeof(sh->why), "a contender's barrier: %s",
					 strerror(-e));
			_exit(3);
		}
		atomic_fetch_add_explicit(&sh->calls, 1, memory_order_relaxed);
	}
}

void ana_contenders_stop(struct ana_contenders *c)
{
	for (int i = 0; i < c->n; i++)
		if (c->pid[i] > 0)
			kill(c->pid[i], SIGKILL);
	for (int i = 0; i < c->n; i++) {
		int st;

		if (c->pid[i] > 0)
			while (waitpid(c->pid[i], &st, 0) < 0 && errno == EINTR)
				;
		c->pid[i] = 0;
	}
	free(c->pid);
	c->pid = NULL;
	c->n = 0;
	if (c->sh)
		munmap(c->sh, sizeof(*c->sh));
	c->sh = NULL;
}

int ana_contenders_start(struct ana_contenders *c, const struct mechanism *m, int others,
			 char *why, size_t len)
{
	pid_t parent = getpid();

	memset(c, 0, sizeof(*c));
	c->sh = mmap(NULL, sizeof(*c->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (c->sh == MAP_FAILED) {
		c->sh = NULL;
		snprintf(why, len, "contenders: mmap: %s", strerror(errno));
		return -1;
	}
	c->pid = xcalloc((size_t)others, sizeof(pid_t));
	fflush(NULL);
	for (; c->n < others; c->n++) {
		pid_t pid = fork();

		if (pid < 0) {
			snprintf(why, len, "contenders: fork: %s", strerror(errno));
			ana_contenders_stop(c);
			return -1;
		}
		if (pid == 0)
			contender(m, c->sh, parent);
		c->pid[c->n] = pid;
	}
	/* Every one set up, its thread started: 10 s at most. */
	for (int i = 0; atomic_load(&c->sh->ready) < others; i++) {
		if (atomic_load(&c->sh->failed) || i == 10000) {
			snprintf(why, len, "%s", atomic_load(&c->sh->failed) ? c->sh->why :
				 "contenders: not ready within 10 s");
			ana_contenders_stop(c);
			return -1;
		}
		sleep_ms(1);
	}
	return 0;
}

/* Release them and wait until each has issued barriers (2 s at most). */
static int contenders_go(struct ana_contenders *c, char *why, size_t len)
{
	atomic_store(&c->sh->go, 1);
	for (int i = 0; atomic_load(&c->sh->calls) < 10UL * (unsigned long)c->n; i++) {
		if (atomic_load(&c->sh->failed) || i == 2000) {
			snprintf(why, len, "%s", atomic_load(&c->sh->failed) ? c->sh->why :
				 "contenders: no barrier issued within 2 s");
			return -1;
		}
		sleep_ms(1);
	}
	return 0;
}

int ana_contended(struct ana_contenders *c, const struct ana_contend_point *p,
		  char *why, size_t len)
{
	static const double pcts[] = { 50, 90, 99 };
	static const char *const col[] = { "p50_ns", "p90_ns", "p99_ns" };
	static const char *const ci[] = { "p50_ns_ci95", "p90_ns_ci95", "p99_ns_ci95" };
	enum ana_phase ph = p->csd ? PH_SETUP : PH_TO_IPI;
	struct pct_batches bp;
	struct hist all, cur;
	char name[32];
	int err = 0, r;
	unsigned long calls0;

	if (contenders_go(c, why, len))
		return -1;
	hist_init(&all);
	hist_init(&cur);
	pct_batches_init(&bp, pcts, 3, p->nb);
	calls0 = atomic_load(&c->sh->calls);
	for (int b = 0; b < p->nb && !err; b++) {
		uint64_t per = (uint64_t)(p->barriers / p->nb + (b < p->barriers % p->nb));
		struct measure mt;
		struct hist ht;
		struct ana_result res;
		double v;

		hist_init(&ht);
		hist_reset(&cur);
		ana_trace_enable(p->tr, 1);
		harness_measure(p->m, per, 0, &ht, &mt);
		ana_trace_enable(p->tr, 0);
		ana_trace_drain(p->tr);
		hist_free(&ht);
		err = mt.err;
		ana_match(p->tr->ev, p->tr->nev, p->cfg, &res);
		for (size_t w = 0; w < res.n; w++)
			if (!ana_phase_value(&res.b[w], ph, 0, &v))
				hist_add(&cur, (uint64_t)v);
		ana_result_free(&res);
		p->tr->nev = 0;
		if (cur.count) {
			pct_batches_add(&bp, &cur);
			hist_merge(&all, &cur);
		}
	}
	if (atomic_load(&c->sh->failed)) {
		snprintf(why, len, "%s", c->sh->why);
		err = -1;
	} else if (err) {
		snprintf(why, len, "barrier failed with contenders: %s", strerror(-err));
	} else if (all.count) {
		snprintf(name, sizeof(name), "%s-contended", ana_phase_name(ph));
		r = table_add_row(p->pt);
		table_set_str(p->pt, r, "mechanism", p->m->name);
		table_set_int(p->pt, r, "threads", p->T);
		table_set_str(p->pt, r, "phase", name);
		table_set_str(p->pt, r, "target_cpu", "all");
		table_set_int(p->pt, r, "samples", (long long)all.count);
		for (int k = 0; k < 3; k++)
			table_set_num(p->pt, r, col[k], hist_percentile(&all, pcts[k]));
		table_set_num(p->pt, r, "mean_ns", all.sum / (double)all.count);
		table_set_int(p->pt, r, "batches", bp.n);
		if (bp.n >= 2)
			for (int k = 0; k < 3; k++)
				table_set_num(p->pt, r, ci[k], pct_batches_ci95(&bp, k));
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		results_note(p->res, "%s T=%d: %s p50 %.0f ns traced alone, %.0f ns with %d callers issuing it (%d other process%s, %lu of their barriers meanwhile): the difference, %.0f ns, is the wait on the expedited mutex where it exceeds both rows' p50_ns_ci95%s",
			     p->m->name, p->T, ana_phase_name(ph), p->alone_p50, hist_percentile(&all, 50),
			     c->n + 1, c->n, c->n == 1 ? "" : "es", atomic_load(&c->sh->calls) - calls0,
			     hist_percentile(&all, 50) - p->alone_p50,
			     online > 0 && p->T + c->n > online ?
			     " (the contenders share CPUs with the team: their scheduling is in it too)" : "");
	} else {
		results_note(p->res, "%s T=%d: with contenders running no window was complete (the team's spinner was never current when a barrier looked: a loaded host); no contended phase", p->m->name, p->T);
	}
	pct_batches_free(&bp);
	hist_free(&all);
	hist_free(&cur);
	return err ? -1 : 0;
}
