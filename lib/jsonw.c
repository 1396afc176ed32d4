// SPDX-License-Identifier: MIT
/*
 * A streaming JSON writer (jsonw.h): objects, arrays and scalars written
 * as they come, indented, with keys and strings escaped. Below every room
 * that writes JSON (harness/'s envelopes, host/'s facts).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "util.h"

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

void json_raw(struct json *j, const char *key, const char *text)
{
	json_key(j, key);
	fputs(text, j->f);
}
