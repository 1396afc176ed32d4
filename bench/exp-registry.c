// SPDX-License-Identifier: MIT
/*
 * Every subcommand, once: the experiments the sweep runs first, in the
 * sweep's order (`mbbench plan`), then the others. A new experiment is its
 * exp-*.c (ending in its `const struct experiment`), a row here and a line
 * in Makefile.am.
 */
#include "config.h"

#include "experiment.h"

/* One row per subcommand: the `const struct experiment` its exp-*.c ends with. */
#define EXPERIMENTS(X)							\
	X(exp_doctor)							\
	X(exp_calls)							\
	X(exp_distance)							\
	X(exp_latency)							\
	X(exp_disturb)							\
	X(exp_contend)							\
	X(exp_register)							\
	X(exp_rcu)							\
	X(exp_litmus)							\
	X(exp_anatomy)							\
	/* not swept */						\
	X(exp_list)							\
	X(exp_info)							\
	X(exp_plan)							\
	X(exp_points)							\
	X(exp_schema)							\
	/* end */

#define DECLARE(e) extern const struct experiment e;
EXPERIMENTS(DECLARE)

#define ENTRY(e) &e,
const struct experiment *const experiments[] = { EXPERIMENTS(ENTRY) };

const size_t nr_experiments = sizeof(experiments) / sizeof(experiments[0]);
