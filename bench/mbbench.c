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
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "paths.h"
#include "strbuf.h"
#include "util.h"

/* The subcommands (exp-registry.c) by name, for --help and errors. */
static const struct experiment **sorted;
static size_t nexp;

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct experiment *const *)a)->name,
		      (*(const struct experiment *const *)b)->name);
}

static void sort_experiments(void)
{
	sorted = xcalloc(nr_experiments, sizeof(*sorted));
	for (nexp = 0; nexp < nr_experiments; nexp++)
		sorted[nexp] = experiments[nexp];
	qsort(sorted, nexp, sizeof(sorted[0]), by_name);
}

/*
 * Subcommands run by a helper program, found the way git finds its own:
 * `mbbench NAME` runs mbbench-NAME from beside this executable (the build
 * tree) or from the libexec directory (paths.h), with MBBENCH set to this
 * executable so the helper measures with the same build. A Python helper
 * needs the python3 its #! line names (configure's, written by make; the
 * source tree's runs `env -S python3 -S`, python3 on PATH): without it,
 * one line naming the package instead of env's. It starts with SIGINT,
 * SIGTERM and SIGHUP blocked and unblocks them once it can clean up after
 * them (analysis/mbguard.py, guard()), so that ^C while Python starts is
 * not a traceback.
 */
static const struct {
	const char *name, *summary;
	int python;
} helpers[] = {
	{ "advise", "rank the rcu schemes by predicted cost for a workload", 1 },
	{ "calibrate", "find what an A/B can see here: plant a change, count it found", 1 },
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
	for (size_t i = 0; i < nexp; i++)
		fprintf(f, "  %-10s %s\n", sorted[i]->name, sorted[i]->summary);
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

/*
 * Whether a Python helper's interpreter is there: the absolute one its #!
 * line names (make writes configure's python3 there, which need not be on
 * PATH), else python3 on PATH (`env -S python3`, the source tree's line).
 * Fills interp with what was looked for.
 */
static int interpreter_ok(const char *helper, char *interp, size_t len)
{
	char line[512] = "";
	FILE *f = fopen(helper, "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	if (!strncmp(line, "#!/", 3) && !strstr(line, "/env ")) {
		size_t n = strcspn(line + 2, " \t\n");
		struct stat st;

		snprintf(interp, len, "%.*s", (int)n, line + 2);
		return !stat(interp, &st) && S_ISREG(st.st_mode) && !access(interp, X_OK);
	}
	snprintf(interp, len, "python3 on PATH");
	return on_path("python3");
}

/*
 * The helpers run a shell, python3 with scipy and gnuplot: below these
 * limits they fail halfway (a traceback, "failed to map segment", a crash
 * of gnuplot, dash unable to open its script), which is the host's limit,
 * not bad input. Say so first, in one line, exit 1, nothing written.
 */
#define HELPER_MIN_FILES 64
#define HELPER_MIN_MB 256

static void check_helper_limits(const char *name)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < HELPER_MIN_FILES)
		fail("the open-file limit is %llu (ulimit -n); mbbench %s needs at least %d: raise it (ulimit -n 1024)",
		     (unsigned long long)rl.rlim_cur, name, HELPER_MIN_FILES);
	for (int i = 0; i < 2; i++) {
		int res = i ? RLIMIT_DATA : RLIMIT_AS;

		if (!getrlimit(res, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < (rlim_t)HELPER_MIN_MB << 20)
			fail("the %s limit is %llu MB (%s); mbbench %s needs at least %d MB (python3 with scipy, gnuplot): raise it",
			     i ? "data-segment" : "address-space",
			     (unsigned long long)(rl.rlim_cur >> 20),
			     i ? "ulimit -d, prlimit --data" : "ulimit -v, prlimit --as", name,
			     HELPER_MIN_MB);
	}
}

static int run_helper(const char *name, int python, char **argv)
{
	char prog[64];
	const char *path, *self = self_exe();

	snprintf(prog, sizeof(prog), "mbbench-%s", name);
	path = helper_require(prog);
	check_helper_limits(name);
	if (self && setenv("MBBENCH", self, 1))
		fail("setenv: %s", strerror(errno));
	if (python) {
		sigset_t set;
		char interp[PATH_MAX];

		if (!interpreter_ok(path, interp, sizeof(interp)))
			fail("%s needs python3 (%s), which is not installed or not on PATH (apt-get install python3)",
			    name, interp);
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	argv[0] = prog;
	execv(path, argv);
	fail("cannot run %s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	check_stdout_at_exit();
	sort_experiments();
	if (argc < 2)
		die("give a subcommand, e.g. mbbench sweep (mbbench --help lists them)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			die("%s takes no arguments, got '%s'", argv[1], argv[2]);
		printf("mbbench (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < nexp; i++)
		if (!strcmp(argv[1], sorted[i]->name)) {
			/*
			 * A file size limit (RLIMIT_FSIZE) makes a write fail
			 * with EFBIG, which the writer reports and cleans up
			 * after, instead of killing the process mid-file.
			 */
			signal(SIGXFSZ, SIG_IGN);
			return sorted[i]->main(argc - 1, argv + 1);
		}
	for (size_t i = 0; i < NHELPERS; i++)
		if (!strcmp(argv[1], helpers[i].name))
			return run_helper(helpers[i].name, helpers[i].python, argv + 1);
	{
		static struct strbuf names = STRBUF_INIT;	/* still held at exit */

		for (size_t i = 0; i < nexp; i++)
			strbuf_addf(&names, "%s%s", i ? ", " : "", sorted[i]->name);
		for (size_t i = 0; i < NHELPERS; i++)
			strbuf_addf(&names, ", %s", helpers[i].name);
		die("unknown subcommand '%s' (valid: %s)", argv[1], strbuf_str(&names));
	}
}
