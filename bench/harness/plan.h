/* SPDX-License-Identifier: MIT */
/*
 * The sweep's plan (`mbbench plan`, `mbbench sweep`): each experiment's
 * points from its preset, their predicted seconds from its cost function,
 * and the fit into a time budget. Pure: no topology, no probing, nothing
 * measured (exp-plan.c gathers the host's facts), so it is unit-tested.
 */
#ifndef MBBENCH_PLAN_H
#define MBBENCH_PLAN_H

#include <linux/membarrier.h>	/* the commands a mech_pick names */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct experiment;
struct mechanism;

/* Seconds per thread started, and the fixed part of a sweep: list, info,
 * assembling, figures, report (calibrated against `make bench` on a 2-vCPU
 * KVM guest, 96 s measured). */
#define PLAN_TH 0.0001
#define PLAN_FIXED_S 13
/* The ab preset's budget, s: one of several runs a side of an A/B. */
#define PLAN_AB_BUDGET 60
/* The ab preset's experiments: those with a headline point. */
#define PLAN_AB_EXPERIMENTS "calls,distance,latency,register,contend"
/* A point whose mechanism is absent here: one skipped row. */
#define PLAN_SKIPPED_S 0.06
/*
 * Each point is measured in this many processes (replicates), spread over
 * the run: its CI comes from their means, since what moves between runs
 * (placement of memory and threads, the hypervisor's packing, cache
 * colours) is fixed within one process. A process costs PLAN_PROCESS_S to
 * start (hwloc's topology, the team) besides its measuring.
 */
#define PLAN_REPLICATES_QUICK 10
#define PLAN_REPLICATES_FULL 5
#define PLAN_PROCESS_S 0.05

/* How the sweep runs an experiment: one preset for --quick, one for --full. */
struct preset {
	double duration;	/* s of one run (latency, litmus: of all the repeats) */
	int repeat;
	int ci_target;		/* percent; 0: exactly repeat */
	int max_repeat;
	const char *threads;	/* register's thread counts; NULL: 0,1,2,N,2N (anatomy: its T) */
	int barriers;		/* anatomy's barriers traced per point and T */
	/* The most processes a point of it runs in (0: the plan's replicates):
	 * for an experiment whose process is long (disturb's rounds, anatomy's
	 * tracing), fewer processes measuring longer. */
	int processes;
};

/* What fitting does to the repeats when scaled durations are not enough. */
enum preset_cut {
	CUT_NONE,
	CUT_MAX,	/* --max-repeat down to --repeat */
	CUT_HALVE,	/* --repeat halved (at least 2), --max-repeat to it */
};

/*
 * Which mechanisms an experiment runs: those with every cap of all and none
 * of none, and a membarrier command of cmd (PICK_ANY, PICK_NO_CMD: none,
 * PICK_SOME_CMD: any, or that MEMBARRIER_CMD_*). An experiment's picks are
 * taken in turn, each in registry order, a mechanism once.
 */
#define PICK_ANY (-1)
#define PICK_NO_CMD 0
#define PICK_SOME_CMD (-2)
struct mech_pick {
	unsigned all, none;
	int cmd;
};
int mech_picked(const struct mechanism *m, const struct mech_pick *p);

/* What the plan knows of the host, for the cost and option functions. */
struct plan_host {
	int npus;
	int disturb_rounds, distance_levels;
	/* The ab preset: distance at this level only ("core"), else NULL: every level. */
	const char *distance_level;
	const char *placement;
	const char *behaviour;	/* "" or " --behaviour sleep" */
	const char *threads;	/* calls' thread counts, "1,2,4" or "1-8" */
	const char *callers;	/* contend's caller counts */
	const char *ladder_threads, *ladder_callers;	/* the counts only there as powers of two */
	/* Nonzero when m runs here (or the plan assumes every one does). */
	int (*available)(const struct plan_host *h, const struct mechanism *m);
	int assume;
};

struct plan_point {
	const struct experiment *e;
	int exp;		/* index into plan.presets */
	const struct mechanism *m;	/* NULL: the experiment's "all" */
	double s;		/* predicted, set by plan_fit */
};

struct plan {
	struct plan_host host;
	int budget;
	int replicates;		/* processes per point (0: 1); "first" points run once */
	const struct experiment *const *exps;
	struct preset *presets;	/* one per exps[] */
	int nexps;
	struct plan_point *pts;
	int n;
	char *threads, *callers;	/* host.threads/callers once thinned */
	double unscaled, total;
	char fit[256];		/* "-" or what fitting did */
};

/* "1-3,8" into its counts (malloc'ed, *n of them); NULL when empty. */
/* Processes point i runs in: 1 for a first point. */
int plan_point_processes(const struct plan *p, int i);
int *plan_counts(const char *list, int *n);
/* 0 when list is counts from 1 to most (N or N-M with N <= M), else -1. */
int plan_counts_check(const char *list, int most);
/* A duration "300", "20m", "1.5h" in whole seconds, or -1 outside 10 s..100 days. */
int plan_budget_parse(const char *s);
/* v as printf %g writes it, read back: what a printed option says. */
double plan_g(double v);

/* Predicted seconds of point i with the current presets. */
double plan_point_s(const struct plan *p, int i);
double plan_total(const struct plan *p);
/*
 * Fit the plan into p->budget: scale durations (to each experiment's
 * floor), then cut repeats, then drop the counts that are only powers of
 * two. Sets unscaled, total, fit and every point's s.
 */
void plan_fit(struct plan *p);
/* " --duration D --repeat R", and with ci " --ci-target C --max-repeat M". */
void plan_repeat_options(FILE *f, const struct preset *p, int ci);
/* The options of point i (after the selection), each with a leading space. */
void plan_options(FILE *f, const struct plan *p, int i);
/*
 * The order the sweep runs the points in. Each "first" point once (rep 0),
 * in the plan's order, before the others; then each other point in its K
 * processes, process j in round (j - 1) * R / K + 1 of the plan's R
 * replicates, so that a point's processes are spread over the run's
 * duration, and every round in its own shuffle of the seed (splitmix64,
 * the same order on every host): a slow drift of the host does not read
 * as a difference between mechanisms. A run's tenths are its share of the
 * point's predicted seconds. Returns how many, *out malloc'd.
 */
struct plan_run {
	int i, rep, round;	/* the point, its process (0: a first point), the round */
	long tenths;
	uint64_t key;
};
int plan_runs(const struct plan *p, unsigned long seed, struct plan_run **out);
void plan_free(struct plan *p);

#endif
