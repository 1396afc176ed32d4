/* SPDX-License-Identifier: MIT */
/*
 * The subcommands: one exp-*.c each, whose `const struct experiment exp_foo`
 * at its end is one row of exp-registry.c. An experiment the sweep runs
 * also carries its presets and its cost (plan.h).
 */
#ifndef MBBENCH_EXPERIMENT_H
#define MBBENCH_EXPERIMENT_H

#include "cli.h"
#include "harness.h"
#include "output.h"
#include "plan.h"
#include "points.h"
#include "workdone.h"

struct experiment {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
	/* The tables it writes (NULL-terminated; NULL: none), for `mbbench schema`. */
	const struct table_schema *const *tables;
	/* The sweep's part; cost NULL: the sweep does not run it. */
	struct preset quick, full;
	double floor;		/* the least duration fitting scales to */
	enum preset_cut cut;
	const struct mech_pick *picks;	/* NULL: every mechanism */
	int npicks;
	/* "--scheme", "--pairing": one point, "all", only without --mechanism
	 * (NULL: one point per mechanism, with --mechanism) */
	const char *all_opt;
	int cpus;		/* the usable CPUs a point needs */
	int first;		/* runs before the shuffled points, with any --mechanism */
	double skipped_s;	/* a point whose mechanism is absent; 0: PLAN_SKIPPED_S */
	/* Predicted seconds of one point (m NULL: the "all" point). */
	double (*cost)(const struct preset *p, const struct plan_host *h,
		       const struct mechanism *m);
	/* Its options after the selection, each with a leading space. */
	void (*options)(FILE *f, const struct preset *p, const struct plan_host *h);
};
#define NPICKS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Every subcommand (exp-registry.c): the swept ones in the sweep's order. */
extern const struct experiment *const experiments[];
extern const size_t nr_experiments;

/* exp-points.c: disturb's rounds with every role, distance's levels. */
int points_disturb_rounds(hwloc_topology_t topo);
int points_distance_levels(hwloc_topology_t topo);
int points_distance_nearest(hwloc_topology_t topo);

/* The columns table_set_topology fills, for an experiment's column table. */
#define TOPOLOGY_COLS								\
	COL_INFO("cpus_logical", COL_STR, "", 0,					\
		 "hwloc logical PU of each thread, in the order of `cpus` (the OS numbers)"), \
	COL_INFO("n_same_core", COL_INT, "", 0,						\
		 "other threads on the caller's core (its SMT siblings, or its own PU when oversubscribed); empty without the level"), \
	COL_INFO("n_same_l3", COL_INT, "", 0,						\
		 "other threads sharing the caller's L3 (nested: counts the core's too); empty without the level"), \
	COL_INFO("n_same_package", COL_INT, "", 0,					\
		 "other threads in the caller's package (nested); empty without the level"), \
	COL_INFO("n_same_numa", COL_INT, "", 0,						\
		 "other threads in the caller's NUMA node (nested); empty without the level"), \
	COL_INFO("n_remote", COL_INT, "", 0,						\
		 "other threads on another package or another NUMA node than the caller's")

/*
 * The spread of a row's ns-per-call repeats and its --ci-target outcome:
 * calls' and distance's, which measure the same figure.
 */
#define NS_PER_CALL_REPEAT_COLS								\
	COL_INFO("cv", COL_NUM, "", 0, "coefficient of variation of `ns_per_call`; above 0.10 a note is added"), \
	COL_INFO("ns_per_repeat", COL_STR, "ns", 0,					\
		 "each repeat's ns per call in the order run, `;`-separated: the spread behind the CI (a mix of two levels shows here)"), \
	COL_INFO("ci_target_pct", COL_NUM, "%", 0,					\
		 "with `--ci-target`: the target, 95% CI half-width as % of the mean; empty otherwise"), \
	COL_INFO("ci_achieved_pct", COL_NUM, "%", 0,					\
		 "with `--ci-target`: the half-width reached, % of the mean"),		\
	COL_INFO("ci_target_met", COL_INT, "", 0,					\
		 "with `--ci-target`: 1 if reached, 0 if `--max-repeat` ran out first (a note says so)")

/*
 * What the barriers of a row's good repeats did (workdone.h), and how many
 * repeats did not measure the point. A row whose good repeats never reached
 * --repeat is `degraded`, with no figure.
 */
#define WORK_COLS									\
	COL_MEASURE("ipis_per_barrier", COL_NUM, "", NONE, NONE, 0,			\
		    "IPIs the target threads' CPUs received per barrier (CAL + RES rows of /proc/interrupts), mean over the good repeats; ~1 per target for a command that interrupts it, ~0 when it found the target off its CPU"), \
	COL_MEASURE("target_oncpu_share", COL_NUM, "", NONE, NONE, 0,			\
		    "the least share of a repeat a spinning target thread was on its CPU (its schedstat run time), mean over the good repeats; empty without spinners"), \
	COL_MEASURE("steal_share", COL_NUM, "", NONE, NONE, 0,				\
		    "share of the host's CPU time the hypervisor ran something else during the good repeats (/proc/stat steal), mean"), \
	COL_COUNT("repeats_degraded", COL_INT, 0,					\
		  "repeats left out and measured again: a spinning target on its CPU less than 90% of the repeat, or fewer than 90% of the IPIs its membarrier command sends (none due to sleeping targets); never for an oversubscribed point"), \
	COL_INFO("degraded_reason", COL_STR, "", 0,					\
		 "what the first degraded repeat found (who had the target's CPU, or the IPIs sent)")
/*
 * The delivery floor beside the cost (calls, distance): a targeted barrier
 * to the first target's CPU measured after each repeat, and the cost net
 * of it, which a moving hypervisor moves less.
 */
#define FLOOR_COLS									\
	COL_MEASURE("floor_ns", COL_NUM, "ns", NONE, MEAN, 0,				\
		    "the IPI delivery floor: ns per MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ with FLAG_CPU to the first target's CPU, measured after each good repeat in the same process (the least kernel software around one IPI round trip); empty where the point interrupts no spinning thread of its own, the kernel lacks the command, or the floor's own IPIs were not all sent. compare says `changed` when it moved: the host (or that command's path) changed"), \
	COL_CI95("floor_ns_ci95", "floor_ns", "ns", 0, "its 95% CI half-width"),	\
	COL_MEASURE("ns_over_floor", COL_NUM, "ns", LOWER, MEAN, COL_SIGNED,		\
		    "ns_per_call less floor_ns, repeat by repeat: the barrier's cost beyond one IPI round trip, what a kernel change to its software moves when the hypervisor moves the delivery"), \
	COL_CI95("ns_over_floor_ci95", "ns_over_floor", "ns", 0, "its 95% CI half-width")
/* Filled by the sweep (analysis/mbassemble.py) from the folder's doctor.csv. */
#define KERNEL_FINDING_COL								\
	COL_INFO("kernel_finding", COL_STR, "", 0,					\
		 "filled by `mbbench sweep` from its doctor.csv: `lazy-mm` on a membarrier-global-expedited row when doctor found that this kernel's GLOBAL_EXPEDITED skips CPUs whose idle task holds the mm lazily (the row may measure the bug: barriers that sent no IPI); empty otherwise and outside a sweep")
#define WORK_STATUS_DOC "`ok`, `degraded` (fewer good repeats than --repeat: no figure; `skip_reason` says why) or `skipped`"
/*
 * cpus_logical and n_same_core, n_same_l3, n_same_package, n_same_numa,
 * n_remote (the other threads relative to the caller, thread 0) of a row.
 */
void table_set_topology(struct table *t, int row, hwloc_topology_t topo,
			const struct placement *pl);

/*
 * Shared by experiments that run a mechanism over a team: start the team
 * for T threads (mech_prepare, mech.h, probes and sets the mechanism up
 * first). Returns 0, or -1 with a skip reason.
 */
int team_for(struct team *t, const struct opts *o, const struct mechanism *m,
	     int nthreads, struct placement *pl, char *reason, size_t len);

/*
 * The mechanism x thread-count loop of calls and latency: each mechanism of
 * o is prepared, a team of T threads started for each T of o->threads,
 * measured, stopped, and given its row in t. A mechanism that cannot run,
 * a team that cannot start and a failed barrier give skipped rows.
 */
struct point_ops {
	const char *exp;	/* for progress */
	struct table *t;
	void *ctx;
	/* A new row of t with the point's key cells. */
	int (*row)(void *ctx, const struct mechanism *m, int T);
	/* With the team running: warm up and measure. 0 or -errno. */
	int (*measure)(void *ctx, const struct mechanism *m, int T, const struct team *team);
	/* The measured row's cells (status "ok" and the figures). */
	void (*fill)(void *ctx, int row, const struct mechanism *m, int T,
		     const struct placement *pl);
};
void for_each_point(const struct opts *o, const struct point_ops *ops);

struct results;

/*
 * The repeats of one point, shared by calls and distance (contend and rcu
 * use the same options, repeats_cap and ci_target_reached): exactly --repeat
 * times, or with --ci-target PCT until the 95% CI half-width of ns/call is
 * within PCT% of the mean (at least --repeat and 3 times, at most
 * --max-repeat), after one warm-up repeat that is discarded.
 */
struct repeats {
	int ci_target;		/* percent; 0: exactly --repeat */
	int max_repeat;
	double *ns;		/* ns per call of each good repeat */
	int n;			/* good repeats taken */
	int want;		/* good repeats a figure needs (--repeat) */
	double *net;		/* ns per call less the floor, of the good repeats that have one */
	int nnet;
	double calls_sum;
	struct worksum work;	/* what the barriers did, the degraded repeats */
};
/* The --ci-target and --max-repeat rows of an option table. */
#define REPEATS_OPTS(rp)							\
	OPT_INT("ci-target", "PCT", "repeat each point until its 95% CI is within PCT% of\n" \
		"the mean (at least --repeat, at most --max-repeat times,\n"	\
		"after a discarded warm-up); 0: exactly --repeat (default)",	\
		&(rp)->ci_target, 0, 50, "(a percentage from 0 to 50)"),	\
	OPT_INT("max-repeat", "N", "the most repeats --ci-target may take (default 30)", \
		&(rp)->max_repeat, 2, 100000, "(a count from 2 to 100000)")
#define REPEATS_INIT { .max_repeat = 30 }
/* After opts_parse: a --max-repeat below --repeat is bad input (exit 2). */
void repeats_check(const struct repeats *rp, const struct opts *o);
/* The most repeats of a point: --max-repeat with --ci-target, else --repeat. */
int repeats_cap(const struct repeats *rp, const struct opts *o);
/* repeats_check, then room for the repeats of one point. */
void repeats_begin(struct repeats *rp, const struct opts *o);
/* The cells ci_target_pct, ci_achieved_pct, ci_target_met of a row whose
 * nrep repeats s summarizes, and a note naming `what` when the target was
 * missed. */
void table_set_ci_target(struct table *t, int row, struct results *res, int target,
			 const struct summary *s, int nrep, const char *what);
/*
 * With the team running: warm up, then the repeats, each with the work its
 * barriers did; a degraded repeat is left out and measured again, within
 * work_attempts(). 0 or -errno.
 */
int repeats_measure(struct repeats *rp, const struct opts *o, const struct mechanism *m,
		    const struct team *team);
/*
 * The WORK_COLS cells of a row from s; with fewer than want repeats in its
 * figure (have), status `degraded` and its reason. 1 for a degraded row.
 */
int work_fill(struct table *t, int row, const struct worksum *s, int have, int want,
	      const char *what, struct results *res);
/*
 * The row's repeats, calls_per_repeat, ns_per_call, ns_per_call_stddev,
 * ns_per_call_ci95, cv, ci_target_pct, ci_achieved_pct and ci_target_met,
 * and its work (work_fill); a note names the point (what) when the target
 * is missed or the CV high. s gets the summary of ns/call. Returns 1 for a
 * degraded row (no figure written).
 */
int repeats_fill(const struct repeats *rp, struct table *t, int row, struct results *res,
		  const char *what, struct summary *s);
void repeats_end(struct repeats *rp);

#endif
