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

enum col_type { COL_STR, COL_INT, COL_NUM };

struct col {
	const char *name;
	enum col_type type;
};

struct table {
	const struct col *cols;
	int ncols, nrows, cap;
	char **cells;	/* nrows * ncols, NULL = empty (CSV "", JSON null) */
};

void table_init(struct table *t, const struct col *cols, int ncols);
void table_free(struct table *t);
int table_add_row(struct table *t);
void table_set_str(struct table *t, int row, const char *col, const char *v);
void table_set_int(struct table *t, int row, const char *col, long long v);
/* NaN and infinities are stored as empty cells. */
void table_set_num(struct table *t, int row, const char *col, double v);
const char *table_get(const struct table *t, int row, const char *col);
void table_write_csv(const struct table *t, FILE *f);
void table_write_human(const struct table *t, FILE *f);

struct json {
	FILE *f;
	int depth;
	int first[32];
};

void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_int(struct json *j, const char *key, long long v);
void json_num(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);
/* The table's rows as an array of objects under key. */
void json_table(struct json *j, const char *key, const struct table *t);

enum out_format { FMT_HUMAN, FMT_CSV };

#endif
