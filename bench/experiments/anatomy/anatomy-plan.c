// SPDX-License-Identifier: MIT
/*
 * anatomy's part of the sweep (the `struct experiment` in exp-anatomy.c
 * points here): which mechanisms, which T, the options and the predicted
 * seconds of a point. Calibrated by timing `mbbench anatomy` points on a
 * quiet 2-vCPU guest: 0.37 s a process and T before the barriers, then
 * 68 us a barrier (untraced, traced, matched) for a membarrier command and
 * 146 us for mprotect's (two syscalls and a TLB flush); 0.45 s a quick
 * point at T=2.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "anatomy.h"
#include "experiment.h"
#include "mech.h"

/*
 * Every IPI mechanism whose barrier is a syscall: the membarrier commands
 * (seed-v1/v5 on the patched kernel too) and mprotect. signal's barrier is
 * tgkill and a wait for acks in user space: nothing to decompose.
 */
const struct mech_pick anatomy_picks[ANATOMY_NPICKS] = {
	{ .all = MC_IPI, .cmd = PICK_SOME_CMD },
	{ .all = MC_IPI, .none = MC_REGISTER, .cmd = PICK_NO_CMD },
};

/*
 * The preset's T, or one caller and 1, 2, 3, 4, 8, 16, 32, 64 targets as
 * far as the host has CPUs (at least T=2), into buf.
 */
static void anatomy_threads(const struct preset *p, const struct plan_host *h,
			   char *buf, size_t len)
{
	int n = 0;

	if (p->threads) {
		snprintf(buf, len, "%s", p->threads);
		return;
	}
	buf[0] = '\0';
	for (int k = 1; k <= ANA_MAX_TARGETS && (k < h->npus || !n); k = k < 4 ? k + 1 : 2 * k)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", n++ ? "," : "", k + 1);
}

/*
 * A process's start, its clock check and kallsyms, then per T: the
 * tracepoints on T CPUs, the team and its warm-up, and every barrier twice
 * (untraced, traced), its events decoded and matched.
 */
double anatomy_cost(const struct preset *p, const struct plan_host *h,
		    const struct mechanism *m)
{
	char buf[64];
	int n, *t;
	double s = 0.15, us = m && !m->membarrier_cmd ? 70 : 32;

	anatomy_threads(p, h, buf, sizeof(buf));
	t = plan_counts(buf, &n);
	for (int i = 0; i < n; i++)
		s += 0.2 + 0.005 * t[i] + 2e-6 * p->barriers * (us + 3 * (t[i] - 1));
	free(t);
	return s;
}

void anatomy_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	char buf[64];

	anatomy_threads(p, h, buf, sizeof(buf));
	fprintf(f, " --threads %s --placement %s --barriers %d --repeat %d", buf, h->placement,
		p->barriers, p->repeat);
}
