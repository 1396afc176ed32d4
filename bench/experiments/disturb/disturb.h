/* SPDX-License-Identifier: MIT */
/*
 * The parts of the disturb experiment, called one way: exp-disturb.c (the
 * options, the columns and main) runs each round with disturb-round.c (our
 * own victims) or disturb-tool.c (a real rt-tests tool); both write their
 * rows with disturb-rows.c, which calls neither. Here: the options' state,
 * one run's context, and those files' functions.
 */
#ifndef MBBENCH_DISTURB_H
#define MBBENCH_DISTURB_H

#include <stdint.h>
#include <sys/types.h>

#include "disturb-plan.h"
#include "experiment.h"
#include "ipicount.h"
#include "results.h"

struct dstate {
	double rate;		/* per second; 0 = max */
	int caller_cpu;		/* -1 = first CPU of the compact placement */
	int in_turn;
	enum ipi_source src;
	int rt_prio;
	const char *roles;
	const char *victim_cmd;
};

/* What one phase of one round saw. */
/* Our own victims' phases run in this many slices (CIs from their spread). */
#define DISTURB_NSLICE 5

struct phase_data {
	struct ipisnap a, b;
	double elapsed_s;
	struct measure me;
	unsigned long *acks;	/* per self thread, during the phase */
	double *oncpu;		/* per slot of the round: fraction of the phase it ran */
	int nsl;		/* slices taken; 0: one piece (a real tool's round) */
	struct ipisnap sl[DISTURB_NSLICE + 1];	/* the counts at the slices' edges */
	double sl_s[DISTURB_NSLICE];
	uint64_t sl_calls[DISTURB_NSLICE];
};

struct run_ctx {
	const struct opts *o;
	struct dstate *d;
	struct table *t;
	struct results *res;
	struct ipicount *ic;
	int ncpus;
	char **tool_argv;
	int tool_argc;
	const char *tool;
	/* The victim's --json and log: files without a name (see exp-disturb.c). */
	int tool_json_fd, tool_log_fd;
};

/* disturb-rows.c: a row, its counts, percentiles and CIs, and phase snapshots. */
int disturb_row(struct run_ctx *c, const struct mechanism *m, int round,
		const char *role, int cpu, const char *phase, const char *victim);
/* Both phases' rows of a slot, skipped with reason. */
void disturb_skip_rows(struct run_ctx *c, const struct mechanism *m, int round,
		       const char *role, int cpu, const char *victim, const char *reason);
void disturb_counter_cells(struct run_ctx *c, int r, int cpu, struct phase_data *pd,
			   struct phase_data *base, int storm);
/* The percentiles in rows, and the slices' percentiles that give their CIs. */
#define DISTURB_NPCT 3
extern const double disturb_pcts[DISTURB_NPCT];
/* samples, percentiles, max; with bp of 2 or more batches, their CIs. */
void disturb_hist_cells(struct table *t, int r, const struct hist *h,
			const struct pct_batches *bp);
void disturb_snap_begin(struct run_ctx *c, struct phase_data *pd, uint64_t *t0);
void disturb_snap_end(struct run_ctx *c, struct phase_data *pd, uint64_t t0);
void disturb_phase_free(struct phase_data *pd);

/*
 * disturb-tool.c. --victim-cmd: split on blanks, find the executable now (not mid-run), and
 * tell oslat (foreign-rt) from cyclictest (foreign-sleep); bad input exits 2.
 */
char **disturb_split_cmd(const char *cmd, int *argc, enum role *role, char **tool);
/* A round of our own victims (disturb-round.c): baseline then storm, rows for every slot. */
void disturb_own_round(struct run_ctx *c, const struct mechanism *m,
		       const struct mechanism *null_mech, int ri, const struct round *rd);
/* The real tool's round (disturb-tool.c): one run of the tool per phase, rows for both. */
void disturb_tool_round(struct run_ctx *c, const struct mechanism *m,
			const struct mechanism *null_mech, int ri, const struct round *rd);

#endif
