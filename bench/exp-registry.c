// SPDX-License-Identifier: MIT
/*
 * Every subcommand, once: the experiments the sweep runs first, in the
 * sweep's order (`mbbench plan`), then the others. A new experiment is its
 * exp-*.c (ending in its `const struct experiment`), a row here and a line
 * in Makefile.am.
 */
#include "config.h"

#include "experiment.h"

const struct experiment *const experiments[] = {
	&exp_calls,
	&exp_latency,
	&exp_distance,
	&exp_disturb,
	&exp_contend,
	&exp_register,
	&exp_rcu,
	&exp_litmus,
	/* not swept */
	&exp_doctor,
	&exp_info,
	&exp_list,
	&exp_plan,
	&exp_points,
	&exp_schema,
};

const size_t nr_experiments = sizeof(experiments) / sizeof(experiments[0]);
