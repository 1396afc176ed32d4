// SPDX-License-Identifier: MIT
/*
 * contend's repeat: C callers issue barriers at full speed for a duration
 * while spinners keep the other CPUs busy, as threads of one process or as
 * C processes with spinners of their own; the marks of what the barriers
 * did (workdone.h) go from the start to the stop (contend.h).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contend.h"
#include "experiment.h"
#include "pinned.h"
#include "util.h"

/* The threads of one process; thread i is worker idx[i]. */
struct worker_group {
	struct run *r;
	const int *idx;	/* < callers: a caller; else a spinner */
};

static void caller_loop(struct run *r, int i)
{
	struct caller_slot *s = &r->sh->slot[i];
	const struct mechanism *m = r->m;

	while (!atomic_load(&r->sh->go))
		cpu_relax();
	while (!atomic_load_explicit(&r->sh->stop, memory_order_relaxed)) {
		uint64_t t0 = now_ns(), t1;
		int e = m->barrier(m);

		t1 = now_ns();
		if (e) {
			s->err = e;
			break;
		}
		hist_add(&s->h, t1 - t0);
		/* read by the main thread at the repeat's end mark */
		__atomic_store_n(&s->calls, s->calls + 1, __ATOMIC_RELAXED);
		s->ns += t1 - t0;
	}
}

/*
 * The team index a worker gives thread_init: spinners first, then the
 * callers. A mechanism that aims at its first team thread (the targeted
 * RSEQ command) so aims at the first spinner of the caller's own process,
 * as in calls, not at a caller: in processes mode each caller process
 * targets its own spinner's CPU, so the targets differ.
 */
static int team_index(const struct run *r, int idx)
{
	return idx >= r->callers ? idx - r->callers : r->spinners + idx;
}

static void worker_init(void *arg, int i)
{
	struct worker_group *g = arg;
	struct run *r = g->r;

	r->sh->tid[g->idx[i]] = (pid_t)syscall(SYS_gettid);
	if (r->m->thread_init)
		r->m->thread_init(r->m, team_index(r, g->idx[i]));
	atomic_fetch_add(&r->sh->ready, 1);
}

static void worker_body(void *arg, int i)
{
	struct worker_group *g = arg;
	struct run *r = g->r;

	if (g->idx[i] < r->callers) {
		caller_loop(r, g->idx[i]);
		atomic_fetch_add(&r->sh->callers_done, 1);
	}
	/*
	 * Stay alive until every caller has finished its last barrier: a
	 * signal-scheme caller waits for an ack from each thread it signalled.
	 */
	while (atomic_load_explicit(&r->sh->callers_done, memory_order_relaxed) <
	       r->callers)
		cpu_relax();
}

/* Run the given workers (indices) as threads of this process; join. */
static void run_threads(struct run *r, const int *idx, int n)
{
	int *cpus = xcalloc((size_t)n, sizeof(int));
	struct worker_group g = { r, idx };
	struct pinned p;
	struct mech_team mt;
	char err[256];

	for (int i = 0; i < n; i++)
		cpus[i] = r->pl->pu_os[idx[i]];
	if (spawn_pinned(&p, r->topo, cpus, n, worker_init, worker_body, &g, err,
			 sizeof(err))) {
		snprintf(r->sh->why, sizeof(r->sh->why), "%s", err);
		atomic_store(&r->sh->failed, 1);
		/* Its callers will not run: do not keep other spinners waiting. */
		for (int i = 0; i < n; i++)
			if (idx[i] < r->callers)
				atomic_fetch_add(&r->sh->callers_done, 1);
		free(cpus);
		return;
	}
	/* The signal scheme needs the threads of this process to signal. */
	mt.nthreads = n;
	mt.threads = p.th;
	if (r->m->attach && r->m->attach(r->m, &mt))
		r->sh->slot[idx[0]].err = -ENOMEM;
	atomic_fetch_add(&r->sh->attached, 1);
	pinned_join(&p);
	if (r->m->detach)
		r->m->detach(r->m);
	free(cpus);
}

struct thread_batch {
	struct run *r;
	int *idx, n;
};

static void *batch_main(void *arg)
{
	struct thread_batch *b = arg;

	run_threads(b->r, b->idx, b->n);
	return NULL;
}

size_t shared_size(int nslots, int nworkers)
{
	return sizeof(struct shared) + (size_t)nslots * sizeof(struct caller_slot) +
	       (size_t)nslots * HIST_BUCKETS * sizeof(uint64_t) + (size_t)nworkers * sizeof(pid_t);
}

struct shared *shared_map(int nslots, int nworkers)
{
	size_t len = shared_size(nslots, nworkers);
	struct shared *sh = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t *buckets;

	if (sh == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	buckets = (uint64_t *)&sh->slot[nslots];
	for (int i = 0; i < nslots; i++) {
		sh->slot[i].h.b = buckets + (size_t)i * HIST_BUCKETS;
		sh->slot[i].h.min = UINT64_MAX;
	}
	sh->tid = (pid_t *)(buckets + (size_t)nslots * HIST_BUCKETS);
	return sh;
}

/*
 * One repeat. Threads mode: every worker is a thread here. Processes mode:
 * caller i is a child process with spinners/callers spinners of its own, so
 * every process has the shape of the one-caller case.
 */
int run_once(struct run *r, int processes, double duration_s, char *reason, size_t len)
{
	int total = r->callers + r->spinners;
	pid_t *kids = NULL;
	int nkids = 0, *idx = xcalloc((size_t)total, sizeof(int));
	pthread_t driver;
	struct thread_batch batch;
	int ret = 0;

	if (!processes) {
		for (int i = 0; i < total; i++)
			idx[i] = i;
		batch.r = r;
		batch.idx = idx;
		batch.n = total;
		int err = pthread_create(&driver, NULL, batch_main, &batch);

		if (err) /* pthread_create returns its error; errno is not set */
			fail("pthread_create: %s", strerror(err));
	} else {
		kids = xcalloc((size_t)r->callers, sizeof(pid_t));
		fflush(NULL);
		for (int c = 0; c < r->callers; c++) {
			pid_t pid = fork();

			if (pid < 0) {
				snprintf(reason, len, "fork: %s", strerror(errno));
				/* Callers c.. never run: the spinners of the
				 * processes started must not wait for them. */
				atomic_fetch_add(&r->sh->callers_done, r->callers - c);
				atomic_store(&r->sh->stop, 1);
				atomic_store(&r->sh->go, 1);
				ret = -1;
				break;
			}
			if (pid == 0) {
				char why[256];
				int n = 0;

				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (r->m->setup && r->m->setup(r->m, why, sizeof(why))) {
					atomic_fetch_add(&r->sh->callers_done, 1);
					_exit(3);
				}
				idx[n++] = c;
				for (int k = 0; k < r->spinners / r->callers; k++)
					idx[n++] = r->callers + c * (r->spinners / r->callers) + k;
				run_threads(r, idx, n);
				_exit(0);
			}
			kids[nkids++] = pid;
		}
	}
	if (!ret) {
		while (atomic_load(&r->sh->ready) < total ||
		       atomic_load(&r->sh->attached) < (processes ? nkids : 1)) {
			if (atomic_load(&r->sh->failed)) {
				ret = -1;
				break;
			}
			if (processes) {
				int st;

				for (int k = 0; k < nkids; k++)
					if (waitpid(kids[k], &st, WNOHANG) == kids[k]) {
						snprintf(reason, len, "a caller process failed to start");
						ret = -1;
						kids[k] = -1;
					}
				if (ret)
					break;
			}
			usleep(1000);
		}
		if (ret && atomic_load(&r->sh->failed))
			snprintf(reason, len, "%s", r->sh->why);
		if (!ret) {
			r->work->tids = r->sh->tid + r->callers;
			workdone_begin(r->work);
		}
		atomic_store(&r->sh->go, 1);
		if (!ret) {
			uint64_t calls = 0;

			usleep((useconds_t)(duration_s * 1e6));
			/* The callers' counts so far: the barriers the marks saw. */
			for (int c = 0; c < r->callers; c++)
				calls += __atomic_load_n(&r->sh->slot[c].calls, __ATOMIC_RELAXED);
			workdone_end(r->work, calls, r->done);
		}
		atomic_store(&r->sh->stop, 1);
	}
	if (!processes) {
		pthread_join(driver, NULL);
	} else {
		for (int k = 0; k < nkids; k++) {
			int st;

			if (kids[k] > 0)
				while (waitpid(kids[k], &st, 0) < 0 && errno == EINTR)
					;
		}
		free(kids);
	}
	free(idx);
	return ret;
}

/*
 * What a repeat's barriers should do: interrupt the spinners' CPUs that no
 * caller shares, each of them once per barrier of a process-wide membarrier
 * command (in processes mode, the caller's own process's: its share of
 * them), the first spinner's once for a targeted one. Spinners should stay
 * on their CPUs. Oversubscribed points are marked, never judged.
 */
void contend_work(struct workdone *w, const struct run *r, const struct placement *pl, int processes)
{
	const struct mechanism *m = r->m;
	int *cpus = xcalloc((size_t)r->spinners + 1, sizeof(int)), n = 0;
	double expect = -1;

	for (int i = r->callers; i < r->callers + r->spinners; i++) {
		int shared = 0;

		for (int c = 0; c < r->callers; c++)
			shared |= pl->pu_os[c] == pl->pu_os[i];
		if (!shared)
			cpus[n++] = pl->pu_os[i];
	}
	/* Oversubscribed with every spinner beside a caller: count on the
	 * spinners' CPUs all the same (marked, not judged). */
	for (int i = r->callers; i < r->callers + r->spinners && !n && pl->oversubscribed; i++)
		cpus[n++] = pl->pu_os[i];
	if (!pl->oversubscribed && m->membarrier_cmd && mech_has(m, MC_IPI, 0) && n)
		expect = !mech_has(m, MC_PROCESS_WIDE, 0) ? 1 : processes ? (double)n / r->callers : n;
	/* spinner i is worker callers + i: its tid is sh->tid[callers + i],
	 * filled in each repeat's shared mapping (see run_once) */
	workdone_init_cpus(w, cpus, n, NULL, r->spinners, !pl->oversubscribed, expect);
	free(cpus);
}
