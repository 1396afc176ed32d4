// SPDX-License-Identifier: MIT
/*
 * The JSON reader (lib/jv.c), which reads results folders and host facts
 * that may be damaged. The input is the text; a tree read must be
 * well-formed (every object child has a key, jv_get finds the first key)
 * and a refusal must say why.
 */
#include "config.h"

#include "fuzz.h"
#include "jv.h"

static void walk(const struct jval *v, int depth)
{
	FUZZ_CHECK(depth <= 100);
	FUZZ_CHECK(v->t >= J_NULL && v->t <= J_OBJ);
	switch (v->t) {
	case J_STR:
		FUZZ_CHECK(v->str);
		break;
	case J_OBJ:
		for (int i = 0; i < v->n; i++)
			FUZZ_CHECK(v->keys && v->keys[i]);
		if (v->n)
			FUZZ_CHECK(jv_get(v, v->keys[0]) == v->kids[0]);
		/* fallthrough */
	case J_ARR:
		FUZZ_CHECK(v->n >= 0);
		for (int i = 0; i < v->n; i++) {
			FUZZ_CHECK(v->kids[i]);
			walk(v->kids[i], depth + 1);
		}
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), err[128] = "";
	struct jval *v = jv_parse(s, err, sizeof(err));

	if (v) {
		walk(v, 0);
		jv_get(v, "schema");
		jv_free(v);
	} else {
		FUZZ_CHECK(err[0] && memchr(err, '\0', sizeof(err)));
	}
	free(s);
	return 0;
}
