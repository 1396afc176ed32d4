/* SPDX-License-Identifier: MIT */
/*
 * What an experiment hands over when it is done: its points table, optional
 * extra tables (e.g. histograms), derived figures and notes. results_emit()
 * writes stdout (human or CSV), the --output folder and the --json envelope,
 * every file through a temporary name.
 */
#ifndef MBBENCH_RESULTS_H
#define MBBENCH_RESULTS_H

#include "cli.h"
#include "hostinfo.h"
#include "output.h"

#define RESULTS_FORMAT_VERSION 1

/* Every table, figure and note handed over is emitted: the arrays grow. */
struct results_table {
	const char *name;
	struct table *t;
};

struct results_derived {
	const char *key;
	double val;
	char *text;
};

struct results {
	const struct opts *o;
	char start[32], end[32];
	struct table *points;
	int nextra, cap_extra;
	struct results_table *extra;
	int nderived, cap_derived;
	struct results_derived *derived;
	int nnotes, cap_notes;
	char **notes;
	int files_only;	/* the experiment printed stdout itself */
};

void results_begin(struct results *r, const struct opts *o, struct table *points);
void results_add_table(struct results *r, const char *name, struct table *t);
__attribute__((format(printf, 4, 5)))
void results_derived(struct results *r, const char *key, double v, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void results_note(struct results *r, const char *fmt, ...);
void results_emit(struct results *r);
/*
 * Mark row r of a points table skipped, with the reason: every experiment's
 * table ends with the columns status and skip_reason.
 */
void row_skip(struct table *t, int r, const char *reason);
/* Progress on stderr when it is a terminal. */
void progress(const char *exp, int i, int n, const char *what);

#endif
