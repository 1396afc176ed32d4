/* SPDX-License-Identifier: MIT */
/*
 * anatomy's tracepoints through perf_event_open: per-CPU ring buffers of
 * samples (time on CLOCK_MONOTONIC, CPU, task, raw record) decoded into
 * struct ana_event with the offsets of each tracepoint's format file.
 */
#ifndef MBBENCH_ANATOMY_TRACE_H
#define MBBENCH_ANATOMY_TRACE_H

#include <sys/types.h>

#include "anatomy.h"

/*
 * The tracepoint groups: a group is usable when all of its are there.
 * ANA_G_RAWSYS (raw_syscalls:sys_enter/exit, filtered on the syscall
 * number) stands in for ANA_G_SYSCALL on a kernel without
 * CONFIG_FTRACE_SYSCALLS; only one of the two is opened.
 */
enum { ANA_G_SYSCALL, ANA_G_CSD, ANA_G_IPI, ANA_G_RAWSYS, ANA_NGROUPS };

/* Pages of one CPU's ring buffer (a power of two): 1 MiB with 4 KiB pages. */
#define ANA_RING_PAGES 256
#define ANA_NTPS 11

struct ana_tp {
	long id;		/* -1: not usable */
	int type_off, type_size;	/* common_type */
	int target_off, target_size, func_off, csd_off;	/* -1: none */
	int mask;		/* target is a __data_loc cpumask */
};

struct ana_trace {
	struct ana_tp tp[ANA_NTPS];
	char why[ANA_NGROUPS][256];	/* why a group is missing, or "" */
	int ncpus, *cpus;
	void **ring;
	size_t ring_len;
	int *fds, nfds;
	struct ana_event *ev;	/* decoded so far */
	size_t nev, cap;
	uint64_t lost;		/* PERF_RECORD_LOST: records the kernel dropped */
	uint64_t undecoded;	/* samples of no known tracepoint */
	int raw_syscalls;	/* the syscall windows come from raw_syscalls:* */
};

/* The format files only: 0 when the syscall tracepoints (or raw_syscalls:*)
 * are there, else -1 with tr->why[ANA_G_SYSCALL]; tr->why of the other
 * groups says what lacks. */
int ana_trace_probe(struct ana_trace *tr);
/*
 * Open every usable tracepoint on the CPUs given, disabled, the caller's
 * own (syscalls, queues, IPIs) filtered on its tid in the kernel: 0, or -1
 * with the reason (tracefs, perf_event_paranoid, privileges).
 */
int ana_trace_open(struct ana_trace *tr, const int *cpus, int ncpus, int caller,
		   char *why, size_t len);
void ana_trace_enable(struct ana_trace *tr, int on);
/* Append what the ring buffers hold to tr->ev. */
void ana_trace_drain(struct ana_trace *tr);
void ana_trace_close(struct ana_trace *tr);

/*
 * The cross-CPU clock check: `rounds` ping-pongs between threads pinned to
 * cpu_a and cpu_b, stamped with CLOCK_MONOTONIC (the clock the samples
 * carry). offset_ns is b's reading minus the midpoint of a's two readings
 * in the shortest round trip, so |offset| <= rtt_ns / 2 when the clocks
 * agree; violations counts rounds where b's reading fell outside a's.
 */
struct ana_skew {
	double offset_ns, rtt_ns;
	int rounds, violations;
};
int ana_clock_skew(int cpu_a, int cpu_b, int rounds, struct ana_skew *out, char *why, size_t len);

/*
 * --contenders (anatomy-contend.c): `others` processes of the mechanism,
 * started idle before the team; ana_contended releases them and traces
 * nb batches with them running, adding the `*-contended` phase row and a
 * note; ana_contenders_stop kills and reaps them (they also die with
 * mbbench: PR_SET_PDEATHSIG).
 */
struct ana_shared;
struct ana_contenders {
	int n;
	pid_t *pid;
	struct ana_shared *sh;
};
struct mechanism;
struct table;
struct results;
struct ana_contend_point {
	const struct mechanism *m;
	int T, nb, barriers, csd;
	struct ana_trace *tr;
	const struct ana_cfg *cfg;
	struct table *pt;	/* anatomy-phases */
	struct results *res;
	double alone_p50;	/* the phase traced alone */
};
int ana_contenders_start(struct ana_contenders *c, const struct mechanism *m, int others,
			 char *why, size_t len);
int ana_contended(struct ana_contenders *c, const struct ana_contend_point *p,
		  char *why, size_t len);
void ana_contenders_stop(struct ana_contenders *c);

#endif
