// SPDX-License-Identifier: MIT
/*
 * One timed run of a scheme: R readers and W writers started pinned, a
 * grace-period word, the slots the torture reads, and the scheme's hooks
 * around them. Nothing here knows which scheme it runs.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pinned.h"
#include "rcu.h"
#include "util.h"

struct rcu_threads {
	struct rcu_run *r;
	pthread_barrier_t go;
};

/* Thread i: readers first, then writers. */
static void rcu_thread_init(void *arg, int i)
{
	struct rcu_threads *g = arg;

	g->r->tids[i] = (pid_t)syscall(SYS_gettid);
	if (i < g->r->nreaders && g->r->s->reader_init)
		g->r->s->reader_init(g->r, i);
}

static void rcu_thread(void *arg, int i)
{
	struct rcu_threads *g = arg;
	struct rcu_run *r = g->r;

	pthread_barrier_wait(&g->go);
	fault_late_start(i, r->nreaders + r->nwriters, &r->stop);
	if (atomic_load(&r->stop)) {
		/* Stopped before it ran (a short run on a busy host): a writer
		 * still counts as done, or the readers would wait for it. */
		if (i >= r->nreaders)
			atomic_fetch_add(&r->writers_done, 1);
		return;
	}
	if (i >= r->nreaders) {
		r->s->writer(r, i - r->nreaders);
		atomic_fetch_add(&r->writers_done, 1);
	} else {
		struct timespec ts = { 0, 50000 };

		r->s->reader(r, i);
		/*
		 * Stay alive until every writer is out of synchronize: a
		 * writer may still be waiting for this thread's signal ack.
		 */
		while (atomic_load(&r->writers_done) < r->nwriters)
			nanosleep(&ts, NULL);
	}
}

int rcu_run_once(const struct rcu_scheme *s, int nreaders, int nwriters,
		 hwloc_topology_t topo, const int *cpus, double duration_s,
		 uint64_t cs_ns, uint64_t writer_delay_ns, const struct rcu_marks *marks,
		 struct rcu_result *res, char *reason, size_t len)
{
	struct rcu_run r;
	int n = nreaders + nwriters, ret = -1;
	struct rcu_threads g = { .r = &r };
	struct pinned p;
	struct timespec ts;
	uint64_t t0;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.nreaders = nreaders;
	r.nwriters = nwriters;
	r.cs_ns = cs_ns;
	r.writer_delay_ns = writer_delay_ns;
	r.readers = aligned_alloc(64, sizeof(*r.readers) * (size_t)(nreaders ? nreaders : 1));
	r.writers = aligned_alloc(64, sizeof(*r.writers) * (size_t)(nwriters ? nwriters : 1));
	r.tids = calloc((size_t)n + 1, sizeof(pid_t));
	if (!r.readers || !r.writers || !r.tids) {
		snprintf(reason, len, "cannot allocate the threads' slots: out of memory");
		free(r.readers);
		free(r.writers);
		free(r.tids);
		return -1;
	}
	memset(r.readers, 0, sizeof(*r.readers) * (size_t)(nreaders ? nreaders : 1));
	memset(r.writers, 0, sizeof(*r.writers) * (size_t)(nwriters ? nwriters : 1));
	for (int i = 0; i < nwriters; i++)
		r.writers[i].seq = (uint64_t)(i + 1) << 48;
	atomic_store(&r.gp, rcu_obj_new(NULL));

	if (s->setup && s->setup(&r, reason, len))
		goto out;
	pthread_barrier_init(&g.go, NULL, (unsigned)n + 1);
	if (spawn_pinned(&p, topo, cpus, n, rcu_thread_init, rcu_thread, &g, reason, len)) {
		pthread_barrier_destroy(&g.go);
		goto out;
	}
	r.reader_th = p.th;
	if (s->attach && s->attach(&r)) {
		snprintf(reason, len, "%s: attach failed", s->name);
		atomic_store(&r.stop, 1);
	} else {
		ret = 0;
	}
	/* Every thread wrote its tid before it reached the start barrier. */
	if (!ret && marks)
		marks->mark(marks->arg, r.tids);
	t0 = now_ns();
	pthread_barrier_wait(&g.go);
	if (!ret) {
		ts.tv_sec = (time_t)duration_s;
		ts.tv_nsec = (long)((duration_s - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (marks)
			marks->mark(marks->arg, NULL);
		atomic_store(&r.stop, 1);
	}
	res->ns = now_ns() - t0;
	pinned_join(&p);
	pthread_barrier_destroy(&g.go);
	if (!ret && atomic_load(&r.err)) {
		snprintf(reason, len, "write-side barrier failed: %s",
			 strerror(-atomic_load(&r.err)));
		ret = -1;
	}
	for (int i = 0; i < nreaders; i++) {
		res->reads += atomic_load(&r.readers[i].reads);
		res->violations += r.readers[i].violations;
		res->stolen_ns += r.readers[i].stolen_ns;
	}
	for (int i = 0; i < nwriters; i++) {
		res->writes += r.writers[i].writes;
		if (r.writers[i].peak_quarantined > res->peak_quarantined)
			res->peak_quarantined = r.writers[i].peak_quarantined;
	}
out:
	if (s->teardown)
		s->teardown(&r);
	for (int i = 0; i < nwriters; i++)
		rcu_quarantine_drain(&r.writers[i]);
	free(atomic_load(&r.gp));
	free(r.readers);
	free(r.writers);
	free(r.tids);
	return ret;
}
