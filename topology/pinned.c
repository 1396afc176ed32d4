// SPDX-License-Identifier: MIT
/* spawn_pinned: bind inside the thread, report to the creator, then start. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pinned.h"
#include "topo.h"
#include "util.h"

struct pinned_slot {
	struct pinned *p;
	int i;
};

static void *pinned_main(void *arg)
{
	struct pinned_slot *s = arg;
	struct pinned *p = s->p;
	int run;

	if (topo_bind_self(p->topo, p->cpus[s->i])) {
		int none = 0;

		if (errno == ENOMEM)
			atomic_store(&p->bind_oom, 1);
		atomic_compare_exchange_strong(&p->bind_failed, &none, p->cpus[s->i] + 1);
	}
	if (p->init)
		p->init(p->arg, s->i);
	pthread_mutex_lock(&p->lock);
	p->arrived++;
	pthread_cond_broadcast(&p->cond);
	while (!p->released)
		pthread_cond_wait(&p->cond, &p->lock);
	run = p->run_body;
	pthread_mutex_unlock(&p->lock);
	if (run)
		p->body(p->arg, s->i);
	return NULL;
}

static void release(struct pinned *p, int run_body)
{
	pthread_mutex_lock(&p->lock);
	p->run_body = run_body;
	p->released = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void destroy(struct pinned *p)
{
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->th);
	free(p->slot);
	p->th = NULL;
	p->slot = NULL;
	p->n = 0;
}

int spawn_pinned(struct pinned *p, hwloc_topology_t topo, const int *cpus, int n,
		 pinned_fn init, pinned_fn body, void *arg, char *err, size_t len)
{
	int bad, e = 0;

	memset(p, 0, sizeof(*p));
	p->topo = topo;
	p->cpus = cpus;
	p->init = init;
	p->body = body;
	p->arg = arg;
	p->th = xcalloc((size_t)(n ? n : 1), sizeof(*p->th));
	p->slot = xcalloc((size_t)(n ? n : 1), sizeof(*p->slot));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	for (; p->n < n; p->n++) {
		p->slot[p->n].p = p;
		p->slot[p->n].i = p->n;
		if (p->n == n - 1 && n > 1 && fault_point("spawn-fail")) {	/* util.h */
			e = EAGAIN;
			break;
		}
		e = pthread_create(&p->th[p->n], NULL, pinned_main, &p->slot[p->n]);
		if (e)
			break;
	}
	pthread_mutex_lock(&p->lock);
	while (p->arrived < p->n)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	bad = atomic_load(&p->bind_failed);
	if (!e && !bad) {
		release(p, 1);
		return 0;
	}
	if (e)
		snprintf(err, len, "pthread_create: %s", strerror(e));
	else
		snprintf(err, len, "cannot bind a thread to CPU %d%s", bad - 1,
			 atomic_load(&p->bind_oom) ? ": out of memory" : "");
	release(p, 0);
	for (int i = 0; i < p->n; i++)
		pthread_join(p->th[i], NULL);
	destroy(p);
	return -1;
}

void pinned_join(struct pinned *p)
{
	for (int i = 0; i < p->n; i++)
		pthread_join(p->th[i], NULL);
	destroy(p);
}
