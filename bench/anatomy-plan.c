// SPDX-License-Identifier: MIT
/*
 * anatomy's part of the sweep (the `struct experiment` in exp-anatomy.c
 * points here): which mechanisms, which T, the options and the predicted
 * seconds of a point. Calibrated by timing `mbbench anatomy` points on a
 * quiet 2-vCPU KVM guest (0.3 s a membarrier point at T=2 with 1000
 * barriers; mprotect's barrier is two syscalls and a TLB flush).
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
 * far as the host has CPUs (at least T=2). The count of T written to buf.
 */
static int anatomy_threads(const struct preset *p, const struct plan_host *h,
			   char *buf, size_t len)
{
	int n = 0;

	if (p->threads) {
		snprintf(buf, len, "%s", p->threads);
		return 1;
	}
	buf[0] = '\0';
	for (int k = 1; k <= ANA_MAX_TARGETS && (k < h->npus || !n); k = k < 4 ? k + 1 : 2 * k)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", n++ ? "," : "", k + 1);
	return n;
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
	double s = 0.15, us = m && !m->membarrier_cmd ? 60 : 15;

	anatomy_threads(p, h, buf, sizeof(buf));
	t = plan_counts(buf, &n);
	for (int i = 0; i < n; i++)
		s += 0.1 + 0.005 * t[i] + 2e-6 * p->barriers * (us + 3 * (t[i] - 1));
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
