// SPDX-License-Identifier: MIT
/*
 * Reads what oslat and cyclictest write with --json, so a disturb run can
 * put the real tools' figures beside its own victims'. Recursive descent,
 * depth-limited, every byte checked; no library dependency.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtjson.h"
#include "util.h"

#define JSON_MAX_DEPTH 64

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
	json_free(v);
	return NULL;
}

static struct jval *jvalue(struct jp *j, int depth)
{
	struct jval *v;

	if (depth > JSON_MAX_DEPTH) {
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

struct jval *json_parse(const char *text, char *err, size_t len)
{
	struct jp j = { text, text, err, len, 0 };
	struct jval *v = jvalue(&j, 0);

	if (!v)
		return NULL;
	ws(&j);
	if (*j.p) {
		jfail(&j, "trailing text");
		json_free(v);
		return NULL;
	}
	return v;
}

void json_free(struct jval *v)
{
	if (!v)
		return;
	for (int i = 0; i < v->n; i++) {
		json_free(v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	free(v);
}

const struct jval *json_get(const struct jval *obj, const char *key)
{
	if (!obj || obj->t != J_OBJ)
		return NULL;
	for (int i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->kids[i];
	return NULL;
}

static char *slurp(const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 4096, n = 0, r;
	char *buf;

	if (!f) {
		snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(cap);
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 >= cap) {
			if (cap > (64u << 20)) {
				snprintf(err, len, "%s: larger than 64 MiB", path);
				fclose(f);
				free(buf);
				return NULL;
			}
			buf = xrealloc(buf, cap *= 2);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) != n) {
		snprintf(err, len, "%s: NUL byte in JSON", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static int num(const struct jval *o, const char *key, double *out)
{
	const struct jval *v = json_get(o, key);

	if (!v || v->t != J_NUM)
		return -1;
	*out = v->num;
	return 0;
}

int rtjson_read(const char *path, struct rt_result *r, struct hist *h,
		char *err, size_t len)
{
	char *text = slurp(path, err, len), perr[128];
	struct jval *root;
	const struct jval *th, *t0, *hg, *cmd;
	double cpu = -1, maxkey = -1;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!text)
		return -1;
	root = json_parse(text, perr, sizeof(perr));
	free(text);
	if (!root) {
		snprintf(err, len, "%s: not JSON: %s", path, perr);
		return -1;
	}
	/* rt-tests 2.x spells it "cmdline:"; accept either. */
	cmd = json_get(root, "cmdline:");
	if (!cmd)
		cmd = json_get(root, "cmdline");
	if (cmd && cmd->t == J_STR) {
		const char *b = cmd->str, *sp = strchr(b, ' '), *sl;
		size_t l = sp ? (size_t)(sp - b) : strlen(b);

		for (sl = b; sl < b + l; sl++)
			if (*sl == '/')
				b = sl + 1;
		l = sp ? (size_t)(sp - b) : strlen(b);
		snprintf(r->tool, sizeof(r->tool), "%.*s", (int)(l < 15 ? l : 15), b);
	}
	th = json_get(root, "thread");
	t0 = json_get(th, "0");
	if (!t0 || t0->t != J_OBJ) {
		snprintf(err, len, "%s: no \"thread\": {\"0\": {...}} object", path);
		goto out;
	}
	if (num(t0, "min", &r->min_ns) || num(t0, "max", &r->max_ns) ||
	    num(t0, "avg", &r->avg_ns)) {
		snprintf(err, len, "%s: thread 0 lacks numeric min/avg/max", path);
		goto out;
	}
	/* Both tools report microseconds. */
	r->min_ns *= 1000;
	r->avg_ns *= 1000;
	r->max_ns *= 1000;
	num(t0, "cpu", &cpu);
	r->cpu = (int)cpu;
	hg = json_get(t0, "histogram");
	if (hg && hg->t != J_OBJ) {
		snprintf(err, len, "%s: histogram is not an object", path);
		goto out;
	}
	for (int i = 0; hg && i < hg->n; i++) {
		char *end;
		double k = strtod(hg->keys[i], &end);

		if (end == hg->keys[i] || *end || k < 0 || hg->kids[i]->t != J_NUM ||
		    hg->kids[i]->num < 0) {
			snprintf(err, len, "%s: bad histogram entry \"%s\"", path, hg->keys[i]);
			goto out;
		}
		if (k > maxkey)
			maxkey = k;
	}
	for (int i = 0; hg && i < hg->n; i++) {
		double k = strtod(hg->keys[i], NULL);
		uint64_t c = (uint64_t)hg->kids[i]->num;

		r->samples += c;
		/* oslat's last bucket holds everything at or above it. */
		if (k == maxkey && !strcmp(r->tool, "oslat"))
			r->overflow = c;
		if (h && c)
			hist_add_n(h, (uint64_t)(k * 1000), c);
	}
	/* cyclictest leaves samples beyond its -h range out of the histogram. */
	if (r->samples && !strcmp(r->tool, "cyclictest") && !num(t0, "cycles", &cpu) &&
	    cpu > (double)r->samples)
		r->overflow = (uint64_t)cpu - r->samples;
	/* The histogram's last bucket is open-ended: the true max is max_ns. */
	if (h && h->count && r->max_ns > (double)h->max)
		h->max = (uint64_t)r->max_ns;
	ret = 0;
out:
	json_free(root);
	return ret;
}
