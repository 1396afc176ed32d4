// SPDX-License-Identifier: MIT
/* Common option parsing and per-subcommand usage. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBNUMA
#include <numa.h>
#endif

#include "cli.h"
#include "harness.h"
#include "mech.h"
#include "outpath.h"
#include "points.h"
#include "util.h"

enum {
	OPT_BEHAVIOUR = 'b',
	OPT_DURATION = 'd',
	OPT_FORMAT = 'f',
	OPT_HELP = 'h',
	OPT_ITERATIONS = 'n',
	OPT_JSON = 'j',
	OPT_MECH = 'm',
	OPT_OUTPUT = 'o',
	OPT_PLACEMENT = 'p',
	OPT_REPEAT = 'r',
	OPT_THREADS = 't',
	OPT_MEMBIND = 500,
	OPT_OTHER_PROCESS,
	OPT_FORCE,
	OPT_KEEP_DEGRADED,
	OPT_PLANT,
	OPT_PLANT_SYSCALL,
};

/* Alphabetical; `flag` is the CO_* bit that enables each. */
static const struct {
	struct option opt;
	unsigned flag;
	const char *arg, *help;
} common[] = {
	{ { "behaviour", required_argument, NULL, OPT_BEHAVIOUR }, CO_BEHAVIOUR,
	  "spin|sleep", "what the other threads do (default spin)" },
	{ { "duration", required_argument, NULL, OPT_DURATION }, CO_DURATION,
	  "S", "seconds per repeat, e.g. 0.5, 200ms (not with --iterations)" },
	{ { "force", no_argument, NULL, OPT_FORCE }, CO_FORCE, NULL,
	  "replace earlier results at --json or --output (regular files only)" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, CO_FORMAT,
	  "human|csv", "stdout format (default human)" },
	{ { "help", no_argument, NULL, OPT_HELP }, CO_ALL, NULL,
	  "this help" },
	{ { "iterations", required_argument, NULL, OPT_ITERATIONS }, CO_DURATION,
	  "N", "barriers per repeat (not with --duration)" },
	{ { "json", required_argument, NULL, OPT_JSON }, CO_JSON, "FILE",
	  "also write the JSON envelope to FILE (-: to stdout, instead of the table)" },
	{ { "mechanism", required_argument, NULL, OPT_MECH }, CO_MECH,
	  "LIST|all", "mechanisms, comma separated (see mbbench list)" },
	{ { "keep-degraded", no_argument, NULL, OPT_KEEP_DEGRADED }, CO_WORK, NULL,
	  "count degraded repeats, keep them in the figures (checks, not numbers)" },
	{ { "membind", required_argument, NULL, OPT_MEMBIND }, CO_MEMBIND,
	  "NODE", "allocate memory on NUMA node NODE (needs libnuma)" },
	{ { "other-process", no_argument, NULL, OPT_OTHER_PROCESS }, CO_OTHER_PROCESS,
	  NULL, "the T-1 other threads run in another process" },
	{ { "output", required_argument, NULL, OPT_OUTPUT }, CO_OUTPUT, "DIR",
	  "write <experiment>.csv and <experiment>.json into DIR" },
	{ { "placement", required_argument, NULL, OPT_PLACEMENT }, CO_PLACEMENT,
	  "compact|smt|scatter|CPUS", "where threads run; thread 0 is the caller" },
	{ { "plant", required_argument, NULL, OPT_PLANT }, CO_PLANT, "PCT",
	  "add PCT% of each barrier's cost as a busy wait (mbbench calibrate)" },
	{ { "plant-syscall", required_argument, NULL, OPT_PLANT_SYSCALL }, CO_PLANT_SYSCALL, "NS",
	  "busy-wait NS ns after every expedited membarrier(2) call, the\n"
	  "delivery floor's too: a planted kernel regression (calibrate --at syscall)" },
	{ { "repeat", required_argument, NULL, OPT_REPEAT }, CO_REPEAT, "N",
	  "repeats per point (mean, stddev, 95% CI)" },
	{ { "threads", required_argument, NULL, OPT_THREADS }, CO_THREADS,
	  "LIST", "thread counts T incl. the caller: 1,2,4 or 1-8" },
};
#define NCOMMON (sizeof(common) / sizeof(common[0]))

void usage_exp(FILE *f, const struct exp_spec *spec)
{
	fprintf(f, "usage: mbbench %s [options]\n%s\n\noptions:\n", spec->name,
		spec->synopsis);
	for (size_t i = 0; i < NCOMMON; i++) {
		char left[64];

		if (common[i].flag != CO_ALL && !(common[i].flag & spec->common))
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", common[i].opt.name,
			 common[i].arg ? " " : "", common[i].arg ? common[i].arg : "");
		fprintf(f, "  %-28s %s\n", left, common[i].help);
	}
	for (const struct exp_opt *e = spec->opts; e && e->kind != OPTK_END; e++) {
		char left[64];
		const char *h = e->help;

		snprintf(left, sizeof(left), "--%s%s%s", e->name, e->arg ? " " : "",
			 e->arg ? e->arg : "");
		/* A long left column keeps two spaces before the help. */
		fprintf(f, "  %-28s %s", left, strlen(left) > 28 ? " " : "");
		for (;;) {
			const char *nl = strchr(h, '\n');

			if (!nl) {
				fprintf(f, "%s\n", h);
				break;
			}
			fprintf(f, "%.*s\n%31s", (int)(nl - h), h, "");
			h = nl + 1;
		}
	}
	if (spec->extra_help)
		fputs(spec->extra_help, f);
}

#define OPT_CODE_BASE 1000

/* "a,,b", ",a", "a,": a list with an empty element, refused everywhere. */
static void check_list(const char *opt, const char *arg)
{
	size_t n = strlen(arg);

	if (n && (arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,")))
		die("--%s '%s' has an empty element (separate names with single commas)",
			  opt, arg);
}

/* Store one value of an experiment's own option; -1 when it is bad. */
static int opt_apply(const struct exp_opt *e, const char *arg)
{
	uint64_t v;

	switch (e->kind) {
	case OPTK_FLAG:
		*(int *)e->dest = 1;
		return 0;
	case OPTK_INT:
		if (parse_u64(arg, e->min, e->max, &v))
			return -1;
		*(int *)e->dest = (int)v;
		return 0;
	case OPTK_U64:
		return parse_u64(arg, e->min, e->max, (uint64_t *)e->dest);
	case OPTK_STRING:
		if (e->arg && (strstr(e->arg, "LIST") || strstr(e->arg, ",")))
			check_list(e->name, arg);
		*(const char **)e->dest = arg;
		return 0;
	case OPTK_CHOICE:
		for (int i = 0; e->choices[i]; i++)
			if (!strcmp(arg, e->choices[i])) {
				*(int *)e->dest = i;
				return 0;
			}
		return -1;
	case OPTK_INT_LIST:
		free(*(int **)e->dest);
		*(int **)e->dest = NULL;
		return parse_int_set(arg, (int)e->min, (int)e->max, (int **)e->dest, e->count);
	case OPTK_CALLBACK:
		return e->parse(arg, e->dest);
	case OPTK_END:
		break;
	}
	return -1;
}

static void parse_mechs(struct opts *o, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	free(o->mechs);
	o->mechs = xcalloc(nr_mechanisms, sizeof(*o->mechs));
	o->nmechs = 0;
	if (!strcmp(arg, "all")) {
		for (size_t i = 0; i < nr_mechanisms; i++)
			o->mechs[o->nmechs++] = mechanisms[i];
		free(copy);
		return;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct mechanism *m = mech_find(tok);

		if (!m)
			die("unknown mechanism '%s' (valid: %s, all)", tok,
				  mech_names());
		for (int i = 0; i < o->nmechs; i++)
			if (o->mechs[i] == m)
				m = NULL;
		if (m)
			o->mechs[o->nmechs++] = m;
	}
	if (!o->nmechs)
		die("--mechanism needs at least one name (see mbbench list)");
	free(copy);
}

/* min 0: --threads counts the threads besides the caller. */
static void parse_threads(struct opts *o, const char *arg, int min)
{
	int max = min ? MAX_THREADS : MAX_THREADS - 1;

	free(o->threads);
	o->threads = NULL;
	if (parse_int_set(arg, min, max, &o->threads, &o->nthreads))
		die("bad --threads '%s' (use counts %d..%d like 1,2,4 or 1-8)",
			  arg, min, max);
}

void getopt_bad(const char *cmd, int c, char **argv)
{
	if (c == ':')
		die("%s needs a value", argv[optind - 1]);
	die("unknown option '%s' for %s (see mbbench %s --help)", argv[optind - 1], cmd, cmd);
}

void getopt_no_args(const char *cmd, int argc, char **argv)
{
	if (optind < argc)
		die("unexpected argument '%s' (see mbbench %s --help)", argv[optind], cmd);
}

void opts_parse(int argc, char **argv, const struct exp_spec *spec, struct opts *o)
{
	/* Static so it stays reachable when die() exits mid-parse. */
	static struct option *table;
	size_t next = 0, nextra = 0;
	int have_dur = 0, have_it = 0, c;
	const char *threads_arg = spec->def_threads;
	int zero_ok = spec->threads_zero_ok;
	char err[256];

	memset(o, 0, sizeof(*o));
	o->exp = spec->name;
	o->argc = argc;
	o->argv = argv;
	o->beh = BEH_SPIN;
	o->placement = "compact";
	o->duration_s = spec->def_duration_s;
	o->repeat = spec->def_repeat ? spec->def_repeat : 1;
	o->format = FMT_HUMAN;
	o->membind = -1;

	while (spec->opts && spec->opts[nextra].kind != OPTK_END)
		nextra++;
	free(table);
	table = xcalloc(NCOMMON + nextra + 1, sizeof(*table));
	for (size_t i = 0; i < NCOMMON; i++)
		if (common[i].flag == CO_ALL || (common[i].flag & spec->common))
			table[next++] = common[i].opt;
	for (size_t i = 0; i < nextra; i++)
		table[next++] = (struct option){
			spec->opts[i].name,
			spec->opts[i].kind == OPTK_FLAG ? no_argument : required_argument,
			NULL, OPT_CODE_BASE + (int)i,
		};

	parse_mechs(o, spec->def_mech ? spec->def_mech : "all");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", table, NULL)) != -1) {
		switch (c) {
		case OPT_HELP:
			usage_exp(stdout, spec);
			exit(0);
		case OPT_MECH:
			check_list("mechanism", optarg);
			parse_mechs(o, optarg);
			break;
		case OPT_THREADS:
			threads_arg = optarg;
			parse_threads(o, optarg, !spec->threads_zero_ok);
			break;
		case OPT_PLACEMENT:
			o->placement = optarg;
			break;
		case OPT_BEHAVIOUR:
			if (behaviour_parse(optarg, &o->beh))
				die("unknown --behaviour '%s' (use spin or sleep)",
					  optarg);
			break;
		case OPT_DURATION:
			if (parse_seconds(optarg, 1e-3, MAX_DURATION_S, &o->duration_s))
				die("bad --duration '%s' (seconds, 0.001 to %g, e.g. 0.5 or 200ms)",
					  optarg, MAX_DURATION_S);
			have_dur = 1;
			break;
		case OPT_ITERATIONS:
			if (parse_u64(optarg, 1, MAX_ITERATIONS, &o->iterations))
				die("bad --iterations '%s' (a count from 1 to %llu)",
					  optarg, (unsigned long long)MAX_ITERATIONS);
			have_it = 1;
			break;
		case OPT_REPEAT: {
			uint64_t r;

			if (parse_u64(optarg, 1, MAX_REPEAT, &r))
				die("bad --repeat '%s' (a count from 1 to %d)",
					  optarg, MAX_REPEAT);
			o->repeat = (int)r;
			break;
		}
		case OPT_FORMAT:
			if (!strcmp(optarg, "human"))
				o->format = FMT_HUMAN;
			else if (!strcmp(optarg, "csv"))
				o->format = FMT_CSV;
			else
				die("unknown --format '%s' (use human or csv)",
					  optarg);
			break;
		case OPT_JSON:
			o->json_path = optarg;
			break;
		case OPT_OUTPUT:
			o->outdir = optarg;
			break;
		case OPT_OTHER_PROCESS:
			o->other_process = 1;
			break;
		case OPT_KEEP_DEGRADED:
			o->keep_degraded = 1;
			break;
		case OPT_FORCE:
			o->force = 1;
			break;
		case OPT_PLANT: {
			uint64_t n;

			if (parse_u64(optarg, 1, 100, &n))
				die("bad --plant '%s' (a percentage from 1 to 100)", optarg);
			harness_plant((double)n);
			break;
		}
		case OPT_PLANT_SYSCALL: {
			uint64_t n;

			if (parse_u64(optarg, 1, 10000000, &n))
				die("bad --plant-syscall '%s' (nanoseconds from 1 to 10000000)", optarg);
			membarrier_plant(n);
			break;
		}
		case OPT_MEMBIND: {
			uint64_t n;

			if (parse_u64(optarg, 0, 4095, &n))
				die("bad --membind '%s' (a NUMA node number)", optarg);
			o->membind = (int)n;
			break;
		}
		case '?':
			if (optopt)
				die("%s: option needs a value or is not known here (see mbbench %s --help)",
					  argv[optind - 1], spec->name);
			getopt_bad(spec->name, c, argv);
		case ':':
			getopt_bad(spec->name, c, argv);
		default: {
			const struct exp_opt *e;

			if (c < OPT_CODE_BASE || c >= OPT_CODE_BASE + (int)nextra)
				fail("option code %d has no handler", c);
			e = &spec->opts[c - OPT_CODE_BASE];
			if (opt_apply(e, optarg))
				die("bad value '%s' for --%s%s%s", optarg ? optarg : "",
					  e->name, e->fix ? " " : "", e->fix ? e->fix : "");
		}
		}
	}
	free(table);
	table = NULL;
	getopt_no_args(spec->name, argc, argv);
	if (have_dur && have_it)
		die("give either --duration or --iterations, not both");
	if (have_it)
		o->duration_s = 0;

	if (o->json_path && strcmp(o->json_path, "-"))
		o->json_path = o->json_alloc = check_output_file("--json", o->json_path, o->force);
	if (o->json_path && o->outdir && !strcmp(o->json_path, o->outdir))
		die("--json %s is also the --output directory (give the JSON its own file name)",
			  o->json_path);
	if (o->json_path && !strcmp(o->json_path, "-")) {
		/* Only the envelope goes to stdout: the table and the rest are dropped. */
		fflush(stdout);
		o->json_fd = dup(STDOUT_FILENO);
		if (o->json_fd < 0 || !freopen("/dev/null", "w", stdout))
			fail("--json -: cannot redirect stdout: %m");
	}
	if (o->outdir)
		o->outdir = o->outdir_alloc = check_output_dir("--output", o->outdir, o->force,
							       spec->name);
	if (o->outdir && o->json_path) {
		char name[128], *in;
		int same;

		snprintf(name, sizeof(name), "%s.json", spec->name);
		in = path_join(o->outdir, name);
		same = !strcmp(in, o->json_path);
		free(in);
		if (same)
			die("--json %s is the %s that --output writes (give the JSON another name)",
				  o->json_path, name);
	}
	if (o->membind >= 0) {
#ifdef HAVE_LIBNUMA
		if (numa_available() < 0 || o->membind > numa_max_node())
			die("--membind %d: no such NUMA node (see numactl -H)",
				  o->membind);
#else
		die("--membind needs libnuma: apt-get install libnuma-dev, then reconfigure");
#endif
	}

	{
		int rc = topo_load(&o->topo, err, sizeof(err));

		if (rc == -2)
			die("%s", err);
		if (rc)
			fail("%s", err);
	}
	if (!o->threads && (spec->common & CO_THREADS)) {
		if (threads_arg && !strcmp(threads_arg, "ncpus")) {
			o->threads = xcalloc(1, sizeof(int));
			o->threads[0] = topo_npus(o->topo);
			o->nthreads = 1;
		} else if (threads_arg) {
			parse_threads(o, threads_arg, !spec->threads_zero_ok);
		} else {
			/* The counts where the topology changes, and powers of two. */
			struct tpoint *p;
			int n = topo_thread_points(o->topo, o->placement, topo_npus(o->topo),
						   0, &p, err, sizeof(err));

			if (n < 0)
				die("%s", err);
			o->threads = xcalloc((size_t)n, sizeof(int));
			for (int i = 0; i < n; i++)
				o->threads[i] = p[i].t;
			o->nthreads = n;
			free(p);
		}
	}
	/* Check the placement for the largest T now, not halfway through. */
	if (spec->common & CO_PLACEMENT) {
		int maxt = 1;
		struct placement pl;

		for (int i = 0; i < o->nthreads; i++)
			if (o->threads[i] + zero_ok > maxt)
				maxt = o->threads[i] + zero_ok;
		if (placement_compute(o->topo, o->placement, maxt, &pl, err, sizeof(err)))
			die("%s", err);
		if (placement_check_affinity(&pl, err, sizeof(err)))
			die("%s", err);
		placement_free(&pl);
	}
}

void opts_apply_membind(const struct opts *o)
{
#ifdef HAVE_LIBNUMA
	if (o->membind >= 0) {
		struct bitmask *bm = numa_allocate_nodemask();

		numa_bitmask_setbit(bm, (unsigned)o->membind);
		numa_set_membind(bm);
		numa_free_nodemask(bm);
	}
#else
	(void)o;
#endif
}

void opts_free(struct opts *o)
{
	free(o->mechs);
	free(o->threads);
	free(o->json_alloc);
	free(o->outdir_alloc);
	o->json_alloc = o->outdir_alloc = NULL;
	if (o->topo)
		hwloc_topology_destroy(o->topo);
	o->mechs = NULL;
	o->threads = NULL;
	o->topo = NULL;
}
