// SPDX-License-Identifier: MIT
/*
 * The TLB-shootdown trick that runtimes without membarrier fall back on
 * (.NET's FlushProcessWriteBuffers, folly's asymmetric barrier): make a page
 * writable, dirty it, then revoke access. Revoking a present, dirty mapping
 * forces the kernel to shoot down the TLB entry on every CPU that may hold
 * it, by IPI, and an IPI implies a full barrier on the target.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mech.h"

static volatile int *page;
static size_t page_len;
static pthread_mutex_t page_lock = PTHREAD_MUTEX_INITIALIZER;

static int mp_setup(const struct mechanism *m, char *reason, size_t len)
{
	void *p;

	(void)m;
	if (page)
		return 0;
	page_len = (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, page_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(reason, len, "mmap: %s", strerror(errno));
		return -1;
	}
	page = p;
	return 0;
}

static int mp_barrier(const struct mechanism *m)
{
	int ret = 0;

	(void)m;
	pthread_mutex_lock(&page_lock);
	if (mprotect((void *)page, page_len, PROT_READ | PROT_WRITE) < 0)
		ret = -errno;
	if (!ret) {
		__atomic_add_fetch(page, 1, __ATOMIC_SEQ_CST);
		if (mprotect((void *)page, page_len, PROT_NONE) < 0)
			ret = -errno;
	}
	pthread_mutex_unlock(&page_lock);
	return ret;
}

static void mp_teardown(const struct mechanism *m)
{
	(void)m;
	if (page)
		munmap((void *)page, page_len);
	page = NULL;
}

const struct mechanism mech_mprotect = {
	.name = "mprotect",
	.caps = MC_PROCESS_WIDE | MC_IPI,
	.summary = "dirty a page then revoke it: TLB-shootdown IPIs (.NET, folly fallback)",
	.setup = mp_setup,
	.barrier = mp_barrier,
	.teardown = mp_teardown,
};
