// SPDX-License-Identifier: MIT
/* Team start/stop (threads or a child process) and the timed barrier loops. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static void worker_init(void *arg, int i)
{
	struct team *t = arg;

	if (t->tids)
		t->tids[i] = (pid_t)syscall(SYS_gettid);
	if (t->cfg.mech->thread_init)
		t->cfg.mech->thread_init(t->cfg.mech, i);
}

static void worker_body(void *arg, int i)
{
	struct team *t = arg;

	behaviour_run(t->cfg.behs ? t->cfg.behs[i] : t->cfg.beh, &t->stop);
}

/* Create nth workers (pinned, thread_init done) and release them. */
static int spawn_workers(struct team *t, char *err, size_t len)
{
	if (spawn_pinned(&t->workers, t->cfg.topo, t->cfg.pl->pu_os + 1, t->nth,
			 worker_init, worker_body, t, err, len))
		return -1;
	t->th = t->workers.th;
	return 0;
}

static void join_workers(struct team *t)
{
	stop_wake(&t->stop);
	pinned_join(&t->workers);
	t->th = NULL;
}

/* The child: run the team there; report readiness; stop when the pipe closes. */
static void child_main(struct team *t, int ready_fd, int ctl_fd)
{
	char reason[256] = "", c;
	int ok;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	ok = !t->cfg.mech->setup ||
	     !t->cfg.mech->setup(t->cfg.mech, reason, sizeof(reason));
	if (ok && spawn_workers(t, reason, sizeof(reason)))
		ok = 0;
	if (!ok) {
		if (write(ready_fd, reason, strlen(reason) + 1) < 0)
			_exit(1);
		_exit(1);
	}
	if (write(ready_fd, "", 1) < 0)
		_exit(1);
	close(ready_fd);
	while (read(ctl_fd, &c, 1) > 0)
		;
	join_workers(t);
	_exit(0);
}

int team_start(struct team *t, const struct team_cfg *cfg, char *err, size_t len)
{
	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	t->nth = cfg->pl->n - 1;
	t->child = -1;
	t->ctl_fd = -1;
	t->saved = topo_bitmap();
	hwloc_get_cpubind(cfg->topo, t->saved, HWLOC_CPUBIND_THREAD);
	if (topo_bind_self(cfg->topo, cfg->pl->pu_os[0])) {
		snprintf(err, len, "cannot bind the caller to CPU %d: %s",
			 cfg->pl->pu_os[0], strerror(errno));
		return -1;
	}
	if (t->nth > 0) {
		void *p = mmap(NULL, sizeof(pid_t) * (size_t)t->nth, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		t->tids = p == MAP_FAILED ? NULL : p;	/* without it: no schedstat */
	}

	if (cfg->other_process && t->nth > 0) {
		int ready[2], ctl[2];
		char buf[256];
		ssize_t n;

		if (pipe(ready) || pipe(ctl)) {
			snprintf(err, len, "pipe: %s", strerror(errno));
			return -1;
		}
		fflush(NULL);
		t->child = fork();
		if (t->child < 0) {
			snprintf(err, len, "fork: %s", strerror(errno));
			return -1;
		}
		if (t->child == 0) {
			close(ready[0]);
			close(ctl[1]);
			child_main(t, ready[1], ctl[0]);
		}
		close(ready[1]);
		close(ctl[0]);
		t->ctl_fd = ctl[1];
		n = read(ready[0], buf, sizeof(buf) - 1);
		close(ready[0]);
		if (n != 1 || buf[0] != '\0') {
			buf[n > 0 ? n : 0] = '\0';
			snprintf(err, len, "other-process team failed: %s",
				 n > 0 ? buf : "child exited");
			team_stop(t);
			return -1;
		}
		t->mt.nthreads = 0;
		t->mt.threads = NULL;
	} else {
		if (spawn_workers(t, err, len)) {
			team_stop(t);
			return -1;
		}
		t->mt.nthreads = t->nth;
		t->mt.threads = t->th;
	}
	if (cfg->mech->attach && cfg->mech->attach(cfg->mech, &t->mt)) {
		snprintf(err, len, "%s: attach failed", cfg->mech->name);
		team_stop(t);
		return -1;
	}
	return 0;
}

void team_stop(struct team *t)
{
	if (t->cfg.mech->detach)
		t->cfg.mech->detach(t->cfg.mech);
	if (t->child > 0) {
		int st;

		close(t->ctl_fd);
		while (waitpid(t->child, &st, 0) < 0 && errno == EINTR)
			;
		t->child = -1;
	} else if (t->th) {
		join_workers(t);
	}
	if (t->tids) {
		munmap(t->tids, sizeof(pid_t) * (size_t)t->nth);
		t->tids = NULL;
	}
	if (t->saved) {
		hwloc_set_cpubind(t->cfg.topo, t->saved, HWLOC_CPUBIND_THREAD);
		hwloc_bitmap_free(t->saved);
		t->saved = NULL;
	}
}

/*
 * A planted regression (harness_plant): plant_pct percent of the barrier's
 * cost, measured at warm-up, busy-waited after each barrier, so that
 * calibrate can see whether a comparison finds a change of that size.
 */
static double plant_pct;
static uint64_t plant_ns;

void harness_plant(double pct)
{
	plant_pct = pct;
	plant_ns = 0;
}

static int planted(const struct mechanism *m)
{
	int e = m->barrier(m);
	uint64_t end = now_ns() + plant_ns;

	while (now_ns() < end)
		;
	return e;
}

static int run_batch(const struct mechanism *m, uint64_t n, uint64_t *done)
{
	int (*fn)(const struct mechanism *) = plant_ns ? planted : m->barrier;

	for (uint64_t i = 0; i < n; i++) {
		int e = fn(m);

		if (e) {
			*done = i;
			return e;
		}
	}
	*done = n;
	return 0;
}

int harness_warmup(const struct mechanism *m, double budget_s)
{
	uint64_t end = now_ns() + (uint64_t)(budget_s * 1e9), done;
	int e = 0;

	for (int i = 0; i < 1000 && !e; i++) {
		e = run_batch(m, 1, &done);
		if (i >= 2 && now_ns() >= end)
			break;
	}
	if (plant_pct > 0 && !e) {	/* the cost the plant is a share of */
		uint64_t t0;

		plant_ns = 0;
		t0 = now_ns();
		e = run_batch(m, 20, &done);
		plant_ns = (uint64_t)((double)(now_ns() - t0) / 20 * plant_pct / 100);
	}
	return e;
}

void harness_measure(const struct mechanism *m, uint64_t iterations,
		     double duration_s, struct hist *h, struct measure *out)
{
	uint64_t budget = (uint64_t)(duration_s * 1e9);
	/* ~50 clock reads per run keep the clock out of the loop. */
	uint64_t target = budget / 50 ? budget / 50 : 1;
	uint64_t batch = 1, done;

	memset(out, 0, sizeof(*out));
	if (h) {
		/* Latency: the clock is the measurement; read it around each call. */
		uint64_t start = now_ns();

		for (uint64_t i = 0; !iterations || i < iterations; i++) {
			uint64_t t0 = now_ns(), t1;
			int e = plant_ns ? planted(m) : m->barrier(m);

			t1 = now_ns();
			if (e) {
				out->err = e;
				break;
			}
			hist_add(h, t1 - t0);
			out->calls++;
			out->ns += t1 - t0;
			if (!iterations && t1 - start >= budget)
				break;
		}
		return;
	}
	if (iterations) {
		uint64_t t0 = now_ns();

		out->err = run_batch(m, iterations, &done);
		out->ns = now_ns() - t0;
		out->calls = done;
		return;
	}
	while (out->ns < budget) {
		uint64_t t0 = now_ns(), dt;

		out->err = run_batch(m, batch, &done);
		dt = now_ns() - t0;
		out->ns += dt;
		out->calls += done;
		if (out->err)
			break;
		/* Grow the batch toward the target time, at most 4x a step. */
		if (dt < target) {
			uint64_t want = dt ? batch * target / dt : batch * 4;

			batch = want > batch * 4 ? batch * 4 : (want ? want : 1);
		}
		{
			/* Do not overshoot the budget by more than one call. */
			uint64_t left = out->ns < budget ? budget - out->ns : 0;
			uint64_t per_call = out->ns / out->calls + 1;
			uint64_t cap = left / per_call + 1;

			if (batch > cap)
				batch = cap;
		}
	}
}

void harness_paced(const struct mechanism *m, double rate_per_s,
		   double duration_s, struct hist *h, struct measure *out)
{
	uint64_t start = now_ns(), end = start + (uint64_t)(duration_s * 1e9);
	uint64_t period = rate_per_s > 0 ? (uint64_t)(1e9 / rate_per_s) : 0;
	uint64_t next = start;

	memset(out, 0, sizeof(*out));
	for (;;) {
		uint64_t t0, t1;
		int e;

		if (period) {
			struct timespec ts;

			/* No barrier left in the window: wait out its end, so the
			 * storm lasts --duration whatever the rate. */
			if (next >= end)
				next = end;
			ts.tv_sec = (time_t)(next / 1000000000ull);
			ts.tv_nsec = (long)(next % 1000000000ull);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		}
		t0 = now_ns();
		if (t0 >= end || (period && next >= end))
			break;
		e = m->barrier(m);
		t1 = now_ns();
		if (e) {
			out->err = e;
			break;
		}
		if (h)
			hist_add(h, t1 - t0);
		out->calls++;
		out->ns += t1 - t0;
		next += period;
		/* More than one period late: restart the schedule from now. */
		if (period && next + period < t1)
			next = t1;
	}
}

void harness_bare_loop(const struct mechanism *m, uint64_t iterations,
		       struct measure *out)
{
	/* The plainest loop over the same call: one clock read each side. */
	int (*fn)(const struct mechanism *) = m->barrier;
	uint64_t t0 = now_ns();

	memset(out, 0, sizeof(*out));
	for (uint64_t i = 0; i < iterations; i++)
		fn(m);
	out->ns = now_ns() - t0;
	out->calls = iterations;
}
