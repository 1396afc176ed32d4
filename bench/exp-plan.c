// SPDX-License-Identifier: MIT
/*
 * plan: the points `mbbench sweep` runs on this topology, each with the
 * command that measures it and its predicted seconds, fitted into the
 * budget (plan.c). Nothing is bound, probed beyond `mbbench list` or
 * measured, and the topology may be another host's (MBBENCH_SYNTHETIC,
 * HWLOC_SYNTHETIC, HWLOC_XMLFILE): the sweep reads --format lines.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aslr.h"
#include "experiment.h"
#include "mech.h"
#include "outpath.h"
#include "plan.h"
#include "points.h"
#include "strbuf.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mbbench plan [--quick|--full|--ab] [--budget DURATION] [--threads LIST]\n"
		"                    [--callers LIST] [--placement P] [--behaviour spin|sleep]\n"
		"                    [--mechanism LIST] [--experiment LIST] [--assume-available]\n"
		"                    [--seed N] [--plant PCT] [--plant-syscall NS] [--keep-degraded]\n"
		"                    [--output DIR | --out-root DIR] [--make-folder] [--aslr off|on]\n"
		"                    [--format human|lines]\n"
		"The points mbbench sweep runs here: experiment, mechanism, predicted\n"
		"seconds and options, fitted into the budget. Measures nothing; the\n"
		"topology is this host's, or MBBENCH_SYNTHETIC / HWLOC_SYNTHETIC /\n"
		"HWLOC_XMLFILE's.\n\n"
		"  --quick, --full    the preset (default quick: 300 s; full: 2 h)\n"
		"  --ab               the A/B preset (60 s): the headline points a kernel A/B\n"
		"                     compares, the IPI-sending mechanisms and the controls:\n"
		"                     calls T=2, distance at the nearest level, latency,\n"
		"                     register and contend C=1; one of several runs a side\n"
		"  --budget D         the time the sweep may take, e.g. 300, 20m, 2h\n"
		"  --threads LIST     calls' thread counts (default: from the topology)\n"
		"  --callers LIST     contend's caller counts (default: from the topology)\n"
		"  --placement P      compact (default), smt, scatter or a CPU list\n"
		"  --behaviour B      spin or sleep, for calls, latency and register\n"
		"  --mechanism LIST   only these mechanisms (then no rcu or litmus point)\n"
		"  --experiment LIST  only these experiments (calls,latency,...)\n"
		"  --assume-available plan as if every mechanism were available\n"
		"  --seed N           the seed of the run order (default: from the clock)\n"
		"  --plant PCT        --plant PCT for calls, latency and distance\n"
		"  --plant-syscall NS --plant-syscall NS for calls, latency, distance and contend\n"
		"  --keep-degraded    --keep-degraded for the experiments that judge repeats\n"
		"  --output DIR       the sweep's folder itself, checked (see --make-folder)\n"
		"  --out-root DIR     where the sweep names its folder, checked (default results/runs)\n"
		"  --make-folder      (lines) make the sweep's folder, printed as \"folder PATH\"\n"
		"  --aslr off|on      (lines) off: the prefix that runs a point without address-\n"
		"                     space randomization (\"norand ...\"), and \"aslr STATE\"\n"
		"  --format F         human (default), or lines: one point a line,\n"
		"                     \"point EXP NAME SECONDS CPUS PROCESSES ARGV...\", for the sweep\n"
		"                     (\"first ...\": a point run before the shuffled ones), then\n"
		"                     the run order, \"run EXP NAME REP PROCESSES TENTHS CPUS ARGV...\"\n");
}

static signed char avail_cache[64];

static int available(const struct plan_host *h, const struct mechanism *m)
{
	for (size_t i = 0; i < nr_mechanisms && i < sizeof(avail_cache); i++) {
		char reason[256];

		if (mechanisms[i] != m)
			continue;
		if (!avail_cache[i])
			avail_cache[i] = h->assume || !mech_probe(m, reason, sizeof(reason)) ? 1 : -1;
		return avail_cache[i] > 0;
	}
	return h->assume;
}

/* The --mechanism list, checked, in its order; NULL: every mechanism. */
static const struct mechanism **parse_only(const char *arg, int *n)
{
	const struct mechanism **out = xcalloc(nr_mechanisms + 1, sizeof(*out));
	char *copy = xstrdup(arg), *tok, *save = NULL;

	if (strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789,_.-") !=
	    strlen(arg) || !*arg)
		die("--mechanism '%s': give names separated by commas, without spaces (see mbbench list)",
			  arg);
	if (arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		die("--mechanism '%s' has an empty name (give names separated by single commas)",
			  arg);
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct mechanism *m = mech_find(tok);

		if (!m)
			die("unknown mechanism '%s' (see mbbench list)", tok);
		for (int i = 0; i < *n && m; i++)
			if (out[i] == m)
				m = NULL;	/* named twice: kept once, as --threads */
		if (m)
			out[(*n)++] = m;
	}
	free(copy);
	return out;
}

/*
 * A checked list of counts with each count once, where it first appears
 * ("2,1-2" is "2,1"), as calls and contend will measure it: a point given
 * twice is planned once.
 */
static char *counts_merged(const char *arg, int most)
{
	int *v, n;
	char *s, *w;

	if (parse_int_set(arg, 1, most, &v, &n))
		die("bad count list '%s'", arg);
	w = s = xmalloc((size_t)n * 6 + 1);
	for (int i = 0; i < n; i++)
		w += sprintf(w, "%s%d", i ? "," : "", v[i]);
	free(v);
	return s;
}

static void add_point(struct plan *p, int k, const struct mechanism *m)
{
	for (int i = 0; i < p->n; i++)
		if (p->pts[i].exp == k && p->pts[i].m == m)
			return;
	p->pts = xrealloc(p->pts, (p->n + 1) * sizeof(*p->pts));
	p->pts[p->n++] = (struct plan_point){ .e = p->exps[k], .exp = k, .m = m };
}

/*
 * The ab preset's mechanisms: every one that interrupts other CPUs (the
 * membarrier commands that send IPIs, signal, mprotect) and the controls
 * a kernel change must not move (fence, null); not the grace-period ones,
 * whose cost is the scheduler's.
 */
static const struct mechanism **ab_mechanisms(int *n)
{
	const struct mechanism **out = xcalloc(nr_mechanisms + 1, sizeof(*out));

	*n = 0;
	for (size_t i = 0; i < nr_mechanisms; i++)
		if (mech_has(mechanisms[i], MC_IPI, MC_GRACE_PERIOD) ||
		    mech_has(mechanisms[i], MC_FENCE_LIKE, 0))
			out[(*n)++] = mechanisms[i];
	return out;
}

/* Whether the comma list names name. */
static int list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == n && !strncmp(p, name, n))
			return 1;
	}
	return 0;
}

/* --experiment: every name one the sweep runs, none empty (exit 2). */
static void check_exps(const char *list)
{
	const char *p = list;

	for (;;) {
		size_t n = strcspn(p, ",");
		int known = 0;

		for (size_t k = 0; k < nr_experiments && experiments[k]->cost; k++)
			known |= strlen(experiments[k]->name) == n && !strncmp(experiments[k]->name, p, n);
		if (!n)
			die("--experiment '%s' has an empty name (give names separated by single commas)", list);
		if (!known) {
			char names[512] = "";

			for (size_t k = 0; k < nr_experiments && experiments[k]->cost; k++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 k ? ", " : "", experiments[k]->name);
			die("--experiment '%.*s' is not an experiment the sweep runs (%s)", (int)n, p, names);
		}
		if (!p[n])
			break;
		p += n + 1;
	}
}

static void add_points(struct plan *p, int k, const struct mechanism **only, int nonly)
{
	const struct experiment *e = p->exps[k];

	if (e->all_opt) {
		if (!only || e->first)
			add_point(p, k, NULL);
		return;
	}
	if (!e->picks) {
		for (size_t i = 0; i < (only ? (size_t)nonly : nr_mechanisms); i++)
			add_point(p, k, only ? only[i] : mechanisms[i]);
		return;
	}
	for (int j = 0; j < e->npicks; j++)
		for (size_t i = 0; i < nr_mechanisms; i++) {
			int in = !only;

			for (int o = 0; o < nonly; o++)
				in |= only[o] == mechanisms[i];
			if (in && mech_picked(mechanisms[i], &e->picks[j]))
				add_point(p, k, mechanisms[i]);
		}
}

/* The counts of p only there as powers of two, "4,8". */
static char *ladder_only(const struct tpoint *p, int n)
{
	char *s = xmalloc((size_t)n * 11 + 1);
	size_t len = 0;

	s[0] = '\0';
	for (int i = 0; i < n; i++)
		if (p[i].why == TP_LADDER)
			len += sprintf(s + len, "%s%d", len ? "," : "", p[i].t);
	return s;
}

/* --plant, --plant-syscall and --keep-degraded: what the sweep adds to each point's command. */
static const char *plant, *plant_syscall;
static int keep_degraded;

/*
 * A point's command after its experiment: the selection and the options.
 * A planted regression goes to the experiments whose barriers are the ones
 * mbbench calibrate times (calls, latency, distance), --keep-degraded to
 * every experiment that judges its repeats.
 */
static void print_argv(FILE *f, const struct plan *p, int i)
{
	const struct plan_point *pt = &p->pts[i];

	fprintf(f, "%s %s", pt->e->all_opt ? pt->e->all_opt : "--mechanism",
		pt->m ? pt->m->name : "all");
	plan_options(f, p, i);
	if (plant && list_has("calls,latency,distance", pt->e->name))
		fprintf(f, " --plant %s", plant);
	if (plant_syscall && list_has("calls,latency,distance,contend", pt->e->name))
		fprintf(f, " --plant-syscall %s", plant_syscall);
	if (keep_degraded && list_has("calls,latency,distance,contend,rcu,anatomy", pt->e->name))
		fputs(" --keep-degraded", f);
}

static void print_point(FILE *f, const struct plan *p, int i, int lines)
{
	const struct plan_point *pt = &p->pts[i];
	const char *name = pt->m ? pt->m->name : "all";

	if (lines)
		fprintf(f, "%s %s %s %.1f %d %d %s ", pt->e->first ? "first" : "point",
			pt->e->name, name, pt->s,
			pt->e->cpus > 1 ? pt->e->cpus : 1, plan_point_processes(p, i), pt->e->name);
	else
		fprintf(f, "%s %s %.1f ", pt->e->name, name, pt->s);
	print_argv(f, p, i);
	fputc('\n', f);
}

/*
 * The run order (plan_runs), one "run EXP NAME REP PROCESSES TENTHS CPUS
 * ARGV" line each, with its seed, count and total tenths as keys.
 */
static void print_runs(const struct plan *p, unsigned long seed)
{
	struct plan_run *r;
	int n = plan_runs(p, seed, &r);
	long total = 0;

	for (int j = 0; j < n; j++)
		total += r[j].tenths;
	printf("seed %lu\nruns %d\ntenths %ld\n", seed, n, total);
	for (int j = 0; j < n; j++) {
		const struct plan_point *pt = &p->pts[r[j].i];

		printf("run %s %s %d %d %ld %d %s ", pt->e->name, pt->m ? pt->m->name : "all",
		       r[j].rep, plan_point_processes(p, r[j].i), r[j].tenths,
		       pt->e->cpus > 1 ? pt->e->cpus : 1, pt->e->name);
		print_argv(stdout, p, r[j].i);
		putchar('\n');
	}
	free(r);
}

static int exp_plan_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ab", no_argument, NULL, 'Z' },
		{ "assume-available", no_argument, NULL, 'a' },
		{ "behaviour", required_argument, NULL, 'B' },
		{ "budget", required_argument, NULL, 'b' },
		{ "experiment", required_argument, NULL, 'e' },
		{ "callers", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "full", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "keep-degraded", no_argument, NULL, 'k' },
		{ "make-folder", no_argument, NULL, 'M' },
		{ "aslr", required_argument, NULL, 'A' },
		{ "mechanism", required_argument, NULL, 'm' },
		{ "out-root", required_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "placement", required_argument, NULL, 'p' },
		{ "plant", required_argument, NULL, 'P' },
		{ "plant-syscall", required_argument, NULL, 'S' },
		{ "quick", no_argument, NULL, 'q' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	char *threads_alloc = NULL, *callers_alloc = NULL;
	const char *preset = NULL, *threads = NULL, *callers = NULL, *only_arg = NULL, *exps_arg = NULL;
	const char *output = NULL, *root = NULL;
	char *out = NULL, *out_root = NULL, *final;
	unsigned long seed = (unsigned long)time(NULL) % 1000000;
	const struct mechanism **only = NULL;
	struct plan p = { .budget = 0 };
	char err[256], sum[256], beh[32] = "";
	int c, lines = 0, nonly = 0, nt, nc, most = 1, make = 0, aslr_off = 1, ab;
	long online;
	hwloc_topology_t topo;
	struct tpoint *tp, *cp;

	p.host.placement = "compact";
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'q':
		case 'F':
		case 'Z': {
			const char *want = c == 'q' ? "quick" : c == 'F' ? "full" : "ab";

			if (preset && strcmp(preset, want))
				die("--%s and --%s: choose one preset", preset, want);
			preset = want;
			break;
		}
		case 'b':
			p.budget = plan_budget_parse(optarg);
			if (p.budget < 0)
				die("--budget '%s' is not a duration from 10 s to 100 days (e.g. 300, 20m, 2h)",
					  optarg);
			break;
		case 't':
			if (plan_counts_check(optarg, 4096))
				die("bad --threads '%s' (counts 1..4096 like 1,2,4 or 1-8)", optarg);
			free(threads_alloc);
			threads = threads_alloc = counts_merged(optarg, 4096);
			break;
		case 'c':
			if (plan_counts_check(optarg, 1024))
				die("bad --callers '%s' (counts 1..1024 like 1,2,4 or 1-8)", optarg);
			free(callers_alloc);
			callers = callers_alloc = counts_merged(optarg, 1024);
			break;
		case 'p':
			if (!*optarg || strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789,-") !=
			    strlen(optarg))
				die("--placement '%s': use compact, smt, scatter or a CPU list like 0-3,8",
					  optarg);
			p.host.placement = optarg;
			break;
		case 'B':
			if (strcmp(optarg, "spin") && strcmp(optarg, "sleep"))
				die("--behaviour '%s': use spin or sleep", optarg);
			snprintf(beh, sizeof(beh), " --behaviour %s", optarg);
			break;
		case 'm':
			only_arg = optarg;
			break;
		case 'e':
			exps_arg = optarg;
			break;
		case 'a':
			p.host.assume = 1;
			break;
		case 's':
			if (!*optarg || strspn(optarg, "0123456789") != strlen(optarg))
				die("--seed '%s' is not a whole number", optarg);
			if (strlen(optarg) > 9)
				die("--seed %s is too large (at most 9 digits)", optarg);
			seed = strtoul(optarg, NULL, 10);
			break;
		case 'P':
			if (!*optarg || optarg[0] == '0' || strspn(optarg, "0123456789") != strlen(optarg) ||
			    strlen(optarg) > 3 || atoi(optarg) > 100)
				die("--plant '%s' is not a percentage from 1 to 100", optarg);
			plant = optarg;
			break;
		case 'S':
			if (!*optarg || optarg[0] == '0' || strspn(optarg, "0123456789") != strlen(optarg) ||
			    strlen(optarg) > 8 || atol(optarg) > 10000000)
				die("--plant-syscall '%s' is not nanoseconds from 1 to 10000000", optarg);
			plant_syscall = optarg;
			break;
		case 'k':
			keep_degraded = 1;
			break;
		case 'M':
			make = 1;
			break;
		case 'A':
			if (strcmp(optarg, "off") && strcmp(optarg, "on"))
				die("unknown --aslr '%s' (use off or on)", optarg);
			aslr_off = !strcmp(optarg, "off");
			break;
		case 'o':
		case 'R':
			if (!*optarg)
				die("--%s needs a folder, not an empty value", c == 'o' ? "output" : "out-root");
			*(c == 'o' ? &output : &root) = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "human") && strcmp(optarg, "lines"))
				die("unknown --format '%s' (use human or lines)", optarg);
			lines = !strcmp(optarg, "lines");
			break;
		default:
			getopt_bad("plan", c, argv);
		}
	}
	getopt_no_args("plan", argc, argv);
	check_sweep_folder(output, root, &out, &out_root);
	if (exps_arg)
		check_exps(exps_arg);
	if (only_arg)
		only = parse_only(only_arg, &nonly);
	else if (preset && !strcmp(preset, "ab"))
		only = ab_mechanisms(&nonly);
	if (!preset)
		preset = "quick";
	ab = !strcmp(preset, "ab");
	if (!p.budget)
		p.budget = !strcmp(preset, "full") ? 7200 : ab ? PLAN_AB_BUDGET : 300;

	c = topo_load(&topo, err, sizeof(err));
	if (c == -2)
		die("%s", err);
	if (c)
		fail("%s", err);
	p.host.npus = topo_npus(topo);
	nt = topo_thread_points(topo, p.host.placement, p.host.npus, 1, &tp, err, sizeof(err));
	if (nt < 0)
		die("%s", err);
	nc = topo_caller_points(topo, p.host.placement, &cp, err, sizeof(err));
	if (nc < 0)
		die("%s", err);
	if (p.host.npus < 1)
		fail("the topology has no PU");
	p.threads = threads ? xstrdup(threads) : topo_points_str(tp, nt);
	p.callers = callers ? xstrdup(callers) : topo_points_str(cp, nc);
	p.host.threads = p.threads;
	p.host.callers = p.callers;
	p.host.ladder_threads = ladder_only(tp, nt);
	p.host.ladder_callers = ladder_only(cp, nc);
	p.host.disturb_rounds = points_disturb_rounds(topo);
	p.host.distance_levels = points_distance_levels(topo);
	if (ab) {
		/*
		 * The headline points only: calls at T=2 (T=1 where the host has
		 * one PU: no point is oversubscribed), contend with one caller,
		 * distance at the nearest level.
		 */
		int near = points_distance_nearest(topo);

		if (!threads) {
			free(p.threads);
			p.host.threads = p.threads = xstrdup(p.host.npus >= 2 ? "2" : "1");
		}
		if (!callers) {
			free(p.callers);
			p.host.callers = p.callers = xstrdup("1");
		}
		free((char *)p.host.ladder_threads);
		free((char *)p.host.ladder_callers);
		p.host.ladder_threads = xstrdup("");
		p.host.ladder_callers = xstrdup("");
		p.host.distance_level = near >= 0 ? dist_level_name(near) : NULL;
	}
	p.host.behaviour = beh;
	p.host.available = available;
	topo_summary(topo, sum, sizeof(sum));
	hwloc_topology_destroy(topo);
	free(tp);
	free(cp);

	/* The swept experiments, in the registry's order, and their points. */
	p.exps = experiments;
	for (size_t k = 0; k < nr_experiments && experiments[k]->cost; k++)
		p.nexps++;
	p.replicates = strcmp(preset, "full") ? PLAN_REPLICATES_QUICK : PLAN_REPLICATES_FULL;
	p.presets = xcalloc(p.nexps, sizeof(*p.presets));
	for (int k = 0; k < p.nexps; k++) {
		p.presets[k] = strcmp(preset, "full") ? p.exps[k]->quick : p.exps[k]->full;
		if (exps_arg ? list_has(exps_arg, p.exps[k]->name) :
			       !ab || list_has(PLAN_AB_EXPERIMENTS, p.exps[k]->name))
			add_points(&p, k, only, nonly);
	}
	plan_fit(&p);

	/*
	 * An affinity mask (taskset) narrower than the points need is refused
	 * before the sweep makes anything: those points would be missing from a
	 * folder that reads as finished. A host that has fewer CPUs skips them.
	 */
	for (int i = 0; i < p.n; i++)
		if (p.pts[i].e->cpus > most)
			most = p.pts[i].e->cpus;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	if (lines && p.host.npus < most && p.host.npus < online)
		die("this process may use %d of the %ld CPUs (its affinity mask: taskset) and the plan has points that need %d: widen it (taskset -c 0-%d) or choose experiments that fit (--experiment calls,latency)",
		    p.host.npus, online, most, most - 1);
	/* The folder last, once nothing is left to refuse. */
	final = lines && make ? make_sweep_folder(out, out_root) : NULL;
	if (lines) {
		printf("preset %s\nbudget %d\nplanned %d\nnpus %d\nreplicates %d\n", preset, p.budget,
		       p.n, p.host.npus, p.replicates);
		printf("cpus %d\n", most);
		print_aslr(aslr_off);
		if (final)
			printf("folder %s\n", final);
		printf("set threads %s\nset callers %s\n", p.host.threads, p.host.callers);
		printf("fit %s\nunscaled %.0f\nfixed %d\ntotal %.0f\n", p.fit, p.unscaled,
		       PLAN_FIXED_S, p.total);
	} else {
		printf("# plan: %s preset, budget %d s, placement %s, %d PUs, %d points\n", preset,
		       p.budget, p.host.placement, p.host.npus, p.n);
		printf("# topology: %s; placement %s\n", sum, p.host.placement);
		printf("# threads (calls): %s\n# callers (contend): %s\n", p.host.threads,
		       p.host.callers);
		if (p.replicates > 1)
			printf("# replicates: every point but the first in %d processes (fewer where an experiment's preset says so), interleaved (its CI from their means); predicted_s is all of them\n",
			       p.replicates);
		else
			printf("# replicates: none, each point in one process (its CI from repeats inside it)\n");
		printf("# fit: %s (unscaled %.0f s)\n", p.fit, p.unscaled);
		printf("# experiment mechanism predicted_s options\n");
	}
	for (int i = 0; i < p.n; i++)
		print_point(stdout, &p, i, lines);
	if (lines)
		print_runs(&p, seed);
	else
		printf("# predicted: %.0f s (%d s of it fixed: list, info, assembling, figures, report)\n",
		       p.total, PLAN_FIXED_S);
	fail_stdout();
	free((char *)p.host.ladder_threads);
	free((char *)p.host.ladder_callers);
	free(only);
	free(threads_alloc);
	free(callers_alloc);
	free(out);
	free(out_root);
	free(final);
	plan_free(&p);
	return 0;
}

const struct experiment exp_plan = {
	.name = "plan",
	.summary = "the points mbbench sweep runs here and their predicted time",
	.main = exp_plan_main,
};
