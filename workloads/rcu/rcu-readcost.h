/* SPDX-License-Identifier: MIT */
/*
 * The read-side model: unit costs measured on this host (rcu-readcost.c)
 * times each scheme's counts (struct rcu_readside), beside the read rate
 * the rcu experiment measured.
 *
 * in two steps, each checked by a measurement:
 *
 *   alone:   ns per read = loop + the fences' prices (pending or idle)
 *            against the scheme's reader measured alone;
 *   running: ns per read = the reader alone (measured)
 *            + writes per read x (lines x one line as a reader pays it
 *                                 + interruptions x one interruption)
 *            against the read rate of the run.
 */
#ifndef MBBENCH_RCU_READCOST_H
#define MBBENCH_RCU_READCOST_H

#include <hwloc.h>

#include "rcu.h"

/* The gap probe's writer forces one barrier this often. */
#define RCU_PROBE_SPACING_NS 20000

struct rcu_cost {
	double mean, ci95;	/* ci95 NAN with one round */
};

struct rcu_unit_costs {
	struct rcu_cost loop;	/* one pass of the light reader loop, alone */
	struct rcu_cost rmw, mfence;	/* one fence, a store pending */
	struct rcu_cost rmw_idle, mfence_idle;	/* one fence, no store pending */
	struct rcu_cost line;	/* one cache line handed over (ping-pong) */
	/* One line as a running reader pays for it: the publish probe's
	 * writer moves two lines a write, the reader's time per write over
	 * the loop alone, halved. What the model prices lines at. */
	struct rcu_cost line_paid;
};

struct rcu_read_model {
	double loop_ns, fence_ns, solo_ns;	/* alone: loop + fences */
	double transfer_ns, interrupt_ns, read_ns;	/* running */
};

/* Fences and line transfers (not loop: that is rcu_solo_measure's). */
int rcu_unit_costs_measure(hwloc_topology_t topo, int reader_cpu, int writer_cpu,
			   struct rcu_unit_costs *c, char *reason, size_t len);
/* c->line_paid, from the publish probe; c->loop must be measured. */
int rcu_line_paid_measure(hwloc_topology_t topo, int reader_cpu, int writer_cpu, double secs,
			  int repeats, struct rcu_unit_costs *c, char *reason, size_t len);
int rcu_solo_measure(const struct rcu_scheme *s, hwloc_topology_t topo, int reader_cpu,
		     double secs, int repeats, struct rcu_cost *ns_per_read,
		     char *reason, size_t len);
int rcu_stolen_measure(const char *mech, hwloc_topology_t topo, int reader_cpu, int writer_cpu,
		       double secs, int repeats, struct rcu_cost *ns_per_barrier,
		       char *reason, size_t len);
void rcu_read_model(const struct rcu_readside *rs, const struct rcu_unit_costs *c,
		    double solo_ns, double stolen_ns, double writes_per_read,
		    struct rcu_read_model *m);

#endif
