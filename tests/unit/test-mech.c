// SPDX-License-Identifier: MIT
/*
 * Every available mechanism issues barriers without error in a real team;
 * unavailable ones are SKIP with their reason; the signal scheme collects
 * exactly one ack per other thread per barrier, sleeping threads included;
 * the private commands issue barriers with the team in another process.
 */
#include "config.h"

#include <string.h>

#include "harness.h"
#include "tap.h"

#define NBARRIERS 200

static int run_team(const struct mechanism *m, hwloc_topology_t topo, int T,
		    enum behaviour beh, int other_process, struct measure *me,
		    struct team *team, char *err, size_t len, int keep)
{
	struct placement pl;
	struct team_cfg cfg = { 0 };

	if (placement_compute(topo, "compact", T, &pl, err, len))
		return -1;
	cfg.topo = topo;
	cfg.pl = &pl;
	cfg.beh = beh;
	cfg.other_process = other_process;
	cfg.mech = m;
	if (team_start(team, &cfg, err, len)) {
		placement_free(&pl);
		return -1;
	}
	harness_measure(m, NBARRIERS, 0, NULL, me);
	if (!keep)
		team_stop(team);
	placement_free(&pl);
	return 0;
}

int main(void)
{
	hwloc_topology_t topo;
	char err[256];
	int npus;

	if (topo_load(&topo, err, sizeof(err))) {
		printf("1..0 # SKIP cannot load topology: %s\n", err);
		return 0;
	}
	npus = topo_npus(topo);
	plan((int)nr_mechanisms + 4);
	for (size_t i = 0; i < nr_mechanisms; i++) {
		const struct mechanism *m = mechanisms[i];
		struct measure me;
		struct team team;
		char reason[256];
		int n = mech_has(m, MC_GRACE_PERIOD, 0) ? 5 : NBARRIERS;

		if (mech_probe(m, reason, sizeof(reason))) {
			skip("%s unavailable: %s", m->name, reason);
			continue;
		}
		if (m->setup && m->setup(m, reason, sizeof(reason))) {
			ok(0, "%s setup: %s", m->name, reason);
			continue;
		}
		if (run_team(m, topo, 2, BEH_SPIN, 0, &me, &team, err, sizeof(err), 1)) {
			ok(0, "%s: team: %s", m->name, err);
			continue;
		}
		/* Slow ones (a grace period each) get fewer calls. */
		if (n != NBARRIERS)
			harness_measure(m, (uint64_t)n, 0, NULL, &me);
		team_stop(&team);
		ok(me.err == 0 && me.calls == (uint64_t)n && me.ns > 0,
		   "%s: %d barriers with a spinning thread (err %d, %.0f ns/call)", m->name, n,
		   me.err, me.calls ? (double)me.ns / (double)me.calls : 0.0);
		if (m->teardown)
			m->teardown(m);
	}
	{
		const struct mechanism *sig = mech_find("signal");
		struct measure me;
		struct team team;
		const int T = 4;	/* caller + 3 sleepers, even on 2 CPUs */
		int exact = 1;

		sig->setup(sig, err, sizeof(err));
		if (run_team(sig, topo, T, BEH_SLEEP, 0, &me, &team, err, sizeof(err), 1)) {
			ok(0, "signal team: %s", err);
			ok(0, "signal team: %s", err);
		} else {
			for (int i = 0; i < T - 1; i++)
				if (mech_signal_acks(i) != NBARRIERS) {
					diag("thread %d acked %lu of %d", i, mech_signal_acks(i),
					     NBARRIERS);
					exact = 0;
				}
			ok(me.err == 0 && me.calls == NBARRIERS, "signal: %d barriers to %d sleeping threads",
			   NBARRIERS, T - 1);
			ok(exact, "signal: exactly one ack per sleeping thread per barrier");
			team_stop(&team);
		}
	}
	/* rseq-cpu: no team thread in this process, so it targets its own CPU. */
	for (int k = 0; k < 2; k++) {
		const struct mechanism *pe = mech_find(k ? "membarrier-private-expedited-rseq-cpu" :
						      "membarrier-private-expedited");
		struct measure me;
		struct team team;
		char reason[256];

		if (!pe || mech_probe(pe, reason, sizeof(reason)) || npus < 2) {
			skip("%s other-process team: %s", pe ? pe->name : "?",
			     !pe ? "not built in" : npus < 2 ? "one CPU" : reason);
		} else {
			pe->setup(pe, reason, sizeof(reason));
			ok(!run_team(pe, topo, 2, BEH_SPIN, 1, &me, &team, err, sizeof(err), 0) &&
				   me.err == 0 && me.calls == NBARRIERS,
			   "%s with the other thread in another process", pe->name);
		}
	}
	hwloc_topology_destroy(topo);
	return done_testing();
}
