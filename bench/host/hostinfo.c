// SPDX-License-Identifier: MIT
/*
 * The host facts of a run, in the order they were taken, each with where it
 * came from: kept, looked up and written (human and JSON). Taking them is
 * hostfacts.c's; this file reads nothing of the host. The list grows: no
 * fact is dropped for want of room.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hostinfo.h"
#include "util.h"

void hostinfo_add(struct hostinfo *h, const char *key, const char *val, const char *src)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->key = xrealloc(h->key, (size_t)h->cap * sizeof(*h->key));
		h->val = xrealloc(h->val, (size_t)h->cap * sizeof(*h->val));
		h->src = xrealloc(h->src, (size_t)h->cap * sizeof(*h->src));
	}
	h->key[h->n] = key;
	h->val[h->n] = xstrdup(val ? val : "");
	h->src[h->n] = src ? xstrdup(src) : NULL;
	h->n++;
}

const char *hostinfo_get(const struct hostinfo *h, const char *key)
{
	for (int i = 0; i < h->n; i++)
		if (!strcmp(h->key[i], key))
			return h->val[i];
	return NULL;
}

void hostinfo_human(const struct hostinfo *h, FILE *f, const char *prefix)
{
	for (int i = 0; i < h->n; i++)
		fprintf(f, "%s%-22s %s%s%s%s\n", prefix, h->key[i], h->val[i],
			h->src[i] ? "  [" : "", h->src[i] ? h->src[i] : "", h->src[i] ? "]" : "");
}

void hostinfo_json(const struct hostinfo *h, struct json *j, const char *key)
{
	char skey[64];

	json_begin_object(j, key);
	for (int i = 0; i < h->n; i++)
		json_str(j, h->key[i], h->val[i]);
	json_end_object(j);
	/* Beside it: where each fact that is not self-evident came from. */
	snprintf(skey, sizeof(skey), "%s_sources", key);
	json_begin_object(j, skey);
	for (int i = 0; i < h->n; i++)
		if (h->src[i])
			json_str(j, h->key[i], h->src[i]);
	json_end_object(j);
}

void hostinfo_free(struct hostinfo *h)
{
	for (int i = 0; i < h->n; i++) {
		free(h->val[i]);
		free(h->src[i]);
	}
	free(h->key);
	free(h->val);
	free(h->src);
	h->key = NULL;
	h->val = NULL;
	h->src = NULL;
	h->n = h->cap = 0;
}
