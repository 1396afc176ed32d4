// SPDX-License-Identifier: MIT
/*
 * A small, strict JSON reader: recursive descent, depth-limited, every byte
 * checked; no library dependency. (json_* in output.h is the writer.)
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv.h"
#include "util.h"

#define JV_MAX_DEPTH 64

struct jp {
	const char *s, *p;
	char *err;
	size_t len;
	int failed;
};

static void jfail(struct jp *j, const char *what)
{
	if (!j->failed)
		snprintf(j->err, j->len, "%s at offset %ld", what, (long)(j->p - j->s));
	j->failed = 1;
}

static void ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static char *jstring(struct jp *j)
{
	size_t cap = 16, n = 0;
	char *out;

	if (*j->p != '"') {
		jfail(j, "expected a string");
		return NULL;
	}
	j->p++;
	out = xmalloc(cap);
	while (*j->p != '"') {
		char c = *j->p;

		if (!c || (unsigned char)c < 0x20) {
			jfail(j, "unterminated string");
			free(out);
			return NULL;
		}
		if (c == '\\') {
			j->p++;
			switch (*j->p) {
			case '"': case '\\': case '/': c = *j->p; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				/* Kept as '?': no key read here needs it. */
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i]) {
						jfail(j, "bad \\u escape");
						free(out);
						return NULL;
					}
				j->p += 4;
				c = '?';
				break;
			default:
				jfail(j, "bad escape");
				free(out);
				return NULL;
			}
		}
		if (n + 2 > cap)
			out = xrealloc(out, cap *= 2);
		out[n++] = c;
		j->p++;
	}
	j->p++;
	out[n] = '\0';
	return out;
}

static struct jval *jvalue(struct jp *j, int depth);

static void add_kid(struct jval *v, char *key, struct jval *kid)
{
	v->kids = xrealloc(v->kids, sizeof(*v->kids) * (size_t)(v->n + 1));
	v->kids[v->n] = kid;
	if (v->t == J_OBJ) {
		v->keys = xrealloc(v->keys, sizeof(*v->keys) * (size_t)(v->n + 1));
		v->keys[v->n] = key;
	}
	v->n++;
}

static struct jval *jcontainer(struct jp *j, int depth, int obj)
{
	struct jval *v = xcalloc(1, sizeof(*v));
	char close = obj ? '}' : ']';

	v->t = obj ? J_OBJ : J_ARR;
	j->p++;
	ws(j);
	if (*j->p == close) {
		j->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jval *kid;

		ws(j);
		if (obj) {
			key = jstring(j);
			if (!key)
				break;
			ws(j);
			if (*j->p != ':') {
				jfail(j, "expected ':'");
				free(key);
				break;
			}
			j->p++;
		}
		kid = jvalue(j, depth + 1);
		if (!kid) {
			free(key);
			break;
		}
		add_kid(v, key, kid);
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			return v;
		}
		jfail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	jv_free(v);
	return NULL;
}

static struct jval *jvalue(struct jp *j, int depth)
{
	struct jval *v;

	if (depth > JV_MAX_DEPTH) {
		jfail(j, "nested too deeply");
		return NULL;
	}
	ws(j);
	switch (*j->p) {
	case '{':
		return jcontainer(j, depth, 1);
	case '[':
		return jcontainer(j, depth, 0);
	case '"': {
		char *s = jstring(j);

		if (!s)
			return NULL;
		v = xcalloc(1, sizeof(*v));
		v->t = J_STR;
		v->str = s;
		return v;
	}
	}
	v = xcalloc(1, sizeof(*v));
	if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		v->t = J_BOOL;
		v->num = *j->p == 't';
		j->p += *j->p == 't' ? 4 : 5;
	} else if (!strncmp(j->p, "null", 4)) {
		v->t = J_NULL;
		j->p += 4;
	} else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
		char *end;

		errno = 0;
		v->t = J_NUM;
		v->num = strtod(j->p, &end);
		if (end == j->p || errno) {
			jfail(j, "bad number");
			free(v);
			return NULL;
		}
		j->p = end;
	} else {
		jfail(j, "unexpected character");
		free(v);
		return NULL;
	}
	return v;
}

struct jval *jv_parse(const char *text, char *err, size_t len)
{
	struct jp j = { text, text, err, len, 0 };
	struct jval *v = jvalue(&j, 0);

	if (!v)
		return NULL;
	ws(&j);
	if (*j.p) {
		jfail(&j, "trailing text");
		jv_free(v);
		return NULL;
	}
	return v;
}

void jv_free(struct jval *v)
{
	if (!v)
		return;
	for (int i = 0; i < v->n; i++) {
		jv_free(v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	free(v);
}

const struct jval *jv_get(const struct jval *obj, const char *key)
{
	if (!obj || obj->t != J_OBJ)
		return NULL;
	for (int i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->kids[i];
	return NULL;
}
