// SPDX-License-Identifier: MIT
/*
 * doctor's probes: what a probe fills in, and the helpers they share
 * (bench/experiments/doctor/doctor-common.c). bench/experiments/doctor/exp-doctor.c runs them; the lazy-mm probe,
 * the longest, is bench/experiments/doctor/doctor-lazy.c.
 */
#ifndef MBB_DOCTOR_H
#define MBB_DOCTOR_H

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
void doctor_rseq_facts(struct finding *f);

#endif
