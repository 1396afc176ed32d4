/* SPDX-License-Identifier: MIT */
/*
 * disturb's rounds: --roles, --caller-cpu and --in-turn turned into rounds
 * of (role, CPU) slots. Pure: the topology and a predicate for usable CPUs
 * come in, the rounds or one error line go out, so it is tested on
 * synthetic topologies (tests/unit/test-disturb-plan.c).
 */
#ifndef MBBENCH_DISTURB_PLAN_H
#define MBBENCH_DISTURB_PLAN_H

#include <hwloc.h>
#include <stddef.h>

#include "victim.h"

#define DPLAN_MAX_SLOTS 64

struct slot {
	enum role role;
	int cpu;
};

struct round {
	int n;
	struct slot s[DPLAN_MAX_SLOTS];
	int tool;		/* this round runs --victim-cmd */
};

struct dplan_in {
	hwloc_topology_t topo;
	/* Is this OS CPU usable (present, in our affinity)? */
	int (*cpu_ok)(void *arg, int cpu);
	void *cpu_ok_arg;
	int host_cpus;		/* CPUs online (0: as many as the topology has) */
	int caller_cpu;		/* -1: the first CPU of the compact placement */
	int in_turn;
	const char *roles;	/* ROLE[@CPU],... or NULL: every role */
	int have_tool;		/* add a last round for --victim-cmd */
	enum role tool_role;
};

/* What a failed plan is: bad input (exit 2) or a host that cannot run it (exit 1). */
#define DPLAN_USAGE (-2)
#define DPLAN_HOST (-1)

/*
 * The rounds (*out, freed by the caller) and their count; in->caller_cpu
 * and in->in_turn are updated to what the plan chose. DPLAN_USAGE or
 * DPLAN_HOST with err on failure.
 */
int disturb_plan(struct dplan_in *in, struct round **out, char *err, size_t len);

#endif
