// SPDX-License-Identifier: MIT
/*
 * The sweep's plan without a host (plan.c): durations, count lists, and the
 * fit into a budget of a made-up experiment: durations scaled to their
 * floor first, then repeats cut, then the powers of two dropped; and the
 * order the sweep runs the points in.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "plan.h"
#include "tap.h"

/* 1 s a thread count per repeat: the seconds are easy to follow. */
static double toy_cost(const struct preset *p, const struct plan_host *h,
		       const struct mechanism *m)
{
	int n, *t = plan_counts(h->threads, &n);

	(void)m;
	free(t);
	return n * p->repeat * p->duration;
}

static void toy_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	fprintf(f, " --threads %s", h->threads);
	plan_repeat_options(f, p, p->ci_target > 0);
}

static const struct experiment toy = {
	.name = "toy",
	.quick = { .duration = 1, .repeat = 4, .ci_target = 5, .max_repeat = 8 },
	.floor = 0.5,
	.cut = CUT_HALVE,
	.all_opt = "--toy",
	.cost = toy_cost,
	.options = toy_options,
};

static const struct experiment toy_first = { .name = "first", .first = 1 };

static int all_available(const struct plan_host *h, const struct mechanism *m)
{
	(void)h;
	(void)m;
	return 1;
}

static void toy_plan(struct plan *p, int budget)
{
	static const struct experiment *const exps[] = { &toy };

	memset(p, 0, sizeof(*p));
	p->budget = budget;
	p->exps = exps;
	p->nexps = 1;
	p->presets = malloc(sizeof(*p->presets));
	p->presets[0] = toy.quick;
	p->threads = strdup("1,2,3,4");
	p->host.threads = p->threads;
	p->host.callers = p->callers = strdup("1");
	p->host.ladder_threads = "4";
	p->host.ladder_callers = "";
	p->host.available = all_available;
	p->pts = calloc(1, sizeof(*p->pts));
	p->pts[0] = (struct plan_point){ .e = &toy, .exp = 0 };
	p->n = 1;
}

int main(void)
{
	struct plan p;
	char *opts = NULL;
	size_t len = 0;
	FILE *f;
	int n, *v;

	plan(15);
	ok(plan_budget_parse("300") == 300 && plan_budget_parse("1.5m") == 90 &&
	   plan_budget_parse("2h") == 7200 && plan_budget_parse("10s") == 10,
	   "durations: 300, 1.5m, 2h, 10s");
	ok(plan_budget_parse("5") < 0 && plan_budget_parse("soon") < 0 &&
	   plan_budget_parse("1.m") < 0 && plan_budget_parse("101d") < 0 &&
	   plan_budget_parse("") < 0 && plan_budget_parse("9999999999999999") < 0,
	   "bad durations: below 10 s, garbage, no digits, a unit that is not s/m/h, too long");
	ok(!plan_counts_check("1,2,4", 8) && !plan_counts_check("1-8", 8) &&
	   plan_counts_check("0", 8) && plan_counts_check("1,,2", 8) &&
	   plan_counts_check("1-", 8) && plan_counts_check("3-2", 8) && plan_counts_check("9", 8) &&
	   plan_counts_check("", 8) && plan_counts_check("1-2-3", 8),
	   "count lists: 1..most, N or N-M, no empty item");
	v = plan_counts("1-3,8", &n);
	ok(n == 4 && v[0] == 1 && v[2] == 3 && v[3] == 8, "1-3,8 is 1 2 3 8");
	free(v);

	/* 4 counts x 4 repeats x 1 s = 16 s, plus the fixed part. */
	toy_plan(&p, 100);
	plan_fit(&p);
	ok(!strcmp(p.fit, "-") && p.total == PLAN_FIXED_S + 16 && p.pts[0].s == 16,
	   "within the budget: nothing cut (%s, %.1f s)", p.fit, p.total);
	plan_free(&p);

	toy_plan(&p, PLAN_FIXED_S + 10);
	plan_fit(&p);
	ok(!strcmp(p.fit, "durations scaled") && p.total <= p.budget && p.presets[0].duration < 1 &&
	   p.presets[0].duration >= 0.5 && p.presets[0].repeat == 4,
	   "a little over: durations scaled (%s, %.2f s, duration %g)", p.fit, p.total,
	   p.presets[0].duration);
	ok(p.unscaled == PLAN_FIXED_S + 16, "the unscaled time is kept (%.1f)", p.unscaled);
	plan_free(&p);

	toy_plan(&p, PLAN_FIXED_S + 5);
	plan_fit(&p);
	ok(!strcmp(p.fit, "durations scaled, repeats cut") && p.presets[0].duration == 0.5 &&
	   p.presets[0].repeat == 2 && p.presets[0].max_repeat == 2 && p.total == PLAN_FIXED_S + 4,
	   "further over: durations at their floor, repeats halved (%s, %.2f s)", p.fit, p.total);
	plan_free(&p);

	toy_plan(&p, PLAN_FIXED_S + 1);
	plan_fit(&p);
	ok(!strcmp(p.fit, "durations scaled, repeats cut, powers of two between topology points dropped") &&
	   !strcmp(p.host.threads, "1,2,3") && p.total == PLAN_FIXED_S + 3,
	   "far over: the counts only there as powers of two dropped (%s; %s, %.2f s)", p.fit,
	   p.host.threads, p.total);
	ok(p.total > p.budget, "what cannot fit is said, not hidden (%.2f s > %d s)", p.total, p.budget);
	f = open_memstream(&opts, &len);
	plan_options(f, &p, 0);
	fclose(f);
	ok(!strcmp(opts, " --threads 1,2,3 --duration 0.5 --repeat 2 --ci-target 5 --max-repeat 2"),
	   "the options say what was fitted (%s)", opts);
	free(opts);
	plan_free(&p);

	/*
	 * The run order: the first point once, first; then two points in 3
	 * processes each, one of each per round, so the rounds go 1, 1, 2, 2,
	 * 3, 3; the same seed gives the same order.
	 */
	{
		static const struct experiment *const exps[] = { &toy_first, &toy };
		struct preset presets[2] = { { .repeat = 0 }, { .repeat = 0 } };
		struct plan_point pts[3] = {
			{ .e = &toy_first, .exp = 0, .s = 2 },
			{ .e = &toy, .exp = 1, .s = 3 },
			{ .e = &toy, .exp = 1, .s = 6 },
		};
		struct plan q = { .exps = exps, .nexps = 2, .presets = presets, .pts = pts, .n = 3,
				  .replicates = 3 };
		struct plan_run *r, *r2;
		int nr = plan_runs(&q, 42, &r), nr2 = plan_runs(&q, 42, &r2), good = nr == 7, each[3] = { 0 };

		for (int j = 1; j < nr && good; j++) {
			good &= r[j].round == (j + 1) / 2 && r[j].i > 0 && r[j].rep == r[j].round;
			each[r[j].i]++;
		}
		ok(good && r[0].i == 0 && r[0].rep == 0 && r[0].round == 0 && each[1] == 3 && each[2] == 3,
		   "runs: the first point once, then each point's process j in round j (%d runs)", nr);
		ok(r[0].tenths == 20 && r[1].tenths == (r[1].i == 1 ? 10 : 20),
		   "runs: a process's tenths are its share of the point's seconds");
		for (int j = 0; j < nr && nr == nr2; j++)
			good &= r[j].i == r2[j].i && r[j].rep == r2[j].rep;
		ok(good && nr == nr2, "runs: the same seed, the same order");
		free(r);
		free(r2);
	}

	/* A duration is written as %g writes it, and the run reads that. */
	ok(plan_g(0.0800266412) == 0.0800266 && plan_g(1.0 / 3) == 0.333333,
	   "plan_g: %%g's six digits");
	return tap_failed != 0;
}
