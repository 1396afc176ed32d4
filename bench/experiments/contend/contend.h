/* SPDX-License-Identifier: MIT */
/*
 * contend's pieces: the callers and spinners of one repeat (contend-run.c)
 * and the serialization factor (contend-factor.c); exp-contend.c has the
 * experiment.
 */
#ifndef MBBENCH_CONTEND_H
#define MBBENCH_CONTEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "barrier.h"
#include "output.h"
#include "topo.h"
#include "stats.h"
#include "workdone.h"

/* Shared with the children in processes mode. */
struct caller_slot {
	uint64_t calls, ns;
	int err;
	struct hist h;	/* buckets live in the shared mapping too */
};

struct shared {
	_Atomic int ready, attached, go, stop, callers_done;
	_Atomic int failed;	/* a process could not start its threads: why */
	char why[256];
	pid_t *tid;		/* worker i's tid, in the shared mapping */
	struct caller_slot slot[];
};

struct run {
	const struct mechanism *m;
	hwloc_topology_t topo;
	const struct placement *pl;	/* callers first, then spinners */
	int callers, spinners;		/* spinners: in all (threads mode) */
	struct shared *sh;
	struct workdone *work;	/* marked from go to stop */
	struct work *done;
	uint64_t calls;		/* this repeat's, all callers */
};


/* The shared mapping of nslots callers and nworkers threads in all. */
size_t shared_size(int nslots, int nworkers);
struct shared *shared_map(int nslots, int nworkers);
/*
 * One repeat. Threads mode: every worker is a thread here. Processes mode:
 * caller i is a child process with spinners/callers spinners of its own.
 * 0, or -1 with reason. r->work is marked from go to stop into r->done.
 */
int run_once(struct run *r, int processes, double duration_s, char *reason, size_t len);
/* What a repeat's barriers should do (workdone.h) for the point r and pl. */
void contend_work(struct workdone *w, const struct run *r, const struct placement *pl, int processes);

/*
 * Fill serialization_factor, its CI and serialization_skip_reason of every
 * processes-mode row of a contend table: aggregate rate at C over that at
 * C = 1 of the same mechanism. npus: the CPUs of the host.
 */
void contend_serialization(struct table *t, int npus);

#endif
