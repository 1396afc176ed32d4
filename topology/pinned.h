/* SPDX-License-Identifier: MIT */
/*
 * Pinned threads, started one way: each thread binds itself to its CPU with
 * hwloc before it runs anything, runs its init, then waits at the start
 * gate; the creator learns of any binding failure before releasing them, so
 * no measured code ever runs on an unbound thread.
 */
#ifndef MBBENCH_PINNED_H
#define MBBENCH_PINNED_H

#include <hwloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* Thread i's init (before the gate) and body (after it). */
typedef void (*pinned_fn)(void *arg, int i);

struct pinned_slot;

struct pinned {
	pthread_t *th;		/* n threads, in the order of cpus */
	int n;
	/* private */
	hwloc_topology_t topo;
	const int *cpus;
	pinned_fn init, body;
	void *arg;
	struct pinned_slot *slot;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int arrived, released, run_body;
	_Atomic int bind_failed;	/* first CPU that failed, + 1 */
	_Atomic int bind_oom;		/* a binding failed for want of memory */
};

/*
 * Start n threads; thread i binds to OS CPU cpus[i], runs init(arg, i) when
 * given, and waits until every thread has done so. When all are bound the
 * threads are released into body(arg, i) and 0 is returned. Otherwise
 * (binding or pthread_create failed) no body runs: the threads are joined
 * and -1 is returned with err ("cannot bind a thread to CPU 3").
 */
int spawn_pinned(struct pinned *p, hwloc_topology_t topo, const int *cpus, int n,
		 pinned_fn init, pinned_fn body, void *arg, char *err, size_t len);
/* Wait for the bodies to return; free the group. */
void pinned_join(struct pinned *p);

#endif
