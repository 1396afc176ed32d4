/* SPDX-License-Identifier: MIT */
/*
 * The harness owns the team: it pins every thread before it starts, releases
 * them all from one barrier, owns the stop flag and the clock, and times the
 * caller's barrier loop with CLOCK_MONOTONIC read only between batches.
 */
#ifndef MBBENCH_HARNESS_H
#define MBBENCH_HARNESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "behaviour.h"
#include "mech.h"
#include "pinned.h"
#include "stats.h"
#include "topo.h"

struct team_cfg {
	hwloc_topology_t topo;
	const struct placement *pl;	/* pl->n threads; thread 0 = caller */
	enum behaviour beh;
	const enum behaviour *behs;	/* per team thread (not the caller), or NULL: beh */
	int other_process;		/* the other threads live in a child */
	const struct mechanism *mech;
};

struct team {
	struct team_cfg cfg;
	pthread_t *th;
	int nth;
	_Atomic int stop;
	struct pinned workers;
	struct mech_team mt;
	pid_t child;
	/* Each team thread's kernel id, written by the thread itself (shared
	 * with an other-process child): what its schedstat is read by. */
	pid_t *tids;
	int ctl_fd;		/* write end to the child; closing it stops it */
	hwloc_cpuset_t saved;	/* caller's binding before the team */
};

int team_start(struct team *t, const struct team_cfg *cfg, char *err, size_t len);
void team_stop(struct team *t);

struct measure {
	uint64_t calls;
	uint64_t ns;	/* time inside the barrier loop only */
	int err;	/* -errno of the first failing barrier, or 0 */
};

/*
 * Issue barriers for `iterations` calls, or for `duration_s` seconds when
 * iterations is 0. With h, every call is timed and added to h.
 */
void harness_measure(const struct mechanism *m, uint64_t iterations,
		     double duration_s, struct hist *h, struct measure *out);
/*
 * Issue barriers at rate_per_s (0: back to back) for duration_s, on an
 * absolute schedule (a late call does not cause a burst to catch up).
 * Every call is timed into h when h is given.
 */
void harness_paced(const struct mechanism *m, double rate_per_s,
		   double duration_s, struct hist *h, struct measure *out);
/*
 * Plant a regression: from the next warm-up on, pct percent of the cost the
 * warm-up measures is busy-waited after every barrier (0: none).
 */
void harness_plant(double pct);
/* A few calls not counted: first-touch and registration effects. */
int harness_warmup(const struct mechanism *m, double budget_s);
/* The same calls in the plainest loop: the reference for harness overhead. */
void harness_bare_loop(const struct mechanism *m, uint64_t iterations,
		       struct measure *out);

#endif
