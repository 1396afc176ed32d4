/* SPDX-License-Identifier: MIT */
/*
 * A small, strict JSON reader (the writer is jsonw.h). Values are
 * a tree of struct jval; objects keep their keys in the order read.
 */
#ifndef MBBENCH_JV_H
#define MBBENCH_JV_H

#include <stddef.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype t;
	double num;		/* J_NUM, J_BOOL */
	char *str;		/* J_STR */
	int n;			/* J_ARR, J_OBJ: children */
	char **keys;		/* J_OBJ */
	struct jval **kids;
};

/* NULL with err on malformed text (position given). */
struct jval *jv_parse(const char *text, char *err, size_t len);
void jv_free(struct jval *v);
const struct jval *jv_get(const struct jval *obj, const char *key);

#endif
