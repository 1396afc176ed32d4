/* SPDX-License-Identifier: MIT */
/*
 * What a barrier did during one repeat, beside what it cost. A barrier whose
 * target thread is off its CPU sends no IPI and costs a syscall (~0.3 us);
 * one that interrupts it costs 3-20 us (docs/FINDINGS.md, "What a barrier
 * did"). So every repeat records the IPIs the targets' CPUs received per
 * barrier (the CAL and RES rows of /proc/interrupts), the share of the
 * repeat each target thread was on its CPU (its schedstat run time) and the
 * host's steal (/proc/stat), and work_degraded() says whether the repeat
 * measured what its point says: spinning targets on their CPUs, interrupted
 * by every barrier of a command that interrupts them.
 */
#ifndef MBBENCH_WORKDONE_H
#define MBBENCH_WORKDONE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct team;

/* One repeat's work; NAN where this host cannot tell. */
struct work {
	double ipis_per_barrier;	/* received on the targets' CPUs, per barrier */
	double oncpu_share;		/* the least of the spinning targets' */
	double wait_share;		/* that target: runnable, another task had its CPU */
	double steal_share;		/* the host ran something else on our vCPUs */
	double floor_ns;		/* the delivery floor beside it (workdone_floor) */
};

/* A point's expectations and the marks of the repeat under way. */
struct workdone {
	const pid_t *tids;	/* where the threads wrote their tids (read at begin) */
	int ntargets;		/* distinct CPUs of the team's threads besides the caller's */
	int *cpus;
	int ncpus;		/* /proc/interrupts columns read */
	int judged;		/* 0: oversubscribed, marked but never degraded */
	int spinners;		/* team threads that spin: each should stay on its CPU */
	double expect_ipis;	/* per barrier: > 0 each, 0 none, < 0 not judged */
	int floor;		/* the floor is measured beside each repeat */
	/* marks at workdone_begin */
	uint64_t t0, steal0, total0;
	uint64_t *irq0, *irq1, *run0, *wait0;
	pid_t *tid;		/* the tids read at begin */
	int *idx;		/* team: the spinners' indices in tids; NULL: tids[0..spinners) */
	int have_irq, have_steal, have_run;
	int coarse;		/* a run time read from schedstat: tick precision */
};

/* For the team t issuing barriers of its mechanism (t->cfg.mech). */
void workdone_init(struct workdone *w, const struct team *t);
/*
 * For a point that runs its own threads (contend, rcu): the distinct CPUs
 * its barriers should interrupt (none of the issuers' own), the tids of its
 * nspin spinning targets (filled in by the threads before workdone_begin;
 * a 0 tid means not known), whether it is judged (0: oversubscribed) and
 * the IPIs due per barrier over all targets (< 0: counted, not judged).
 */
void workdone_init_cpus(struct workdone *w, const int *cpus, int ntargets, const pid_t *tids,
			int nspin, int judged, double expect_ipis);
void workdone_free(struct workdone *w);
void workdone_begin(struct workdone *w);
void workdone_end(struct workdone *w, uint64_t barriers, struct work *out);
/* 1 with why ("a target thread was on its CPU 62% of the repeat: another
 * task had it 38%") when the repeat did not measure the point, else 0. */
int work_degraded(const struct workdone *w, const struct work *k, char *why, size_t len);

/*
 * The IPI delivery floor: the cost of one targeted barrier
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ with MEMBARRIER_CMD_FLAG_CPU) to
 * the first target's CPU, the least kernel software around one IPI round
 * trip, measured beside every repeat so that a cost can be read net of it
 * when the hypervisor moves the delivery. floor_prepare() registers for it
 * once, before any team thread exists (registering later waits for a
 * grace period): 0, or -1 with why. workdone_floor() issues barriers for
 * about duration_s and returns ns per barrier, or NAN where the point has
 * no floor or the floor's own IPIs were not all sent.
 */
int floor_prepare(char *why, size_t len);
double workdone_floor(struct workdone *w, double duration_s);

/*
 * A thread's ns on its CPU and ns runnable but waiting (schedstat): 0, 1
 * when the run time is only as of the scheduler's last tick (a thread of
 * another process), or -1.
 */
int task_schedstat(pid_t tid, uint64_t *run_ns, uint64_t *wait_ns);

/*
 * Per-repeat work of a point, kept by the loop that takes its repeats: the
 * good repeats' sums (for the row's means), the degraded ones' count and
 * the reason most of them gave.
 */
struct worksum {
	int good, degraded;
	double ipis, oncpu, steal, floor;	/* sums over the good repeats */
	int n_ipis, n_oncpu, n_steal, n_floor;
	char why[200];			/* the first degraded repeat's reason */
};
void worksum_reset(struct worksum *s);
void worksum_add(struct worksum *s, const struct work *k, int degraded, const char *why);

/*
 * The attempts a point may take to get `want` good repeats: the planned
 * repeats, then as many again (at least 3 more) for the degraded ones.
 */
int work_attempts(int want);

#endif
