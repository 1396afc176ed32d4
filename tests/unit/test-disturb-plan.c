// SPDX-License-Identifier: MIT
/*
 * disturb's round planning on synthetic topologies: which role lands on
 * which CPU in which round, and which inputs are refused and how.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "disturb-plan.h"
#include "tap.h"
#include "topo.h"

static hwloc_topology_t topo;
static int offline = -1;	/* a CPU the predicate refuses */

static int cpu_ok(void *arg, int cpu)
{
	(void)arg;
	return cpu >= 0 && cpu < topo_npus(topo) && cpu != offline;
}

static void load(const char *syn)
{
	char err[256];

	if (topo)
		hwloc_topology_destroy(topo);
	setenv("MBBENCH_SYNTHETIC", syn, 1);
	if (topo_load(&topo, err, sizeof(err))) {
		printf("Bail out! %s: %s\n", syn, err);
		exit(1);
	}
}

/* "role@cpu role@cpu|role@cpu" for the rounds; "+" marks the tool round. */
static int run_plan(const char *roles, int caller, int in_turn, int tool,
		char *out, size_t len, char *err, size_t elen)
{
	struct dplan_in in = {
		.topo = topo, .cpu_ok = cpu_ok, .caller_cpu = caller,
		.in_turn = in_turn, .roles = roles, .have_tool = tool,
		.tool_role = ROLE_FOREIGN_SLEEP,
	};
	struct round *r;
	int n = disturb_plan(&in, &r, err, elen);
	size_t o = 0;

	out[0] = '\0';
	if (n < 0)
		return n;
	o += (size_t)snprintf(out + o, len - o, "c%d:", in.caller_cpu);
	for (int i = 0; i < n; i++) {
		if (i)
			o += (size_t)snprintf(out + o, len - o, "|");
		if (r[i].tool)
			o += (size_t)snprintf(out + o, len - o, "+");
		for (int k = 0; k < r[i].n; k++)
			o += (size_t)snprintf(out + o, len - o, "%s%s@%d", k ? " " : "",
					      role_name(r[i].s[k].role), r[i].s[k].cpu);
	}
	free(r);
	return n;
}

static void want(const char *roles, int caller, int in_turn, int tool, const char *expect)
{
	char out[2048], err[512] = "";
	int n = run_plan(roles, caller, in_turn, tool, out, sizeof(out), err, sizeof(err));

	ok(n > 0 && !strcmp(out, expect), "%s caller %d%s%s: %s (got %s%s)",
	   roles ? roles : "(every role)", caller, in_turn ? " in turn" : "",
	   tool ? " +tool" : "", expect, n > 0 ? out : "error: ", n > 0 ? "" : err);
}

static void refuse(const char *roles, int caller, int in_turn, int tool, int code,
		   const char *msg)
{
	char out[2048], err[512] = "";
	int n = run_plan(roles, caller, in_turn, tool, out, sizeof(out), err, sizeof(err));

	ok(n == code && strstr(err, msg) != NULL, "%s caller %d: refused with '%s' (got %d: %s)",
	   roles ? roles : "(every role)", caller, msg, n, n < 0 ? err : out);
}

int main(void)
{
	plan(26);
	load("pack:1 core:8 pu:1");
	want(NULL, -1, 0, 0,
	     "c0:idle@1 self-spin@2 self-sleep@3 foreign-spin@4 foreign-rt@5 foreign-sleep@6");
	want("self-spin@3,idle", 0, 0, 0, "c0:self-spin@3 idle@1");
	want("idle,idle@3", 2, 0, 0, "c2:idle@0 idle@3");
	want("idle,idle", 2, 0, 0, "c2:idle@0");	/* a role given twice is kept once */
	want("idle,self-spin", 4, 1, 0, "c4:idle@0|self-spin@0");
	want("foreign-sleep", -1, 0, 1, "c0:foreign-sleep@1|+foreign-sleep@1");
	offline = 1;
	want("idle", 0, 0, 0, "c0:idle@2");
	offline = -1;
	refuse("self-spin@0", 0, 0, 0, DPLAN_USAGE, "is on the caller's CPU 0");
	refuse("idle@99", 0, 0, 0, DPLAN_USAGE, "idle@99: no such CPU");
	refuse("bogus", 0, 0, 0, DPLAN_USAGE, "unknown role 'bogus' in --roles");
	refuse("idle@1,self-spin@1", 0, 0, 0, DPLAN_USAGE, "CPU 1 is given two roles");
	refuse("foreign-rt@0", 1, 0, 0, DPLAN_USAGE, "foreign-rt@0: an RT spinner never runs on CPU 0");
	refuse("idle", 99, 0, 0, DPLAN_USAGE, "--caller-cpu 99: no such CPU");
	refuse("", 0, 0, 0, DPLAN_USAGE, "--roles needs at least one role");

	/* Big hosts: with a CPU per role next to the caller and on another
	 * package (or NUMA node), each role runs on both at once. */
	load("pack:2 core:8 pu:1");
	want(NULL, -1, 0, 0,
	     "c0:idle@1 idle@8 self-spin@2 self-spin@9 self-sleep@3 self-sleep@10 "
	     "foreign-spin@4 foreign-spin@11 foreign-rt@5 foreign-rt@12 foreign-sleep@6 foreign-sleep@13");
	load("pack:1 node:2 core:8 pu:1");
	want(NULL, -1, 0, 0,
	     "c0:idle@1 idle@8 self-spin@2 self-spin@9 self-sleep@3 self-sleep@10 "
	     "foreign-spin@4 foreign-spin@11 foreign-rt@5 foreign-rt@12 foreign-sleep@6 foreign-sleep@13");
	ok(!strcmp(topo_where(topo, 0, 8), "remote") && !strcmp(topo_where(topo, 0, 7), "local") &&
	   !strcmp(topo_where(topo, 3, 3), "caller"), "CPU 8 is remote from CPU 0 across NUMA nodes, CPU 7 local");
	/* Too few CPUs on one side: every role once, as before. */
	load("pack:2 core:4 pu:1");
	want(NULL, -1, 0, 0,
	     "c0:idle@1 self-spin@2 self-sleep@3 foreign-spin@4 foreign-rt@5 foreign-sleep@6");

	load("pack:1 core:2 pu:1");
	want(NULL, -1, 0, 0,
	     "c0:idle@1|self-spin@1|self-sleep@1|foreign-spin@1|foreign-rt@1|foreign-sleep@1");
	refuse("idle,self-spin", 0, 0, 0, DPLAN_USAGE, "2 roles but only 1 CPU besides the caller's");
	refuse("foreign-rt", 1, 0, 0, DPLAN_USAGE, "foreign-rt would land on CPU 0");
	/* An affinity mask (taskset) that leaves out CPU 0: the caller is
	 * chosen inside it, and one usable CPU is a usage error naming it. */
	offline = 0;
	refuse("self-spin", -1, 0, 0, DPLAN_USAGE,
	       "this process may run on CPU 1 only of the host's 2 (widen its affinity mask");
	offline = 1;
	refuse("self-spin", -1, 0, 0, DPLAN_USAGE, "may run on CPU 0 only of the host's 2");
	load("pack:1 core:4 pu:1");
	offline = 0;
	want("self-spin", -1, 0, 0, "c1:self-spin@2");
	offline = -1;

	load("pack:1 core:1 pu:1");
	/* A topology cut to a one-CPU affinity mask on a bigger host. */
	{
		char err[512] = "";
		struct dplan_in in = {
			.topo = topo, .cpu_ok = cpu_ok, .caller_cpu = -1, .host_cpus = 4,
			.roles = "idle", .tool_role = ROLE_FOREIGN_SLEEP,
		};
		struct round *r;
		int n = disturb_plan(&in, &r, err, sizeof(err));

		ok(n == DPLAN_USAGE && strstr(err, "may run on CPU 0 only of the host's 4"),
		   "one CPU of 4 in the mask: a usage error (%s)", err);
	}
	refuse(NULL, -1, 0, 0, DPLAN_HOST, "disturb needs a CPU besides the caller's; this host has one CPU");
	hwloc_topology_destroy(topo);
	return tap_failed ? 1 : 0;
}
