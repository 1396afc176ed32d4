/* SPDX-License-Identifier: MIT */
/*
 * Every table mbbench and its helpers write, with its columns (output.h,
 * struct col): the one definition of the result files. `mbbench schema`
 * prints it; results/SCHEMA.md and results/schema.json are its output.
 */
#ifndef MBBENCH_SCHEMA_H
#define MBBENCH_SCHEMA_H

#include "output.h"

extern const struct table_schema calls_table, distance_table, latency_table,
	latency_histogram_table, disturb_table, contend_table, register_table,
	rcu_table, litmus_table, doctor_table, list_table, info_table;

#endif
