// SPDX-License-Identifier: MIT
/*
 * Every mechanism, once. The order is the order of `mbbench list` and of
 * `--mechanism all`. A new mechanism is its mech-*.c file, one row in
 * MECHANISMS below and one line in Makefile.am.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mech.h"
#include "strbuf.h"
#include "util.h"

/* One row per mechanism: its struct's name in its mech-*.c file. */
#define MECHANISMS(X)							\
	X(mech_membarrier_global)					\
	X(mech_membarrier_global_expedited)				\
	X(mech_membarrier_private_expedited)				\
	X(mech_membarrier_private_expedited_sync_core)			\
	X(mech_membarrier_private_expedited_rseq)			\
	X(mech_membarrier_private_expedited_rseq_cpu)		\
	X(mech_seed_v1_ipi_all)						\
	X(mech_seed_v5_expedited)					\
	X(mech_seed_v5_sched)						\
	X(mech_signal)							\
	X(mech_mprotect)						\
	X(mech_fence)							\
	X(mech_null)							\
	/* end of the list */

#define DECLARE(ident) extern const struct mechanism ident;
MECHANISMS(DECLARE)
#undef DECLARE

const struct mechanism *const mechanisms[] = {
#define ENTRY(ident) &ident,
	MECHANISMS(ENTRY)
#undef ENTRY
};

const size_t nr_mechanisms = sizeof(mechanisms) / sizeof(mechanisms[0]);

const struct mechanism *mech_find(const char *name)
{
	for (size_t i = 0; i < nr_mechanisms; i++)
		if (!strcmp(mechanisms[i]->name, name))
			return mechanisms[i];
	return NULL;
}

int mech_has(const struct mechanism *m, unsigned all, unsigned none)
{
	return (m->caps & all) == all && !(m->caps & none);
}

const char *mech_cap_name(unsigned cap)
{
	switch (cap) {
	case MC_PROCESS_WIDE: return "process-wide";
	case MC_IPI: return "ipi";
	case MC_GRACE_PERIOD: return "grace-period";
	case MC_REGISTER: return "register";
	case MC_PATCHED_KERNEL: return "patched-kernel";
	case MC_FENCE_LIKE: return "fence-like";
	}
	return "?";
}

int mech_probe(const struct mechanism *m, char *reason, size_t len)
{
	if (len)
		reason[0] = '\0';
	return m->probe ? m->probe(m, reason, len) : 0;
}

int mech_prepare(const struct mechanism *m, char *reason, size_t len)
{
	if (mech_probe(m, reason, len))
		return -1;
	if (m->setup && m->setup(m, reason, len))
		return -1;
	return 0;
}

/* Built once, as long as the registry needs, and kept. */
const char *mech_names(void)
{
	static struct strbuf b = STRBUF_INIT;

	if (!b.s)
		for (size_t i = 0; i < nr_mechanisms; i++)
			strbuf_addf(&b, "%s%s", i ? ", " : "", mechanisms[i]->name);
	return strbuf_str(&b);
}

char *mech_names_with(unsigned all, unsigned none, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < nr_mechanisms; i++) {
		const struct mechanism *m = mechanisms[i];
		int n;

		if (!mech_has(m, all, none))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", m->name);
		if (n < 0 || (size_t)n >= len - used)
			fail("internal error: mechanism names exceed %zu bytes", len);
		used += (size_t)n;
	}
	return buf;
}
