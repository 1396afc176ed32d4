/* SPDX-License-Identifier: MIT */
/* Small helpers every part of mbbench uses: errors, parsing, clocks, files. */
#ifndef MBBENCH_UTIL_H
#define MBBENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define EXIT_USAGE 2

extern const char *progname;

/*
 * The two ways out, named as in bench/common.sh, kernel-patch/common.sh and
 * analysis/mbguard.py. die: bad input or a missing prerequisite, one line
 * on stderr, exit 2.
 */
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
/* fail: something that should have worked failed (the host, not the input): one line, exit 1. */
__attribute__((noreturn, format(printf, 1, 2))) void fail(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warnx_(const char *fmt, ...);

/*
 * Output that never reached stdout is an error: at exit (registered once,
 * in main) a failed flush or close of stdout prints one line and exits 1;
 * fail_stdout() checks now, before anything is committed.
 */
void check_stdout_at_exit(void);
int stdout_failed(void);
void fail_stdout(void);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/*
 * Parsers return 0 on success and -1 on garbage or out-of-range values; the
 * caller names the option in its error.
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_seconds(const char *s, double min, double max, double *out);
/* "1,2,4" or "1-8" or a mix; values within [min,max]; sorted as given. */
int parse_int_list(const char *s, int min, int max, int **out, int *n);
/*
 * The same, for a list of points: a value given twice ("1,1", "2,1-2") is
 * kept once, where it first appears (a point is measured once).
 */
int parse_int_set(const char *s, int min, int max, int **out, int *n);

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ISO 8601 UTC of the wall clock, e.g. 2026-12-03T08:00:00Z. */
void utc_now(char *buf, size_t len);

/*
 * Files are written under a temporary name and renamed into place, so an
 * interrupted run leaves only whole files. The rename never replaces what
 * is not a regular file, and a regular file only with `replace` (--force);
 * otherwise it fails with EEXIST.
 */
struct atomic_file {
	FILE *f;
	char *path;
	char *tmp;
	int replace;
};
int atomic_open(struct atomic_file *af, const char *path, int replace);
int atomic_commit(struct atomic_file *af);	/* close + rename */
/* The two halves, for a set of files that is committed all or none. */
int atomic_close(struct atomic_file *af);	/* flush, fsync, close */
int atomic_rename(struct atomic_file *af);
void atomic_abort(struct atomic_file *af);	/* close + unlink */

char *path_join(const char *dir, const char *name);

/*
 * Test-only fault points (docs/HACKING.md, "Fault points"): nonzero when
 * the environment's MBBENCH_FAULT names this one. "spawn-fail": the last
 * pinned thread's creation fails (topology/pinned.c); "late-start": the
 * last thread of a run passes its start gate and then waits until the run
 * has been told to stop (rcu, contend, litmus): what a descheduled thread
 * of a short run on a busy host does.
 */
int fault_point(const char *name);
/* With "late-start": the last of n threads (index i) sleeps until *stop. */
void fault_late_start(int i, int n, const _Atomic int *stop);
/*
 * Where path (or its nearest existing parent) is one of the kernel's
 * pseudo-filesystems: "/proc", "/sys", "/dev" (not /dev/shm) or "a sysfs
 * file system" and its kind wherever mounted; NULL for a real one.
 */
const char *pseudo_fs(const char *path);

#endif
