// SPDX-License-Identifier: MIT
/*
 * disturb's round planning (bench/experiments/disturb/disturb-plan.c): --roles lists
 * (ROLE[@CPU],...), --caller-cpu and --in-turn on a synthetic topology.
 * Input: three bytes (caller CPU, flags, a CPU the predicate refuses), the
 * synthetic description, a newline, the roles. A plan must keep every
 * role off the caller's CPU and on a usable one, one role per CPU in a
 * round unless in turn, and no RT spinner on CPU 0.
 */
#include "config.h"

#include "disturb-plan.h"
#include "fuzz.h"
#include "synthetic.h"

static hwloc_topology_t topo;
static int refused;

static int cpu_ok(void *arg, int cpu)
{
	(void)arg;
	return cpu >= 0 && cpu != refused &&
	       hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dplan_in in = { .cpu_ok = cpu_ok };
	struct round *r = NULL;
	char *s, *roles, err[512] = "";
	unsigned flags;
	int n;

	if (size < 3)
		return 0;
	flags = data[1];
	in.caller_cpu = data[0] < 128 ? -1 : data[0] - 128;
	in.in_turn = flags & 1;
	in.have_tool = !!(flags & 2);
	in.tool_role = (enum role)((flags >> 3) % NR_ROLES);
	refused = data[2] == 255 ? -1 : data[2];
	s = fuzz_str(data + 3, size - 3);
	roles = fuzz_line(s);
	in.roles = flags & 4 ? NULL : roles;
	if (synthetic_load(s, &topo)) {
		free(s);
		return 0;
	}
	in.topo = topo;

	n = disturb_plan(&in, &r, err, sizeof(err));
	if (n < 0) {
		FUZZ_CHECK(n == DPLAN_USAGE || n == DPLAN_HOST);
		FUZZ_CHECK(err[0] && !r);
	} else {
		FUZZ_CHECK(n >= 1 && r);
		FUZZ_CHECK(cpu_ok(NULL, in.caller_cpu));
		for (int i = 0; i < n; i++) {
			FUZZ_CHECK(r[i].n >= 1 && r[i].n <= DPLAN_MAX_SLOTS);
			FUZZ_CHECK(!r[i].tool || (i == n - 1 && in.have_tool));
			for (int k = 0; k < r[i].n; k++) {
				const struct slot *sl = &r[i].s[k];

				FUZZ_CHECK(sl->role >= 0 && sl->role < NR_ROLES);
				FUZZ_CHECK(cpu_ok(NULL, sl->cpu) && sl->cpu != in.caller_cpu);
				FUZZ_CHECK(!(sl->role == ROLE_FOREIGN_RT && sl->cpu == 0));
				for (int j = 0; j < k; j++)
					FUZZ_CHECK(r[i].s[j].cpu != sl->cpu);
			}
		}
		free(r);
	}
	hwloc_topology_destroy(topo);
	topo = NULL;
	free(s);
	return 0;
}
