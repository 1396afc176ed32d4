// SPDX-License-Identifier: MIT
/*
 * Every mechanism, once. The order is the order of `mbbench list` and of
 * `--mechanism all`.
 */
#include "config.h"

#include <string.h>

#include "mech.h"
#include "strbuf.h"

extern const struct mechanism mech_membarrier_global,
	mech_membarrier_global_expedited, mech_membarrier_private_expedited,
	mech_membarrier_private_expedited_sync_core,
	mech_membarrier_private_expedited_rseq, mech_seed_v1_ipi_all,
	mech_seed_v5_expedited, mech_seed_v5_sched, mech_signal, mech_mprotect,
	mech_fence, mech_null;

const struct mechanism *const mechanisms[] = {
	&mech_membarrier_global,
	&mech_membarrier_global_expedited,
	&mech_membarrier_private_expedited,
	&mech_membarrier_private_expedited_sync_core,
	&mech_membarrier_private_expedited_rseq,
	&mech_seed_v1_ipi_all,
	&mech_seed_v5_expedited,
	&mech_seed_v5_sched,
	&mech_signal,
	&mech_mprotect,
	&mech_fence,
	&mech_null,
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

/* Built once, as long as the registry needs, and kept. */
const char *mech_names(void)
{
	static struct strbuf b = STRBUF_INIT;

	if (!b.s)
		for (size_t i = 0; i < nr_mechanisms; i++)
			strbuf_addf(&b, "%s%s", i ? ", " : "", mechanisms[i]->name);
	return strbuf_str(&b);
}
