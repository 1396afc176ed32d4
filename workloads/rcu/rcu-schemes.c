// SPDX-License-Identifier: MIT
/*
 * The rcu schemes in one table: ours (rcu-ours.c), liburcu's flavors
 * (rcu-urcu-*.c, or placeholders that say why they are missing) and the
 * broken ones the torture must catch; and the write-side mechanism a scheme
 * names.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rcu.h"
#include "strbuf.h"

/* rcu-ours.c */
extern const struct rcu_scheme rcu_mb, rcu_signal, rcu_signal_spin, rcu_pe,
	rcu_global, rcu_mprotect, rcu_v5e, rcu_v1, rcu_v5s, rcu_qsbr,
	rcu_broken_no_wait, rcu_broken_no_barrier;

const struct mechanism *rcu_scheme_mech(const struct rcu_scheme *s)
{
	if (!s->mech)
		return NULL;
	if (!strcmp(s->mech, mech_signal_nofence.name))
		return &mech_signal_nofence;
	return mech_find(s->mech);
}

int rcu_probe_mech(const struct rcu_scheme *s, char *reason, size_t len)
{
	const struct mechanism *m = rcu_scheme_mech(s);

	if (!m) {
		snprintf(reason, len, "mechanism %s is not built in", s->mech);
		return -1;
	}
	return mech_probe(m, reason, len);
}

int rcu_no_liburcu(const struct rcu_scheme *s, char *reason, size_t len)
{
	(void)s;
	snprintf(reason, len, "built without liburcu (apt-get install liburcu-dev, then reconfigure)");
	return -1;
}

#ifdef HAVE_LIBURCU
extern const struct rcu_scheme rcu_liburcu_mb, rcu_liburcu_signal,
	rcu_liburcu_memb, rcu_liburcu_qsbr;
#else
#define NO_URCU(ident, cli)						\
	static const struct rcu_scheme ident = {			\
		.name = cli,						\
		.family = "liburcu",					\
		.summary = "liburcu's flavor (not built)",		\
		.probe = rcu_no_liburcu,				\
	}
NO_URCU(rcu_liburcu_mb, "liburcu-mb");
NO_URCU(rcu_liburcu_signal, "liburcu-signal");
NO_URCU(rcu_liburcu_memb, "liburcu-memb");
NO_URCU(rcu_liburcu_qsbr, "liburcu-qsbr");
#endif

const struct rcu_scheme *const rcu_schemes[] = {
	&rcu_mb,
	&rcu_signal,
	&rcu_signal_spin,
	&rcu_pe,
	&rcu_global,
	&rcu_mprotect,
	&rcu_v5e,
	&rcu_v1,
	&rcu_v5s,
	&rcu_qsbr,
	&rcu_liburcu_mb,
	&rcu_liburcu_signal,
	&rcu_liburcu_memb,
	&rcu_liburcu_qsbr,
	&rcu_broken_no_wait,
	&rcu_broken_no_barrier,
};

const size_t nr_rcu_schemes = sizeof(rcu_schemes) / sizeof(rcu_schemes[0]);

const struct rcu_scheme *rcu_scheme_find(const char *name)
{
	for (size_t i = 0; i < nr_rcu_schemes; i++)
		if (!strcmp(rcu_schemes[i]->name, name))
			return rcu_schemes[i];
	return NULL;
}

const char *rcu_scheme_names(int with_broken)
{
	/* Built once each, as long as the schemes need, and kept. */
	static struct strbuf buf[2] = { STRBUF_INIT, STRBUF_INIT };
	struct strbuf *b = &buf[!!with_broken];

	if (!b->s) {
		for (size_t i = 0; i < nr_rcu_schemes; i++) {
			if (!with_broken && rcu_scheme_is_broken(rcu_schemes[i]))
				continue;
			strbuf_addf(b, "%s%s", b->len ? ", " : "", rcu_schemes[i]->name);
		}
	}
	return strbuf_str(b);
}

int rcu_scheme_probe(const struct rcu_scheme *s, char *reason, size_t len)
{
	if (len)
		reason[0] = '\0';
	return s->probe ? s->probe(s, reason, len) : 0;
}
