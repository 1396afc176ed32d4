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

void table_set_str(struct table *t, int row, const char *col, const char *v)
{
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

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = 1;
}

static void json_escape(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void json_key(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = 0;
	if (j->depth) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	if (key) {
		json_escape(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->f);
	if (j->depth + 1 >= (int)(sizeof(j->first) / sizeof(j->first[0])))
		fail("internal error: JSON nested too deep");
	j->first[++j->depth] = 1;
}

static void json_close(struct json *j, char c)
{
	int empty = j->first[j->depth];

	j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_begin_object(struct json *j, const char *key) { json_open(j, key, '{'); }
void json_end_object(struct json *j) { json_close(j, '}'); }
void json_begin_array(struct json *j, const char *key) { json_open(j, key, '['); }
void json_end_array(struct json *j) { json_close(j, ']'); }

void json_str(struct json *j, const char *key, const char *v)
{
	if (!v) {
		json_null(j, key);
		return;
	}
	json_key(j, key);
	json_escape(j->f, v);
}

void json_int(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	fprintf(j->f, "%lld", v);
}

void json_num(struct json *j, const char *key, double v)
{
	if (!isfinite(v)) {
		json_null(j, key);
		return;
	}
	json_key(j, key);
	fprintf(j->f, "%.17g", v);
}

void json_bool(struct json *j, const char *key, int v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
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
				json_key(j, t->cols[c].name);
				fputs(s, j->f);
			}
		}
		json_end_object(j);
	}
	json_end_array(j);
}
