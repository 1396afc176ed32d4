/* SPDX-License-Identifier: MIT */
/*
 * The anatomy of a barrier: the kernel's own tracepoints around one barrier
 * call, matched into phases. anatomy-match.c is pure (an event stream in,
 * barriers and phases out; tests/unit/test-anatomy.c feeds it synthetic streams
 * and a recorded one); anatomy-trace.c opens the tracepoints with
 * perf_event_open, reads their format files and decodes the samples of the
 * per-CPU ring buffers into events; exp-anatomy.c is the experiment.
 */
#ifndef MBBENCH_ANATOMY_H
#define MBBENCH_ANATOMY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"

/* What an event is (the tracepoints it comes from). */
enum ana_kind {
	ANA_ENTER,	/* syscalls:sys_enter_membarrier or _mprotect */
	ANA_EXIT,	/* syscalls:sys_exit_membarrier or _mprotect */
	ANA_QUEUE,	/* csd:csd_queue_cpu: sender side, target CPU, func, csd */
	ANA_HENTRY,	/* csd:csd_function_entry: on the target, func, csd */
	ANA_HEXIT,	/* csd:csd_function_exit */
	ANA_IPI,	/* ipi:ipi_send_cpu or ipi_send_cpumask (target: first CPU) */
	ANA_NKINDS
};

struct ana_event {
	uint64_t t;	/* ns; every CPU's events on one clock (CLOCK_MONOTONIC) */
	int cpu;	/* where it was recorded */
	int tid;	/* the task running there (common_pid) */
	enum ana_kind kind;
	int target;	/* ANA_QUEUE, ANA_IPI: the target CPU; else -1 */
	uint64_t csd;	/* ANA_QUEUE, ANA_HENTRY, ANA_HEXIT */
	uint64_t func;	/* the same three */
};

#define ANA_MAX_TARGETS 64

struct ana_target {
	int cpu;
	uint64_t csd, func;
	uint64_t queue, entry, exit;	/* 0: not seen */
};

/* What became of one syscall window of the caller. */
enum ana_status {
	ANA_COMPLETE,		/* every phase of every target */
	ANA_NO_CALL,		/* no cross-CPU call queued (nothing sent) */
	ANA_NO_HANDLER,		/* a queued call whose handler entry is missing */
	ANA_NO_HANDLER_EXIT,	/* a handler entry without its exit */
	ANA_NSTATUS
};

struct ana_barrier {
	uint64_t enter, exit;
	uint64_t first_queue, first_ipi;	/* 0: none */
	int ntargets;
	struct ana_target tgt[ANA_MAX_TARGETS];
	enum ana_status status;
};

struct ana_cfg {
	int caller;		/* tid whose syscalls are the barriers */
	const uint64_t *funcs;	/* the callbacks that count; nfuncs 0: any */
	int nfuncs;
	uint64_t tol_ns;	/* clock tolerance: a handler may seem this early */
	int no_csd;		/* csd tracepoints absent: windows with an IPI are complete */
};

struct ana_result {
	struct ana_barrier *b;	/* windows, in time order */
	size_t n;
	size_t status[ANA_NSTATUS];
	size_t unclosed;	/* an entry without its exit (dropped) */
	size_t orphan_exits;	/* an exit without its entry (dropped) */
	size_t foreign;		/* events of others: other tasks, funcs, outside windows */
	size_t extra_targets;	/* queued beyond ANA_MAX_TARGETS (not matched) */
	size_t inversions;	/* handler entries earlier than their queue (within tol) */
};

/*
 * Match an event stream (any order: it is sorted by time first) into the
 * caller's barriers. A queue of the caller inside one of its syscall windows
 * is paired, by target CPU and csd pointer, with the first unclaimed handler
 * entry there no earlier than the queue (less tol_ns) and no later than the
 * window's end (plus tol_ns); the exit is the next one with that csd on that
 * CPU. Everything else is counted, never dropped silently.
 */
void ana_match(const struct ana_event *ev, size_t n, const struct ana_cfg *cfg,
	       struct ana_result *r);
void ana_result_free(struct ana_result *r);

/* The phases of a barrier, in ns. */
enum ana_phase {
	PH_SETUP,	/* syscall entry -> first queue: mutex, mask, setup */
	PH_SEND,	/* first queue -> first IPI sent */
	PH_DELIVERY,	/* queue -> handler entry, per target */
	PH_HANDLER,	/* handler entry -> exit, per target */
	PH_WAIT,	/* last handler exit -> syscall exit: wait and return */
	PH_TOTAL,	/* syscall entry -> exit */
	PH_TO_IPI,	/* without csd: syscall entry -> first IPI sent */
	PH_AFTER_IPI,	/* without csd: first IPI sent -> syscall exit */
	PH_N
};
const char *ana_phase_name(enum ana_phase p);
/* Per target (delivery, handler) or one per barrier. */
int ana_phase_per_target(enum ana_phase p);
/*
 * The value of phase p of barrier b (target index k for the per-target
 * ones): 0 with *v set, or -1 when the barrier lacks it. A phase that came
 * out negative (clocks within tol) is 0.
 */
int ana_phase_value(const struct ana_barrier *b, enum ana_phase p, int k, double *v);

const char *ana_kind_name(enum ana_kind k);
const char *ana_status_name(enum ana_status s);
/* One event as a line of text and back (the recorded captures). */
void ana_event_print(FILE *f, const struct ana_event *e);
int ana_event_parse(const char *line, struct ana_event *e);

/*
 * A tracepoint's format file (tracefs events/SYS/NAME/format): the offset
 * and size of field `name`. 0, or -1 when the field is absent.
 */
int ana_format_field(const char *text, const char *name, int *offset, int *size);
/* Its ID line; -1 when absent. */
long ana_format_id(const char *text);

/* The sweep's part (anatomy-plan.c): picks, predicted seconds, options. */
#define ANATOMY_NPICKS 2
extern const struct mech_pick anatomy_picks[ANATOMY_NPICKS];
double anatomy_cost(const struct preset *p, const struct plan_host *h,
		    const struct mechanism *m);
void anatomy_options(FILE *f, const struct preset *p, const struct plan_host *h);

/* anatomy's tables (anatomy-cols.c). */
struct table_schema;
extern const struct table_schema anatomy_table, anatomy_phases_table;

#endif
