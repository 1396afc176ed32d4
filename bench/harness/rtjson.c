// SPDX-License-Identifier: MIT
/*
 * Reads what oslat and cyclictest write with --json, so a disturb run can
 * put the real tools' figures beside its own victims' (the JSON itself is
 * read by jv.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtjson.h"
#include "util.h"

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

/*
 * Converting a double outside an integer type's range is undefined: every
 * count, CPU and time read here is checked against this (2^64) first.
 */
#define U64_LIMIT 18446744073709551616.0

static int in_u64(double v)
{
	return v >= 0 && v < U64_LIMIT;	/* false for NaN too */
}

static int num(const struct jval *o, const char *key, double *out)
{
	const struct jval *v = jv_get(o, key);

	if (!v || v->t != J_NUM)
		return -1;
	*out = v->num;
	return 0;
}

int rtjson_read(const char *path, struct rt_result *r, struct hist *h,
		char *err, size_t len)
{
	char *text = slurp(path, err, len);
	int ret;

	memset(r, 0, sizeof(*r));
	if (!text)
		return -1;
	ret = rtjson_parse(text, path, r, h, err, len);
	free(text);
	return ret;
}

int rtjson_parse(const char *text, const char *path, struct rt_result *r,
		 struct hist *h, char *err, size_t len)
{
	char perr[128];
	struct jval *root;
	const struct jval *th, *t0, *hg, *cmd;
	double cpu = -1, maxkey = -1;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	root = jv_parse(text, perr, sizeof(perr));
	if (!root) {
		snprintf(err, len, "%s: not JSON: %s", path, perr);
		return -1;
	}
	/* rt-tests 2.x spells it "cmdline:"; accept either. */
	cmd = jv_get(root, "cmdline:");
	if (!cmd)
		cmd = jv_get(root, "cmdline");
	if (cmd && cmd->t == J_STR) {
		const char *b = cmd->str, *sp = strchr(b, ' '), *sl;
		const char *e = sp ? sp : b + strlen(b);
		size_t l;

		/* The program's base name: after the last '/' before e. */
		for (sl = b; sl < e; sl++)
			if (*sl == '/')
				b = sl + 1;
		l = (size_t)(e - b);
		snprintf(r->tool, sizeof(r->tool), "%.*s", (int)(l < 15 ? l : 15), b);
	}
	th = jv_get(root, "thread");
	t0 = jv_get(th, "0");
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
	r->cpu = cpu >= 0 && cpu <= INT_MAX ? (int)cpu : -1;
	hg = jv_get(t0, "histogram");
	if (hg && hg->t != J_OBJ) {
		snprintf(err, len, "%s: histogram is not an object", path);
		goto out;
	}
	for (int i = 0; hg && i < hg->n; i++) {
		char *end;
		double k = strtod(hg->keys[i], &end);

		if (end == hg->keys[i] || *end || !in_u64(k * 1000) ||
		    hg->kids[i]->t != J_NUM || !in_u64(hg->kids[i]->num)) {
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
	    cpu > (double)r->samples && in_u64(cpu))
		r->overflow = (uint64_t)cpu - r->samples;
	/* The histogram's last bucket is open-ended: the true max is max_ns. */
	if (h && h->count && r->max_ns > (double)h->max && in_u64(r->max_ns))
		h->max = (uint64_t)r->max_ns;
	ret = 0;
out:
	jv_free(root);
	return ret;
}
