// SPDX-License-Identifier: MIT
/* Probe/setup and team start shared by the calls and latency experiments. */
#include "config.h"

#include <stdio.h>

#include "experiment.h"
#include "util.h"

int mech_prepare(const struct mechanism *m, char *reason, size_t len)
{
	if (mech_probe(m, reason, len))
		return -1;
	if (m->setup && m->setup(m, reason, len))
		return -1;
	return 0;
}

int team_for(struct team *t, const struct opts *o, const struct mechanism *m,
	     int nthreads, struct placement *pl, char *reason, size_t len)
{
	struct team_cfg cfg = { 0 };

	if (placement_compute(o->topo, o->placement, nthreads, pl, reason, len))
		return -1;
	cfg.topo = o->topo;
	cfg.pl = pl;
	cfg.beh = o->beh;
	cfg.other_process = o->other_process;
	cfg.mech = m;
	if (team_start(t, &cfg, reason, len)) {
		placement_free(pl);
		return -1;
	}
	return 0;
}
