/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer: json_init on a stream, then objects, arrays and
 * scalars in order; a key is NULL inside an array. A number that is not
 * finite is written null.
 */
#ifndef MBBENCH_JSONW_H
#define MBBENCH_JSONW_H

#include <stdio.h>

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
/* text as it is: a value the caller has already written as JSON (a number). */
void json_raw(struct json *j, const char *key, const char *text);

#endif
