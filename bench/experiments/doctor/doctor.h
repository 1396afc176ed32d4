// SPDX-License-Identifier: MIT
/*
 * doctor's probes: what a probe fills in, and the helpers they share
 * (bench/experiments/doctor/doctor-common.c). bench/experiments/doctor/exp-doctor.c runs them; the lazy-mm probe,
 * the longest, is bench/experiments/doctor/doctor-lazy.c (its attempts
 * doctor-lazy-case.c, what the two share doctor-lazy.h); rseq-restart is
 * bench/experiments/doctor/doctor-rseq.c.
 */
#ifndef MBB_DOCTOR_H
#define MBB_DOCTOR_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "hostinfo.h"

enum { RES_OK, RES_AFFECTED, RES_CANNOT_TELL, RES_INFO };

/* One probe's row, filled by its run function. */
#define DOCTOR_EVIDENCE 2048

/*
 * What to do where GLOBAL_EXPEDITED misses lazily held CPUs (doctor's
 * lazy-mm, the verdict, the docs): no registration order avoids it.
 */
#define LAZY_ADVICE                                                                               \
	"no registration order avoids it (a thread that exits after registration, or the main "       \
	"thread's own move before it, leaves a CPU stale): within one process use "                  \
	"MEMBARRIER_CMD_PRIVATE_EXPEDITED, which selects CPUs by the task they run; across processes " \
	"use MEMBARRIER_CMD_GLOBAL (a grace period: milliseconds) or a kernel with the fix"

struct finding {
	int result;
	char reason[256];
	double measure;		/* NaN: none */
	const char *unit;
	char evidence[DOCTOR_EVIDENCE];
	const char *consequence, *workaround, *fix, *reference;
};

/* Appends to a finding's DOCTOR_EVIDENCE-byte text. */
__attribute__((format(printf, 2, 3)))
void doctor_say(char *buf, const char *fmt, ...);
double doctor_now_s(void);
void doctor_sleep_ms(long ms);
/* Pins the calling thread to one CPU: sched_setaffinity's result. */
int doctor_pin_to(int cpu);
/* Idle and iowait time of each CPU from /proc/stat, in USER_HZ ticks. */
int doctor_idle_ticks(uint64_t *out, int ncpus);
/* The same, and each CPU's time in all of user..softirq (total may be NULL). */
int doctor_stat_ticks(uint64_t *idle, uint64_t *total, int ncpus);
/* Two CPUs this process may use, by idle time over 50 ms: b the idlest (the
 * target), a the next (the caller). 0, or -1 with fewer than two. */
int doctor_pick(int *a, int *b, int ncpus);

/*
 * mbbench list --doctor: runs the probes that concern membarrier commands
 * and calls mark() for each that found this host affected, with the
 * commands it concerns (exp-doctor.c).
 */
void doctor_affected(hwloc_topology_t topo,
		     void (*mark)(const char *probe, int cmds, void *arg), void *arg);

/* The membarrier commands a probe's `affected` concerns; -1: no such probe. */
int doctor_probe_cmds(const char *name);

/* lazy-mm GLOBAL_EXPEDITED (doctor-lazy.c); --budget, 0 for the automatic one. */
extern int doctor_lazy_budget_s;
void probe_lazy(struct finding *f, struct hostinfo *h);
/* doctor-facts.c: does the mprotect trick interrupt a running thread here;
 * and glibc's and the kernel's rseq facts, for the rseq probe's evidence. */
void probe_mprotect(struct finding *f, struct hostinfo *h);
/* Its fix and reference for f->result, naming only the cause h's
 * remote_tlb_flush saw, or "cause not identified". */
void doctor_mprotect_fix(struct finding *f, const struct hostinfo *h);
void doctor_rseq_facts(struct finding *f);

/*
 * rseq-restart (doctor-rseq.c): does PRIVATE_EXPEDITED_RSEQ abort an rseq
 * critical section running on each target CPU, and with FLAG_CPU only on
 * the CPU aimed at. What it counts, per target: rounds in which the target
 * was observed inside an instance of its critical section, and how many of
 * those instances aborted, without a barrier (ctl), with one to all (all),
 * with FLAG_CPU aimed at its CPU (aimed) or at another (other).
 */
void probe_rseq_restart(struct finding *f, struct hostinfo *h);
struct rseq_tally {
	long n, aborted;
};
struct rseq_target_tally {
	int cpu;
	struct rseq_tally ctl, all, aimed, other;
};
/* Judged only with this many rounds of a kind. */
#define RSEQ_MIN_ROUNDS 10
/*
 * Too busy a host to tell: a control aborting more often than this, or
 * fewer barrier rounds than RSEQ_MIN_INFORMATIVE expected to find the
 * critical section still running without the barrier (n * (1 - p0)).
 */
#define RSEQ_MAX_BACKGROUND 0.95
#define RSEQ_MIN_INFORMATIVE 10
/* Aborts per barrier beyond the background: at least RSEQ_RESTARTS is the
 * promise kept, below RSEQ_MISSED broken, between them cannot tell. */
#define RSEQ_RESTARTS 0.9
#define RSEQ_MISSED 0.5
/*
 * The share of the instances the background left running that the barrier
 * aborted, (p - p0) / (1 - p0) with p and p0 the aborted shares with and
 * without it: 1 when every barrier aborted, 0 when none did beyond the
 * background. NAN without rounds, or when the control always aborted.
 */
double doctor_rseq_excess(struct rseq_tally with, struct rseq_tally ctl);
/*
 * The result (RES_*) from n targets' tallies, with the reason; flag_cpu: 1
 * measured, 0 not, -1 refused. *lowest: the lowest target's excess with a
 * barrier to all (NAN when none was judged).
 */
int doctor_rseq_judge(const struct rseq_target_tally *t, int n, int flag_cpu, double *lowest,
		      char *reason, size_t len);

#endif
