/* SPDX-License-Identifier: MIT */
/*
 * One emitter for everything mbbench writes: a table of typed cells rendered
 * as human columns (gnuplot-friendly, '#' before every non-data line), as CSV
 * with one header row, or as JSON values; and a small JSON writer that does
 * its own escaping and comma bookkeeping, so no key is ever printed by hand.
 */
#ifndef MBBENCH_OUTPUT_H
#define MBBENCH_OUTPUT_H

#include <stdio.h>

#include "jsonw.h"

enum col_type { COL_STR, COL_INT, COL_NUM };

/*
 * What a column is for (mbbench schema prints it, results/schema.json holds
 * it, and the Python readers take every column list from there):
 *   key      names the point; the key columns together identify a row
 *   measure  a figure the experiment measures
 *   ci       a 95% confidence bound of a measure (`of`)
 *   count    a tally behind the measures: repeats, samples, events
 *   status   whether the row was measured, and why not
 *   info     the conditions of the row: CPUs, topology, settings
 */
enum col_role { ROLE_INFO, ROLE_KEY, ROLE_MEASURE, ROLE_CI, ROLE_COUNT, ROLE_STATUS };
enum col_better { BETTER_NONE, BETTER_LOWER, BETTER_HIGHER };
/* How mbbench compare tests a measure (report's Precision lists the ones
 * with a CI): Welch's t on a mean, on a percentile's batch CI, by the
 * difference of a count, or a rate (a mean with repeats, else a count). */
enum col_test { TEST_NONE, TEST_MEAN, TEST_PCT, TEST_DIFF, TEST_RATE };
/* A ci column: the half-width of the interval, or its lower or upper end. */
enum col_ci { CI_HALF, CI_LO, CI_HI };

/* Flags of a column. */
#define COL_REQ (1u << 0)	/* readers rely on it: a CSV without it is refused */
#define COL_POS (1u << 1)	/* a number of at least 1 (else at least 0) */
#define COL_SIGNED (1u << 2)	/* a number that may be below 0 */
/* A key column an option sets for the whole run (or that follows from the
 * other key columns): part of the point's identity, left out of its name
 * where a run's points are listed. */
#define COL_SETTING (1u << 3)

struct col {
	const char *name;
	enum col_type type;
	enum col_role role;
	const char *unit;	/* "ns", "s", "1/s", "%", ...; "" for a plain number or text */
	enum col_better better;	/* measure: which way is better */
	enum col_test test;	/* measure: how compare tests it */
	const char *of;		/* ci: the measure it bounds */
	enum col_ci ci;
	unsigned flags;		/* COL_REQ, COL_POS, COL_SIGNED, COL_SETTING */
	const char *desc;	/* one line */
	/* A text column's values, "a|b|c" ("N": an OS CPU number), or NULL for
	 * any text: a reader refuses a cell outside them (two columns' values
	 * swapped under each other's names), and so does table_set_str. */
	const char *values;
};

/* One column each, by role; t is COL_STR, COL_INT or COL_NUM, f the flags. */
#define COL_KEY(n, t, u, f, d) \
	{ .name = (n), .type = (t), .role = ROLE_KEY, .unit = (u), .flags = (f), .desc = (d) }
/* A text key column that takes only the values v ("a|b|N"). */
#define COL_KEY_IN(n, v, f, d) \
	{ .name = (n), .type = COL_STR, .role = ROLE_KEY, .unit = "", .flags = (f), .desc = (d), \
	  .values = (v) }
#define COL_MEASURE(n, t, u, better_, test_, f, d) \
	{ .name = (n), .type = (t), .role = ROLE_MEASURE, .unit = (u), \
	  .better = BETTER_##better_, .test = TEST_##test_, .flags = (f), .desc = (d) }
#define COL_CI95(n, of_, u, f, d) \
	{ .name = (n), .type = COL_NUM, .role = ROLE_CI, .unit = (u), .of = (of_), \
	  .ci = CI_HALF, .flags = (f), .desc = (d) }
#define COL_LO95(n, of_, u, f, d) \
	{ .name = (n), .type = COL_NUM, .role = ROLE_CI, .unit = (u), .of = (of_), \
	  .ci = CI_LO, .flags = (f), .desc = (d) }
#define COL_HI95(n, of_, u, f, d) \
	{ .name = (n), .type = COL_NUM, .role = ROLE_CI, .unit = (u), .of = (of_), \
	  .ci = CI_HI, .flags = (f), .desc = (d) }
#define COL_COUNT(n, t, f, d) \
	{ .name = (n), .type = (t), .role = ROLE_COUNT, .unit = "", .flags = (f), .desc = (d) }
#define COL_INFO(n, t, u, f, d) \
	{ .name = (n), .type = (t), .role = ROLE_INFO, .unit = (u), .flags = (f), .desc = (d) }
#define COL_STATUS(n, f, d) \
	{ .name = (n), .type = COL_STR, .role = ROLE_STATUS, .unit = "", .flags = (f), .desc = (d) }

/*
 * A table a subcommand writes (one CSV, and the JSON envelope's rows): its
 * columns and what one row is. The schema subcommand prints every one.
 */
struct table_schema {
	const char *name;	/* NAME.csv */
	const char *experiment;	/* the subcommand that writes it */
	const char *rows;	/* what one row is, a sentence or two */
	const char *notes;	/* derived figures and the like, or NULL */
	const struct col *cols;
	int ncols;
	int analysed;		/* report and compare read it from a results folder */
	/* Rows whose control column holds control_value are controls: their
	 * measures are neither better nor worse. */
	const char *control, *control_value;
};
#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

struct table {
	const struct col *cols;
	int ncols, nrows, cap;
	char **cells;	/* nrows * ncols, NULL = empty (CSV "", JSON null) */
	double *nums;	/* the numbers as set, NAN for text and empty cells */
};

void table_init(struct table *t, const struct col *cols, int ncols);
void table_free(struct table *t);
int table_add_row(struct table *t);
void table_set_str(struct table *t, int row, const char *col, const char *v);
/* Whether v is one of c's values (any text where it declares none). */
int col_value_ok(const struct col *c, const char *v);
void table_set_int(struct table *t, int row, const char *col, long long v);
/* NaN and infinities are stored as empty cells. */
void table_set_num(struct table *t, int row, const char *col, double v);
const char *table_get(const struct table *t, int row, const char *col);
/* Whether t has the column col. */
int table_has(const struct table *t, const char *col);
/* The number a cell was set to (table_set_int/num), NAN when it has none. */
double table_get_num(const struct table *t, int row, const char *col);
void table_write_csv(const struct table *t, FILE *f);
void table_write_human(const struct table *t, FILE *f);

/* The table's rows as an array of objects under key. */
void json_table(struct json *j, const char *key, const struct table *t);

enum out_format { FMT_HUMAN, FMT_CSV };

#endif
