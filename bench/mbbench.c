// SPDX-License-Identifier: MIT
/*
 * mbbench: measure and characterize process-wide memory barriers on Linux
 * (membarrier commands, the 2010 sys_membarrier designs on a patched kernel,
 * signals, the mprotect trick, and a plain fence).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "paths.h"
#include "util.h"

static const struct experiment experiments[] = {
	{ "calls", "barrier calls/s vs thread count, per mechanism", exp_calls_main },
	{ "contend", "C concurrent callers: aggregate and per-caller barriers/s", exp_contend_main },
	{ "distance", "cost of one barrier by IPI distance: SMT sibling, core, L3, NUMA, package", exp_distance_main },
	{ "doctor", "what this kernel gets wrong or makes expensive, by measurement", exp_doctor_main },
	{ "disturb", "IPIs and latency a barrier storm causes on other CPUs", exp_disturb_main },
	{ "info", "host facts recorded with every result", exp_info_main },
	{ "latency", "per-call latency distribution per mechanism", exp_latency_main },
	{ "list", "every mechanism, available here or why not", exp_list_main },
	{ "litmus", "store-buffering litmus: every barrier pairing orders memory", exp_litmus_main },
	{ "points", "thread and caller counts chosen from the topology (measures nothing)", exp_points_main },
	{ "rcu", "userspace RCU reads/s and writes/s per scheme, with torture", exp_rcu_main },
	{ "register", "cost of MEMBARRIER_CMD_REGISTER_* with threads running", exp_register_main },
	{ "schema", "every result table's columns, units and keys (measures nothing)", exp_schema_main },
};
#define NEXP (sizeof(experiments) / sizeof(experiments[0]))

/*
 * Subcommands run by a helper program, found the way git finds its own:
 * `mbbench NAME` runs mbbench-NAME from beside this executable (the build
 * tree) or from the libexec directory (paths.h), with MBBENCH set to this
 * executable so the helper measures with the same build. A Python helper
 * needs python3 on PATH (its #! line runs `env -S python3 -S`): without
 * it, one line naming the package instead of env's. It starts with SIGINT,
 * SIGTERM and SIGHUP blocked and unblocks them once it can clean up after
 * them (analysis/mbresults.py, guard()), so that ^C while Python starts is
 * not a traceback.
 */
static const struct {
	const char *name, *summary;
	int python;
} helpers[] = {
	{ "compare", "compare results folders point by point (A/B)", 1 },
	{ "plot", "render the figures of a results folder", 0 },
	{ "report", "write report.md for a results folder", 1 },
	{ "sweep", "run every experiment into one results folder (make bench)", 0 },
	{ "vm", "fan-out and isolation on the patched kernel in QEMU", 0 },
};
#define NHELPERS (sizeof(helpers) / sizeof(helpers[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: mbbench SUBCOMMAND [options]   (mbbench SUBCOMMAND --help)\n\nexperiments:\n");
	for (size_t i = 0; i < NEXP; i++)
		fprintf(f, "  %-10s %s\n", experiments[i].name, experiments[i].summary);
	fprintf(f, "\nresults folders:\n");
	for (size_t i = 0; i < NHELPERS; i++)
		fprintf(f, "  %-10s %s\n", helpers[i].name, helpers[i].summary);
	fprintf(f, "\nmbbench --version (-V) prints the version. See mbbench(1).\n");
}

/* Whether PROG is an executable file in a directory of PATH, as env finds it. */
static int on_path(const char *prog)
{
	const char *p = getenv("PATH");
	char file[PATH_MAX];
	struct stat st;

	if (!p)
		p = "/bin:/usr/bin";
	for (;;) {
		size_t n = strcspn(p, ":");

		snprintf(file, sizeof(file), "%.*s/%s", n ? (int)n : 1, n ? p : ".", prog);
		if (!stat(file, &st) && S_ISREG(st.st_mode) && !access(file, X_OK))
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int run_helper(const char *name, int python, char **argv)
{
	char prog[64];
	const char *path, *self = self_exe();

	snprintf(prog, sizeof(prog), "mbbench-%s", name);
	path = helper_require(prog);
	if (self && setenv("MBBENCH", self, 1))
		die("setenv: %s", strerror(errno));
	if (python) {
		sigset_t set;

		if (!on_path("python3"))
			die("%s needs python3, which is not installed or not on PATH (apt-get install python3)",
			    name);
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	argv[0] = prog;
	execv(path, argv);
	die("cannot run %s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	check_stdout_at_exit();
	if (argc < 2)
		die_usage("give a subcommand, e.g. mbbench sweep (mbbench --help lists them)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			die_usage("%s takes no arguments, got '%s'", argv[1], argv[2]);
		printf("mbbench (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NEXP; i++)
		if (!strcmp(argv[1], experiments[i].name)) {
			/*
			 * A file size limit (RLIMIT_FSIZE) makes a write fail
			 * with EFBIG, which the writer reports and cleans up
			 * after, instead of killing the process mid-file.
			 */
			signal(SIGXFSZ, SIG_IGN);
			return experiments[i].main(argc - 1, argv + 1);
		}
	for (size_t i = 0; i < NHELPERS; i++)
		if (!strcmp(argv[1], helpers[i].name))
			return run_helper(helpers[i].name, helpers[i].python, argv + 1);
	{
		char names[512] = "";

		for (size_t i = 0; i < NEXP; i++) {
			strcat(names, i ? ", " : "");
			strcat(names, experiments[i].name);
		}
		for (size_t i = 0; i < NHELPERS; i++) {
			strcat(names, ", ");
			strcat(names, helpers[i].name);
		}
		die_usage("unknown subcommand '%s' (valid: %s)", argv[1], names);
	}
}
