/* SPDX-License-Identifier: MIT */
/* Host facts recorded with every result: what a reader needs to trust it. */
#ifndef MBBENCH_HOSTINFO_H
#define MBBENCH_HOSTINFO_H

#include <hwloc.h>
#include <stdio.h>

#include "output.h"

#define HOSTINFO_MAX 32

struct hostinfo {
	int n;
	const char *key[HOSTINFO_MAX];
	char *val[HOSTINFO_MAX];
};

void hostinfo_collect(struct hostinfo *h, hwloc_topology_t topo);
const char *hostinfo_get(const struct hostinfo *h, const char *key);
void hostinfo_human(const struct hostinfo *h, FILE *f, const char *prefix);
void hostinfo_json(const struct hostinfo *h, struct json *j, const char *key);
void hostinfo_free(struct hostinfo *h);

#endif
