// SPDX-License-Identifier: MIT
/* The one emitter: CSV quoting, human comments, JSON escaping and nulls. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "tap.h"

static char *render(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void csv(FILE *f, void *t) { table_write_csv(t, f); }
static void human(FILE *f, void *t) { table_write_human(t, f); }

static void json(FILE *f, void *t)
{
	struct json j;

	json_init(&j, f);
	json_begin_object(&j, NULL);
	json_str(&j, "k\"ey", "va\\l\n\x01");
	json_num(&j, "nan", NAN);
	json_int(&j, "int", -3);
	json_begin_array(&j, "empty");
	json_end_array(&j);
	json_table(&j, "rows", t);
	json_end_object(&j);
}

static const struct col cols[] = {
	COL_KEY("name", COL_STR, "", 0, "a name"),
	COL_COUNT("n", COL_INT, 0, "a count"),
	COL_MEASURE("ns_per_call", COL_NUM, "ns", LOWER, MEAN, 0, "a mean"),
};

int main(void)
{
	struct table t;
	char *s;
	int r;

	plan(9);
	table_init(&t, cols, 3);
	r = table_add_row(&t);
	table_set_str(&t, r, "name", "a,b \"c\"");
	table_set_int(&t, r, "n", 7);
	table_set_num(&t, r, "ns_per_call", 1234.5);
	r = table_add_row(&t);
	table_set_str(&t, r, "name", "skipped one");
	table_set_num(&t, r, "ns_per_call", INFINITY);

	table_set_num(&t, r, "n", 1.0 / 3.0);
	ok(table_get_num(&t, 0, "ns_per_call") == 1234.5 && table_get_num(&t, 1, "n") == 1.0 / 3.0 &&
	   isnan(table_get_num(&t, 1, "ns_per_call")) && isnan(table_get_num(&t, 0, "name")),
	   "numbers read back as set, not as printed; text and empty cells are NaN");
	table_set_str(&t, r, "n", NULL);
	s = render(csv, &t);
	ok(!strcmp(s, "name,n,ns_per_call\n\"a,b \"\"c\"\"\",7,1234.5\nskipped one,,\n"),
	   "CSV: one header, quoted cell, empty cells for missing values");
	free(s);

	s = render(human, &t);
	ok(s[0] == '#', "human: header line is a gnuplot comment");
	ok(strstr(s, "skipped_one") != NULL, "human: spaces in cells do not split columns");
	ok(strstr(s, " - ") != NULL || strstr(s, " -\n") != NULL, "human: empty cell shown as -");
	free(s);

	s = render(json, &t);
	ok(strstr(s, "\"k\\\"ey\": \"va\\\\l\\n\\u0001\"") != NULL, "JSON: keys and values escaped");
	ok(strstr(s, "\"nan\": null") != NULL, "JSON: NaN becomes null");
	ok(strstr(s, "\"empty\": []") != NULL, "JSON: empty array");
	ok(strstr(s, "\"n\": 7") && strstr(s, "\"ns_per_call\": 1234.5") &&
		   strstr(s, "\"n\": null"),
	   "JSON: numbers unquoted, missing cells null");
	if (getenv("TEST_OUTPUT_DUMP"))
		fputs(s, stderr);
	free(s);
	table_free(&t);
	return done_testing();
}
