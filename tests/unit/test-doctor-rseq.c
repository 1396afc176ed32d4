// SPDX-License-Identifier: MIT
/*
 * doctor rseq-restart's judgement from made-up tallies: the excess over the
 * background, ok, affected (a barrier to all, FLAG_CPU aimed, FLAG_CPU
 * spilling), and cannot tell (too few rounds, a busy host, a partial rate).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "doctor.h"
#include "tap.h"

static struct rseq_tally tl(long n, long aborted)
{
	struct rseq_tally t = { n, aborted };

	return t;
}

/* A target whose control aborted bg of 100 and whose barriers abort all/100. */
static struct rseq_target_tally tgt(int cpu, long bg, long all, long aimed, long other)
{
	struct rseq_target_tally t = { cpu, tl(100, bg), tl(100, all), tl(40, aimed), tl(80, other) };

	return t;
}

int main(void)
{
	struct rseq_target_tally t[3];
	char why[256];
	double low;
	int r;

	plan(17);
	ok(doctor_rseq_excess(tl(200, 200), tl(100, 0)) == 1, "every barrier aborted, no background: 1");
	ok(fabs(doctor_rseq_excess(tl(100, 100), tl(100, 30)) - 1) < 1e-12,
	   "every barrier aborted over a background of 0.3: still 1 (not 0.7)");
	ok(fabs(doctor_rseq_excess(tl(100, 30), tl(100, 30))) < 1e-12, "no more than the background: 0");
	ok(isnan(doctor_rseq_excess(tl(0, 0), tl(100, 0))) && isnan(doctor_rseq_excess(tl(10, 5), tl(10, 10))),
	   "no rounds, or a control that always aborted: NAN");

	t[0] = tgt(1, 2, 100, 40, 3);
	t[1] = tgt(2, 0, 99, 40, 0);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_OK && strstr(why, "only the CPU aimed at"), "ok with FLAG_CPU honoured (%s)", why);
	ok(fabs(low - 0.99) < 1e-9, "the measure is the lowest target's (%.3f)", low);
	r = doctor_rseq_judge(t, 2, -1, &low, why, sizeof(why));
	ok(r == RES_OK && strstr(why, "FLAG_CPU not offered"), "ok, FLAG_CPU refused: said (%s)", why);

	t[1] = tgt(2, 1, 2, 40, 0);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_AFFECTED && strstr(why, "CPU 2") && low < 0.1,
	   "a target barely above background: affected, named (%s)", why);

	t[1] = tgt(2, 0, 100, 1, 0);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_AFFECTED && strstr(why, "FLAG_CPU aimed at CPU 2"), "FLAG_CPU aimed missed: affected (%s)", why);
	r = doctor_rseq_judge(t, 2, 0, &low, why, sizeof(why));
	ok(r == RES_OK, "the same without FLAG_CPU measured: ok (%s)", why);

	t[1] = tgt(2, 0, 100, 40, 80);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_AFFECTED && strstr(why, "not honoured"), "FLAG_CPU restarting untargeted CPUs: affected (%s)", why);

	t[1] = tgt(2, 0, 100, 40, 0);
	t[1].ctl.n = 5;
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_CANNOT_TELL && strstr(why, "too few rounds"), "a target seldom observed: cannot tell (%s)", why);
	t[0] = tgt(1, 0, 0, 0, 0);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_AFFECTED, "a proven miss on another target outweighs it (%s)", why);

	t[0] = tgt(1, 92, 100, 40, 74);
	t[1] = tgt(2, 0, 100, 40, 0);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_CANNOT_TELL && strstr(why, "too busy"), "a control aborting 0.92 with 100 barriers: cannot tell (%s)", why);
	t[0].all = tl(200, 200);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_OK && low == 1, "the same with 200 barriers (16 informative): ok, 1 (%s)", why);

	t[0] = tgt(1, 0, 70, 40, 0);
	r = doctor_rseq_judge(t, 2, 1, &low, why, sizeof(why));
	ok(r == RES_CANNOT_TELL && strstr(why, "only 0.70"), "0.7 per barrier: cannot tell (%s)", why);

	r = doctor_rseq_judge(t, 0, 1, &low, why, sizeof(why));
	ok(r == RES_CANNOT_TELL && isnan(low), "no targets: cannot tell (%s)", why);
	return done_testing();
}
