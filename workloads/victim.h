/* SPDX-License-Identifier: MIT */
/*
 * What runs on the victim CPUs of the disturb experiment. Threads of the
 * caller's own process (self-*) are harness team threads; the foreign-*
 * victims are child processes, each pinned to its CPU, in one process group,
 * killed with the parent (PR_SET_PDEATHSIG), bounded by alarm() and, at RT
 * priority, by RLIMIT_RTTIME: a victim never outlives its run.
 */
#ifndef MBBENCH_VICTIM_H
#define MBBENCH_VICTIM_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "stats.h"

enum role {
	ROLE_IDLE,
	ROLE_SELF_SPIN,
	ROLE_SELF_SLEEP,
	ROLE_FOREIGN_SPIN,
	ROLE_FOREIGN_RT,
	ROLE_FOREIGN_SLEEP,
	NR_ROLES
};

/* Phases the caller announces through the shared page. */
enum { VPH_WARMUP, VPH_BASELINE, VPH_STORM, VPH_STOP, NR_VPH };

const char *role_name(enum role r);
int role_parse(const char *s, enum role *out);
int role_is_foreign(enum role r);
/* Comma-separated list of every role, for error messages. */
const char *role_names(void);

/* Period of the foreign-sleep victim (cyclictest's default -i 1000). */
#define VICTIM_SLEEP_PERIOD_NS 1000000ull

/* One victim's shared page: the phase, and a histogram per measured phase. */
struct victim_shared {
	_Atomic int phase;
	char policy[16];	/* "SCHED_FIFO/5", "SCHED_OTHER" */
	struct hist h[NR_VPH];	/* b points into buckets, same in both processes */
	uint64_t buckets[NR_VPH][HIST_BUCKETS];
};

struct victim {
	enum role role;
	int cpu;
	pid_t pid;
	struct victim_shared *sh;
};

struct victim_group {
	pid_t pgid;		/* 0 until the first child */
	int nv;
	struct victim *v;
};

/* A shared page with empty histograms. NULL with errno on failure. */
struct victim_shared *victim_shared_new(void);
void victim_shared_free(struct victim_shared *sh);

/*
 * Start a foreign victim (foreign-spin, -rt, -sleep) on cpu: it is pinned,
 * at rt_prio for foreign-rt (and foreign-sleep when allowed), and dies after
 * bound_s seconds whatever happens. Returns 0 once it runs, or -1 with a
 * reason (e.g. no privilege for SCHED_FIFO: the same path for everybody).
 */
int victim_start(struct victim_group *g, enum role role, int cpu, int rt_prio,
		 double bound_s, char *reason, size_t len);
/*
 * Start argv (a real tool) pinned to cpu in the same process group, with the
 * same bounds, stdout and stderr to log_path. Returns its pid or -1.
 */
pid_t victim_exec(struct victim_group *g, char *const argv[], int cpu,
		  double bound_s, const char *log_path, char *reason, size_t len);
void victim_phase(struct victim_group *g, int phase);
/* CPU time a process has run, ns (/proc/PID/schedstat), 0 if unknown. */
uint64_t victim_runtime_ns(pid_t pid);
/* Stop every victim: ask, wait up to a second, then SIGKILL the group. */
void victim_stop_all(struct victim_group *g);
/* Wait for one pid of the group, at most timeout_s; then SIGKILL it. */
int victim_wait(pid_t pid, double timeout_s);

/*
 * The parent's watchdog: a thread that SIGKILLs the group's process group
 * when the run overstays deadline_s. watchdog_cancel() before the group ends.
 * NULL with err when its thread cannot be started.
 */
struct watchdog;
struct watchdog *watchdog_arm(struct victim_group *g, double deadline_s, char *err, size_t len);
void watchdog_cancel(struct watchdog *w);

#endif
