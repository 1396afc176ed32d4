/* SPDX-License-Identifier: MIT */
/*
 * doctor's lazy-mm probe, split at its seam: doctor-lazy-case.c runs one
 * attempt of one case in a fresh process (the threads that take a path into
 * the stale state, the barriers, the counts); doctor-lazy.c decides how many
 * attempts, within what budget, and what they found. What both read is here.
 */
#ifndef MBB_DOCTOR_LAZY_H
#define MBB_DOCTOR_LAZY_H

enum { CASE_CONTROL, CASE_LAZY_SINGLE, CASE_LAZY_MULTI, CASE_LAZY_MAIN, CASE_LAZY_EXIT, NR_CASES };

#define LAZY_CONTROL_ATTEMPTS 4
#define LAZY_ATTEMPTS 8		/* per lazy case */
#define LAZY_OK_ATTEMPTS 4	/* lazy readings of 1 that an ok needs, per case */
#define LAZY_CONTROL_MIN 0.9	/* the control's reading a finding needs */
#define LAZY_BARRIERS 2000
#define LAZY_SEGMENT 20		/* barriers between two readings of the counts */
#define LAZY_LOOP_S 0.1
#define LAZY_BUDGET_S 9.0	/* no attempt starts after this (s), at least ... */
#define LAZY_PACE_ROUNDS 6	/* ... or the time this many attempts of every case take, at the pace measured */
#define LAZY_BUDGET_MAX_S 90.0	/* ... up to this, unless --budget says otherwise */
#define LAZY_ALARM_S 10		/* an attempt is killed after this (s), or 5x the slowest one */
#define LAZY_LOOP_MAX_S 2.0	/* ... or longer, until the head is read, on slow barriers */
#define LAZY_SETTLE_MS 150	/* after opening the counters, before the breaks count */
#define LAZY_WINDOW_MS 100
#define LAZY_GAP_NS 200000	/* the spinner off its CPU this long: another task ran */
#define LAZY_WAIT_NS 50000000	/* how long the caller waits for a stalled spinner */
#define LAZY_MIN_VALID 60	/* barriers a reading needs: its head */
#define LAZY_IDLE_MIN 0.9	/* CPU B idle this share of its time in the lazy window */

/*
 * Only the barriers issued while the spinner ran on B without a break count:
 * once another task of another process has run on B, the kernel has set B's
 * state from that task's mm and the case under test is gone; and a barrier
 * while that task runs rightly skips B. The spinner notes its first break
 * (a gap in its clock reads), and the counts are read every LAZY_SEGMENT
 * barriers, so the segments that ended before that break are the evidence.
 */
struct lazy_res {
	int done;
	int counted;		/* IPIs on CPU B were counted */
	double per_barrier;	/* IPIs per valid barrier on CPU B */
	double head;		/* ... over the first LAZY_MIN_VALID of them */
	double us_per_call;	/* over the valid barriers */
	double idle;		/* share of CPU B's accounted time in the lazy window that was idle; 1 for control */
	long barriers, valid;
	char src[48];
	char error[160];
};


/* Run one attempt of case which in a child, its result in shared (memory the
 * child writes: MAP_SHARED); 0, or -1 when it could not be started. */
int lazy_attempt(int which, int a, int b, int ncpus, struct lazy_res *shared, unsigned alarm_s);

#endif
