/* SPDX-License-Identifier: MIT */
/* Host facts recorded with every result: what a reader needs to trust it. */
#ifndef MBBENCH_HOSTINFO_H
#define MBBENCH_HOSTINFO_H

#include <hwloc.h>
#include <stdio.h>

#include "jsonw.h"

/* The facts, in order; the arrays grow (start from a zeroed struct). */
struct hostinfo {
	int n, cap;
	const char **key;
	char **val;
	char **src;	/* where the value came from, or NULL */
};

/* hostinfo.c: the list. Add a fact and where it came from (NULL: obvious from the key). */
void hostinfo_add(struct hostinfo *h, const char *key, const char *val, const char *src);
const char *hostinfo_get(const struct hostinfo *h, const char *key);
void hostinfo_human(const struct hostinfo *h, FILE *f, const char *prefix);
void hostinfo_json(const struct hostinfo *h, struct json *j, const char *key);
void hostinfo_free(struct hostinfo *h);

/*
 * hostfacts.c: taking them. Every fact of this host, the machine's and the
 * settings that change the numbers (RCU, isolation, preemption, ...), into
 * a fresh h.
 */
void hostinfo_collect(struct hostinfo *h, hwloc_topology_t topo);
/*
 * guestfacts.c: the hypervisor (CPUID, trimmed), its paravirtual interface
 * and how remote TLBs are flushed (remote_tlb_flush: "broadcast ...", "by
 * hypercall ...", "by IPI ..." or "unknown ..."), and the TLB shootdowns
 * since boot; host_virtualization() is the "virtualization" fact's value.
 */
void guestfacts_collect(struct hostinfo *h);
/* Of those, paravirt_interface and remote_tlb_flush alone, after h's
 * hypervisor_features (tests give a made-up one). */
void guestfacts_kernel(struct hostinfo *h);
void host_virtualization(char *buf, size_t len);
/* A path under $MBBENCH_SYSROOT when set (tests fake /sys and /proc there). */
const char *host_path(const char *path, char *buf, size_t len);

#endif
