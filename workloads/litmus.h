/* SPDX-License-Identifier: MIT */
/*
 * The store-buffering litmus test: does a barrier pairing forbid
 * r1 = r2 = 0? Thread A: x = 1; A's barrier; r1 = y. Thread B: y = 1; B's
 * barrier; r2 = x. On x86 a store may pass a later load (the store buffer),
 * so with no barrier both loads can read 0; a correct heavy barrier on A
 * paired with a compiler barrier on B must make that outcome impossible.
 */
#ifndef MBBENCH_LITMUS_H
#define MBBENCH_LITMUS_H

#include <stddef.h>
#include <stdint.h>

#include "mech.h"

enum litmus_side { LS_COMPILER, LS_FENCE, LS_MECH };

struct litmus_pairing {
	const char *name;
	enum litmus_side a, b;
	const struct mechanism *mech;	/* A's barrier when a == LS_MECH */
	int forbidden;			/* r1 = r2 = 0 must not be seen */
};

/*
 * Every pairing litmus offers, in order: the controls and the fences, then
 * each mechanism that is not fence-like (a heavy barrier) on side A with a
 * compiler barrier on B. out has room for LITMUS_MAX_PAIRINGS; returns the
 * count.
 */
#define LITMUS_NFIXED 3
#define LITMUS_MAX_PAIRINGS (LITMUS_NFIXED + nr_mechanisms)
size_t litmus_pairings(struct litmus_pairing *out);
/* A mechanism litmus pairs on side A: one that is not fence-like. */
int litmus_heavy(const struct mechanism *m);
/* "compiler", "fence" or the mechanism's name. */
const char *litmus_side_name(enum litmus_side s, const struct mechanism *m);

struct litmus_counts {
	uint64_t trials;
	uint64_t r[4];		/* index r1 * 2 + r2: r[0] is r1 = r2 = 0 */
	uint64_t ns;
	int err;		/* -errno of a failing barrier */
};

/*
 * Run trials on cpu_a / cpu_b until `trials` are done (when non-zero) or
 * duration_s has passed. The mechanism is already probed and set up.
 * Returns 0 or -1 with reason.
 */
int litmus_run(const struct litmus_pairing *p, int cpu_a, int cpu_b,
	       int (*bind)(void *arg, int cpu), void *bind_arg, uint64_t trials,
	       double duration_s, struct litmus_counts *out, char *reason,
	       size_t len);

#endif
