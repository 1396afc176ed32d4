/* SPDX-License-Identifier: MIT */
/* Host facts recorded with every result: what a reader needs to trust it. */
#ifndef MBBENCH_HOSTINFO_H
#define MBBENCH_HOSTINFO_H

#include <hwloc.h>
#include <stdio.h>

#include "output.h"

#define HOSTINFO_MAX 64

struct hostinfo {
	int n;
	const char *key[HOSTINFO_MAX];
	char *val[HOSTINFO_MAX];
	char *src[HOSTINFO_MAX];	/* where the value came from, or NULL */
};

/* Add a fact and where it came from (NULL: obvious from the key). */
void hostinfo_add(struct hostinfo *h, const char *key, const char *val, const char *src);
/* The facts that change the numbers (hostfacts.c): RCU, isolation, preemption, ... */
void hostfacts_collect(struct hostinfo *h);
/* A path under $MBBENCH_SYSROOT when set (tests fake /sys and /proc there). */
const char *host_path(const char *path, char *buf, size_t len);

void hostinfo_collect(struct hostinfo *h, hwloc_topology_t topo);
const char *hostinfo_get(const struct hostinfo *h, const char *key);
void hostinfo_human(const struct hostinfo *h, FILE *f, const char *prefix);
void hostinfo_json(const struct hostinfo *h, struct json *j, const char *key);
void hostinfo_free(struct hostinfo *h);

#endif
