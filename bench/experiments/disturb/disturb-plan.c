// SPDX-License-Identifier: MIT
/*
 * disturb's round planning: which role runs on which CPU in which round.
 * Every bad --roles, --caller-cpu or --in-turn combination is found here,
 * before anything runs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disturb-plan.h"
#include "topo.h"
#include "util.h"

#define FAIL(code, ...)						\
	do {								\
		snprintf(err, len, __VA_ARGS__);			\
		ret = (code);						\
		goto fail;						\
	} while (0)

int disturb_plan(struct dplan_in *d, struct round **out, char *err, size_t len)
{
	struct placement all;
	char *copy = NULL, *save = NULL;
	struct slot req[DPLAN_MAX_SLOTS];
	int nreq = 0, npus = topo_npus(d->topo), nvictim = 0, *victims = NULL, nrounds;
	int ret;
	struct round *r = NULL;

	*out = NULL;
	if (placement_compute(d->topo, "compact", npus, &all, err, len))
		return DPLAN_HOST;
	if (d->caller_cpu < 0) {
		/* The first CPU of the compact order this process may run on. */
		for (int i = 0; i < npus && d->caller_cpu < 0; i++)
			if (d->cpu_ok(d->cpu_ok_arg, all.pu_os[i]))
				d->caller_cpu = all.pu_os[i];
		if (d->caller_cpu < 0) {
			placement_free(&all);
			FAIL(DPLAN_USAGE, "none of the host's %d CPUs is in this process's affinity mask (widen it with taskset)",
			     npus);
		}
	} else if (!d->cpu_ok(d->cpu_ok_arg, d->caller_cpu)) {
		placement_free(&all);
		FAIL(DPLAN_USAGE, "--caller-cpu %d: no such CPU, or not in this process's affinity",
		     d->caller_cpu);
	}
	victims = xcalloc((size_t)npus, sizeof(int));
	for (int i = 0; i < npus; i++)
		if (all.pu_os[i] != d->caller_cpu && d->cpu_ok(d->cpu_ok_arg, all.pu_os[i]))
			victims[nvictim++] = all.pu_os[i];
	placement_free(&all);
	if (!nvictim && (npus > 1 || d->host_cpus > 1))
		FAIL(DPLAN_USAGE, "disturb needs a CPU besides the caller's; this process may run on CPU %d only of the host's %d (widen its affinity mask: taskset -c LIST, or run without taskset)",
		     d->caller_cpu, d->host_cpus > npus ? d->host_cpus : npus);
	if (!nvictim)
		FAIL(DPLAN_HOST, "disturb needs a CPU besides the caller's; this host has one CPU");

	if (!d->roles) {
		/*
		 * Every role. Where the caller's package (or NUMA node) and
		 * another both have a CPU for each role, each role runs on
		 * both at once: a victim next to the caller and a remote one.
		 */
		int local[DPLAN_MAX_SLOTS], remote[DPLAN_MAX_SLOTS], nl = 0, nr = 0;

		for (int i = 0; i < nvictim; i++) {
			int far = !strcmp(topo_where(d->topo, d->caller_cpu, victims[i]), "remote");

			if (far && nr < DPLAN_MAX_SLOTS)
				remote[nr++] = victims[i];
			else if (!far && nl < DPLAN_MAX_SLOTS)
				local[nl++] = victims[i];
		}
		/* (CPU 0, first in compact order, can only go to the first
		 * role, idle: never to an RT spinner.) */
		if (!d->in_turn && nl >= NR_ROLES && nr >= NR_ROLES) {
			for (int i = 0; i < NR_ROLES; i++) {
				req[nreq++] = (struct slot){ (enum role)i, local[i] };
				req[nreq++] = (struct slot){ (enum role)i, remote[i] };
			}
		} else {
			for (int i = 0; i < NR_ROLES; i++)
				req[nreq++] = (struct slot){ (enum role)i, -1 };
			if (nreq > nvictim)
				d->in_turn = 1;
		}
	} else {
		copy = xstrdup(d->roles);
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *at = strchr(t, '@');
			enum role role;
			int cpu = -1;

			if (at) {
				uint64_t v;

				*at = '\0';
				if (parse_u64(at + 1, 0, 1u << 20, &v))
					FAIL(DPLAN_USAGE, "--roles: bad CPU '%s' after '@' in %s", at + 1, t);
				cpu = (int)v;
			}
			if (role_parse(t, &role))
				FAIL(DPLAN_USAGE, "unknown role '%s' in --roles (valid: %s)", t, role_names());
			if (nreq == DPLAN_MAX_SLOTS)
				FAIL(DPLAN_USAGE, "--roles: at most 64 roles");
			if (cpu >= 0) {
				if (cpu == d->caller_cpu)
					FAIL(DPLAN_USAGE, "--roles: %s@%d is on the caller's CPU %d (choose another CPU, or move the caller with --caller-cpu)",
						  t, cpu, d->caller_cpu);
				if (!d->cpu_ok(d->cpu_ok_arg, cpu))
					FAIL(DPLAN_USAGE, "--roles: %s@%d: no such CPU, or not in this process's affinity", t, cpu);
				if (role == ROLE_FOREIGN_RT && cpu == 0)
					FAIL(DPLAN_USAGE, "--roles: foreign-rt@0: an RT spinner never runs on CPU 0");
			}
			/* A role given twice is kept once, as every list is. */
			int seen = 0;

			for (int i = 0; i < nreq; i++)
				seen |= req[i].role == role && req[i].cpu == cpu;
			if (!seen)
				req[nreq++] = (struct slot){ role, cpu };
		}
		free(copy);
		copy = NULL;
		if (!nreq)
			FAIL(DPLAN_USAGE, "--roles needs at least one role (valid: %s)", role_names());
		if (!d->in_turn && nreq > nvictim)
			FAIL(DPLAN_USAGE, "--roles: %d roles but only %d CPU%s besides the caller's (use --in-turn to run them one at a time)",
				  nreq, nvictim, nvictim == 1 ? "" : "s");
	}

	nrounds = d->in_turn ? nreq : 1;
	r = xcalloc((size_t)nrounds + 1, sizeof(*r));
	if (d->in_turn) {
		for (int i = 0; i < nreq; i++) {
			r[i].n = 1;
			r[i].s[0] = req[i];
			if (r[i].s[0].cpu < 0)
				r[i].s[0].cpu = victims[0];
		}
	} else {
		/* Explicit CPUs first, then the rest in topology order. */
		int used[DPLAN_MAX_SLOTS], nused = 0, next = 0;

		for (int i = 0; i < nreq; i++)
			if (req[i].cpu >= 0) {
				for (int k = 0; k < nused; k++)
					if (used[k] == req[i].cpu)
						FAIL(DPLAN_USAGE, "--roles: CPU %d is given two roles (use --in-turn to run them one at a time)",
							  req[i].cpu);
				used[nused++] = req[i].cpu;
			}
		for (int i = 0; i < nreq; i++) {
			while (req[i].cpu < 0) {
				int c, taken = 0;

				if (next >= nvictim)
					FAIL(DPLAN_USAGE, "--roles: not enough free CPUs for %d roles", nreq);
				c = victims[next++];
				for (int k = 0; k < nused; k++)
					taken |= used[k] == c;
				if (!taken)
					req[i].cpu = c;
			}
			r[0].s[r[0].n++] = req[i];
		}
	}
	for (int i = 0; i < nrounds; i++)
		for (int k = 0; k < r[i].n; k++)
			if (r[i].s[k].role == ROLE_FOREIGN_RT && r[i].s[k].cpu == 0)
				FAIL(DPLAN_USAGE, "foreign-rt would land on CPU 0: an RT spinner never runs there (give it a CPU with foreign-rt@N)");
	if (d->have_tool) {
		int cpu = victims[0];

		for (int i = 0; i < nrounds; i++)
			for (int k = 0; k < r[i].n; k++)
				if (r[i].s[k].role == d->tool_role)
					cpu = r[i].s[k].cpu;
		if (cpu == 0 && d->tool_role == ROLE_FOREIGN_RT)
			FAIL(DPLAN_USAGE, "--victim-cmd would run on CPU 0: an RT victim never runs there");
		r[nrounds].n = 1;
		r[nrounds].s[0] = (struct slot){ d->tool_role, cpu };
		r[nrounds].tool = 1;
		nrounds++;
	}
	free(victims);
	*out = r;
	return nrounds;
fail:
	free(copy);
	free(victims);
	free(r);
	return ret;
}
