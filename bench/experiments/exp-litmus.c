// SPDX-License-Identifier: MIT
/*
 * litmus: the store-buffering test per barrier pairing, counting the four
 * outcomes. r1 = r2 = 0 is forbidden for every correct heavy barrier paired
 * with a compiler barrier on the other thread (and for a fence on both
 * sides); seeing it even once fails the run. The controls (no barrier, a
 * fence on one side only) are allowed to show it and must, on x86, for the
 * test to mean anything.
 *
 * With --repeat N each pairing runs N times (fresh threads each time, so
 * each repeat meets its own timing alignment); the counts are summed, and
 * the spread of the N rates gives forbidden_per_million_ci95, which is what
 * two runs' rates are compared with (the Wilson interval treats trials as
 * independent, and a control's rate moves more between thread starts).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "litmus.h"
#include "results.h"
#include "strbuf.h"
#include "util.h"

static const struct col litmus_cols[] = {
	COL_KEY("pairing", COL_STR, "", COL_REQ,
		"`none`, `fence-one-side`, `fence-both`, or a mechanism name (that mechanism on A, a compiler barrier on B)"),
	COL_INFO("a_side", COL_STR, "", 0, "`compiler`, `fence` or the mechanism"),
	COL_INFO("b_side", COL_STR, "", 0, "`compiler`, `fence` or the mechanism"),
	COL_INFO("expect", COL_STR, "", 0,
		 "`forbidden` (r1 = r2 = 0 must not be seen) or `allowed` (the controls)"),
	COL_INFO("cpus", COL_STR, "", 0, "OS CPUs of A and B"),
	COL_COUNT("repeats", COL_INT, COL_POS,
		  "runs of the pairing (`--repeat`), each with fresh threads; the counts are their sums"),
	COL_COUNT("trials", COL_INT, COL_REQ, "trials run"),
	COL_COUNT("r1_0_r2_0", COL_INT, 0, "outcome count: r1 = 0, r2 = 0 (the forbidden one)"),
	COL_COUNT("r1_0_r2_1", COL_INT, 0, "outcome count: r1 = 0, r2 = 1"),
	COL_COUNT("r1_1_r2_0", COL_INT, 0, "outcome count: r1 = 1, r2 = 0"),
	COL_COUNT("r1_1_r2_1", COL_INT, 0, "outcome count: r1 = 1, r2 = 1"),
	COL_MEASURE("forbidden_per_million", COL_NUM, "1/1e6", LOWER, RATE, 0,
		    "`r1_0_r2_0` per million trials"),
	COL_MEASURE("trials_per_s", COL_NUM, "1/s", NONE, NONE, 0, "trial rate (the heavy barrier dominates it)"),
	COL_LO95("forbidden_per_million_lo95", "forbidden_per_million", "1/1e6", 0,
		 "Wilson 95% interval of that rate over the trials, lower end"),
	COL_HI95("forbidden_per_million_hi95", "forbidden_per_million", "1/1e6", 0,
		 "its upper end: with none seen it is ~3.84 x 10^6 / trials, so a clean row says how rare a failure it could have missed"),
	COL_CI95("forbidden_per_million_ci95", "forbidden_per_million", "1/1e6", 0,
		 "with 2 or more repeats: the 95% CI half-width of the rate from the spread of the repeats' rates; compare tests two runs' rates with it (Welch's t), and falls back to the Wilson intervals without repeats"),
	COL_STATUS("status", COL_REQ, "`ok`, `failed` (a forbidden outcome was seen: exit 1) or `skipped`"),
	COL_STATUS("skip_reason", 0, "e.g. one CPU only, mechanism unavailable"),
	KERNEL_FINDING_COL,
};

const struct table_schema litmus_table = {
	.name = "litmus", .experiment = "litmus", .analysed = 1,
	.rows = "One row per barrier pairing of the store-buffering test (A: `x = 1; barrier; r1 = y`, B: `y = 1; barrier; r2 = x`).",
	.notes = "A control's rate (`expect` `allowed`) depends on how the two threads' loops line up, which changes with each thread start far more than the Wilson interval allows: compare calls a control's change neither better nor worse.",
	.cols = litmus_cols, .ncols = NCOLS(litmus_cols),
	.control = "expect", .control_value = "allowed",
};

/* Every pairing on offer (litmus_pairings), made once. */
static const struct litmus_pairing *offered(size_t *n)
{
	static struct litmus_pairing *all;
	static size_t nall;

	if (!all) {
		all = xcalloc(LITMUS_MAX_PAIRINGS, sizeof(*all));
		nall = litmus_pairings(all);
	}
	*n = nall;
	return all;
}

/* Built once, as long as the pairings need, and kept. */
static const char *pairing_names(void)
{
	static struct strbuf b = STRBUF_INIT;
	size_t n;
	const struct litmus_pairing *all = offered(&n);

	if (!b.s)
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&b, "%s%s", i ? ", " : "", all[i].name);
	return strbuf_str(&b);
}

static void add_pairing(struct litmus_pairing *out, int *n,
			const struct litmus_pairing *p)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(out[i].name, p->name))
			return;
	out[(*n)++] = *p;
}

static int parse_pairings(const char *arg, struct litmus_pairing *out)
{
	char *copy = xstrdup(arg), *save = NULL;
	size_t nall;
	const struct litmus_pairing *all = offered(&nall);
	int n = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int heavy = !strcmp(tok, "heavy"), found = 0;

		if (!strcmp(tok, "all")) {
			free(copy);
			return parse_pairings("none,fence-one-side,fence-both,heavy", out);
		}
		for (size_t i = 0; i < nall; i++)
			if (heavy ? all[i].a == LS_MECH : !strcmp(tok, all[i].name)) {
				add_pairing(out, &n, &all[i]);
				found = 1;
			}
		if (!found && !heavy)
			die("unknown --pairing '%s' (valid: %s, all)", tok,
			    pairing_names());
	}
	free(copy);
	if (!n)
		die("--pairing needs at least one name (valid: %s, all)",
			  pairing_names());
	return n;
}

static int bind_cpu(void *arg, int cpu)
{
	return topo_bind_self(arg, cpu);
}

/*
 * o->repeat runs of one pairing, counts summed into *sum and each run's
 * forbidden rate (per million trials) in rates[]; nonzero with the reason.
 */
static int litmus_repeats(const struct litmus_pairing *p, const struct placement *pl,
			  const struct opts *o, struct litmus_counts *sum, double *rates,
			  char *reason, size_t len)
{
	memset(sum, 0, sizeof(*sum));
	for (int r = 0; r < o->repeat; r++) {
		struct litmus_counts c;

		if (litmus_run(p, pl->pu_os[0], pl->pu_os[1], bind_cpu, o->topo,
			       o->iterations, o->duration_s, &c, reason, len))
			return -1;
		if (c.err) {
			snprintf(reason, len, "barrier failed: %s", strerror(-c.err));
			return -1;
		}
		sum->trials += c.trials;
		sum->ns += c.ns;
		for (int k = 0; k < 4; k++)
			sum->r[k] += c.r[k];
		rates[r] = c.trials ? (double)c.r[0] * 1e6 / (double)c.trials : 0;
	}
	return 0;
}

static int exp_litmus_main(int argc, char **argv)
{
	const char *pairing_arg = NULL;
	const struct exp_opt litmus_opts[] = {
		OPT_STRING("pairing", "LIST|all",
			   "none, fence-one-side, fence-both, or a heavy\n"
			   "mechanism on A with a compiler barrier on B\n"
			   "(see mbbench list); 'heavy' = every mechanism\n"
			   "(default all). --duration and --iterations\n"
			   "bound each pairing (trials = iterations)", &pairing_arg),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "litmus",
		.synopsis = "Store-buffering litmus per barrier pairing: r1 = r2 = 0 must never be seen with a correct barrier.",
		.common = CO_DURATION | CO_REPEAT | CO_FORMAT | CO_JSON | CO_OUTPUT | CO_PLACEMENT,
		.opts = litmus_opts,
		.def_duration_s = 1.0,
		.def_repeat = 1,
	};
	struct litmus_pairing *pairs;
	struct opts o;
	struct table t;
	struct results res;
	struct placement pl;
	char err[256], *cpus;
	double *rates;
	int n, failed = 0, same_cpu;

	opts_parse(argc, argv, &spec, &o);
	pairs = xcalloc(LITMUS_MAX_PAIRINGS, sizeof(*pairs));
	n = parse_pairings(pairing_arg ? pairing_arg : "all", pairs);
	if (placement_compute(o.topo, o.placement, 2, &pl, err, sizeof(err)) ||
	    placement_check_affinity(&pl, err, sizeof(err)))
		die("%s", err);
	o.nmechs = 0;
	table_init(&t, litmus_cols, (int)(sizeof(litmus_cols) / sizeof(litmus_cols[0])));
	results_begin(&res, &o, &t);
	cpus = placement_cpus_str(&pl, 0, 2);
	same_cpu = pl.pu_os[0] == pl.pu_os[1];
	rates = xcalloc((size_t)o.repeat, sizeof(*rates));

	for (int i = 0; i < n; i++) {
		const struct litmus_pairing *p = &pairs[i];
		struct litmus_counts c;
		char reason[256] = "";
		int row = table_add_row(&t), ok = 1;

		progress("litmus", i + 1, n, p->name);
		table_set_str(&t, row, "pairing", p->name);
		table_set_str(&t, row, "a_side", litmus_side_name(p->a, p->mech));
		table_set_str(&t, row, "b_side", litmus_side_name(p->b, p->mech));
		table_set_str(&t, row, "expect", p->forbidden ? "forbidden" : "allowed");
		table_set_str(&t, row, "cpus", cpus);
		if (same_cpu) {
			snprintf(reason, sizeof(reason),
				 "needs two CPUs: on one CPU the store buffer forwards, no reordering is visible");
			ok = 0;
		} else if (p->a == LS_MECH && mech_prepare(p->mech, reason, sizeof(reason))) {
			ok = 0;
		} else if (litmus_repeats(p, &pl, &o, &c, rates, reason, sizeof(reason))) {
			ok = 0;
		}
		if (p->a == LS_MECH && p->mech->teardown && !same_cpu)
			p->mech->teardown(p->mech);
		if (!ok) {
			row_skip(&t, row, reason);
			continue;
		}
		table_set_int(&t, row, "repeats", o.repeat);
		table_set_int(&t, row, "trials", (long long)c.trials);
		table_set_int(&t, row, "r1_0_r2_0", (long long)c.r[0]);
		table_set_int(&t, row, "r1_0_r2_1", (long long)c.r[1]);
		table_set_int(&t, row, "r1_1_r2_0", (long long)c.r[2]);
		table_set_int(&t, row, "r1_1_r2_1", (long long)c.r[3]);
		table_set_num(&t, row, "forbidden_per_million",
			      c.trials ? (double)c.r[0] * 1e6 / (double)c.trials : 0);
		table_set_num(&t, row, "trials_per_s", (double)c.trials / ((double)c.ns / 1e9));
		if (c.trials) {
			double lo, hi;

			wilson95(c.r[0], c.trials, &lo, &hi);
			table_set_num(&t, row, "forbidden_per_million_lo95", lo * 1e6);
			table_set_num(&t, row, "forbidden_per_million_hi95", hi * 1e6);
		}
		if (o.repeat > 1) {
			struct summary s;

			summarize(rates, o.repeat, &s);
			table_set_num(&t, row, "forbidden_per_million_ci95", s.ci95);
		}
		if (p->forbidden && c.r[0]) {
			failed = 1;
			table_set_str(&t, row, "status", "failed");
			results_note(&res, "%s: r1 = r2 = 0 seen %llu times in %llu trials: this pairing does not order memory",
				     p->name, (unsigned long long)c.r[0],
				     (unsigned long long)c.trials);
		} else {
			table_set_str(&t, row, "status", "ok");
			if (!p->forbidden && !c.r[0])
				results_note(&res, "%s: the control showed no reordering in %llu trials; the zero counts above prove less on this host",
					     p->name, (unsigned long long)c.trials);
		}
	}
	results_emit(&res);
	free(rates);
	free(cpus);
	placement_free(&pl);
	table_free(&t);
	free(pairs);
	opts_free(&o);
	return failed ? 1 : 0;
}

/* The sweep: one point, every pairing, the duration in --repeat runs whose
 * spread gives the rates' CIs. A pairing whose mechanism is absent is a
 * skipped row. */
static double litmus_cost(const struct preset *p, const struct plan_host *h,
			  const struct mechanism *m)
{
	int runs = LITMUS_NFIXED;

	(void)m;
	for (size_t i = 0; i < nr_mechanisms; i++)
		runs += litmus_heavy(mechanisms[i]) && h->available(h, mechanisms[i]);
	return runs * (p->duration + 0.05) + 0.1;
}

static void litmus_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	fprintf(f, " --placement %s --duration %g --repeat %d", h->placement,
		p->duration / p->repeat, p->repeat);
}

const struct experiment exp_litmus = {
	.tables = (const struct table_schema *const[]){ &litmus_table, NULL },
	.name = "litmus",
	.summary = "store-buffering litmus: every barrier pairing orders memory",
	.main = exp_litmus_main,
	.quick = { .duration = 0.05, .repeat = 2 },
	.full = { .duration = 4, .repeat = 3 },	/* 5 processes: 20 s in all (the seed ran 10 s in one) */
	.floor = 0.1,
	.all_opt = "--pairing",
	.cost = litmus_cost,
	.options = litmus_options,
};
