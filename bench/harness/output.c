// SPDX-License-Identifier: MIT
/* Table and JSON emitters; see output.h. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

void table_init(struct table *t, const struct col *cols, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
}

void table_free(struct table *t)
{
	for (int i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->nums);
	t->cells = NULL;
	t->nums = NULL;
	t->nrows = t->cap = 0;
}

int table_add_row(struct table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = xrealloc(t->cells, (size_t)t->cap * (size_t)t->ncols *
						      sizeof(char *));
		t->nums = xrealloc(t->nums, (size_t)t->cap * (size_t)t->ncols *
						    sizeof(double));
	}
	for (int c = 0; c < t->ncols; c++) {
		t->cells[t->nrows * t->ncols + c] = NULL;
		t->nums[t->nrows * t->ncols + c] = NAN;
	}
	return t->nrows++;
}

static int col_index(const struct table *t, const char *col)
{
	for (int c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].name, col))
			return c;
	fail("internal error: no column %s", col);
}

int table_has(const struct table *t, const char *col)
{
	for (int c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].name, col))
			return 1;
	return 0;
}

static void set_cell(struct table *t, int row, const char *col, char *v, double num)
{
	int i = row * t->ncols + col_index(t, col);

	free(t->cells[i]);
	t->cells[i] = v;
	t->nums[i] = num;
}

int col_value_ok(const struct col *c, const char *v)
{
	const char *p = c->values;

	if (!p || !v)
		return 1;
	for (;;) {
		size_t n = strcspn(p, "|");

		if (n == 1 && *p == 'N' ? v[0] && strspn(v, "0123456789") == strlen(v)
					: strlen(v) == n && !strncmp(v, p, n))
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

void table_set_str(struct table *t, int row, const char *col, const char *v)
{
	const struct col *c = &t->cols[col_index(t, col)];

	/* The schema says what this column holds: a value outside it is a
	 * bug here, caught before a reader refuses the file. */
	if (!col_value_ok(c, v))
		fail("internal error: '%s' is not a value of column %s (%s)", v, c->name, c->values);
	set_cell(t, row, col, v ? xstrdup(v) : NULL, NAN);
}

void table_set_int(struct table *t, int row, const char *col, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	set_cell(t, row, col, xstrdup(buf), (double)v);
}

void table_set_num(struct table *t, int row, const char *col, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		set_cell(t, row, col, NULL, NAN);
		return;
	}
	/* Enough digits for ns values and ratios alike; no exponent below 1e15. */
	if (fabs(v) >= 1e15 || (v != 0 && fabs(v) < 1e-4))
		snprintf(buf, sizeof(buf), "%.6g", v);
	else if (fabs(v) >= 100)
		snprintf(buf, sizeof(buf), "%.1f", v);
	else
		snprintf(buf, sizeof(buf), "%.4g", v);
	set_cell(t, row, col, xstrdup(buf), v);
}

const char *table_get(const struct table *t, int row, const char *col)
{
	return t->cells[row * t->ncols + col_index(t, col)];
}

double table_get_num(const struct table *t, int row, const char *col)
{
	return t->nums[row * t->ncols + col_index(t, col)];
}

static void csv_cell(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void table_write_csv(const struct table *t, FILE *f)
{
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', f);
		csv_cell(f, t->cols[c].name);
	}
	fputc('\n', f);
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', f);
			csv_cell(f, t->cells[r * t->ncols + c]);
		}
		fputc('\n', f);
	}
}

void table_write_human(const struct table *t, FILE *f)
{
	int *w = xcalloc((size_t)t->ncols, sizeof(int));

	for (int c = 0; c < t->ncols; c++) {
		w[c] = (int)strlen(t->cols[c].name);
		for (int r = 0; r < t->nrows; r++) {
			const char *s = t->cells[r * t->ncols + c];
			int n = s ? (int)strlen(s) : 1;

			if (n > w[c])
				w[c] = n;
		}
	}
	/* Spaces inside a cell would break gnuplot's columns: print '_'. */
	fputs("# ", f);
	for (int c = 0; c < t->ncols; c++)
		fprintf(f, "%-*s%s", w[c], t->cols[c].name,
			c + 1 < t->ncols ? " " : "\n");
	for (int r = 0; r < t->nrows; r++) {
		fputs("  ", f);
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			int last = c + 1 == t->ncols;

			if (!s)
				s = "-";
			if (t->cols[c].type == COL_STR && strchr(s, ' ') && !last) {
				char *u = xstrdup(s);

				for (char *p = u; *p; p++)
					if (*p == ' ')
						*p = '_';
				fprintf(f, "%-*s ", w[c], u);
				free(u);
			} else if (last) {
				fprintf(f, "%s\n", s);
			} else if (t->cols[c].type == COL_STR) {
				fprintf(f, "%-*s ", w[c], s);
			} else {
				fprintf(f, "%*s ", w[c], s);
			}
		}
	}
	free(w);
}

void json_table(struct json *j, const char *key, const struct table *t)
{
	json_begin_array(j, key);
	for (int r = 0; r < t->nrows; r++) {
		json_begin_object(j, NULL);
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];

			if (!s)
				json_null(j, t->cols[c].name);
			else if (t->cols[c].type == COL_STR)
				json_str(j, t->cols[c].name, s);
			else {
				/* Stored by table_set_num/int: already a JSON number. */
				json_raw(j, t->cols[c].name, s);
			}
		}
		json_end_object(j);
	}
	json_end_array(j);
}
