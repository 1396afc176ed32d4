/* SPDX-License-Identifier: MIT */
/*
 * The measuring side of `mbbench register`, run in a fresh process image
 * (bench/mbbench-fresh) that does not link liburcu: liburcu's memb flavor
 * registers MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED from a constructor
 * at load time, so inside mbbench that registration would already be done.
 */
#ifndef MBBENCH_REGISTER_CHILD_H
#define MBBENCH_REGISTER_CHILD_H

#include "behaviour.h"
#include "mech.h"
#include "topo.h"

#define STEADY_CALLS 200
#define CREATE_SAMPLES 20

struct sample {
	int err;
	char why[200];
	double reg_ns, first_ns, steady_ns, create_before_ns, create_after_ns;
};

/* Start nother threads, time the registration and what follows; write one
 * struct sample to fd and exit. */
__attribute__((noreturn)) void register_child(hwloc_topology_t topo, const char *placement,
					      enum behaviour beh, const struct mechanism *m,
					      int reg, int nother, int fd);

/*
 * The parent's side (exp-register.c, also used by doctor): run helper
 * (mbbench-fresh) for m with nother other threads and read its sample.
 * Returns -1 when it cannot be started; a failed measurement sets s->err
 * and s->why.
 */
int register_fresh(const char *helper, const struct mechanism *m, int nother,
		   const char *placement, enum behaviour beh, struct sample *s);

#endif
