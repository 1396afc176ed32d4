// SPDX-License-Identifier: MIT
/*
 * The command line (bench/harness/cli.c): opts_parse with the calls experiment's
 * option table, or with a table holding one option of every kind, on an
 * argv made of the input's lines (the first byte picks the table). It
 * parses only; nothing is measured. Bad input ends in exit(2) after one
 * line, --help in exit(0): exit is wrapped (-Wl,--wrap=exit) to come back
 * here, and what the parse left in struct opts is freed. What the code
 * before an exit had allocated for itself is the exit's to free, so this
 * target checks for memory errors and undefined behaviour, not leaks.
 */
#include "config.h"

#include <getopt.h>
#include <setjmp.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"

#define MAX_ARGS 64

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static jmp_buf back;
static int parsing;

void __wrap_exit(int status)
{
	if (parsing) {
		parsing = 0;
		longjmp(back, 1 + (status & 0xff));
	}
	__real_exit(status);
}

/* exp-calls.c's table. */
static int ci_target, max_repeat = 30;
static const struct exp_opt calls_opts[] = {
	OPT_INT("ci-target", "PCT", "within PCT% of the mean", &ci_target, 0, 50,
		"(a percentage from 0 to 50)"),
	OPT_INT("max-repeat", "N", "the most repeats", &max_repeat, 2, 100000,
		"(a count from 2 to 100000)"),
	OPT_END(),
};

/* One of every kind. */
static int flag, integer, choice, *list, nlist, cb;
static uint64_t u64;
static const char *string, *names;
static const char *const choices[] = { "rr", "fifo", "other", NULL };

static int parse_onoff(const char *arg, void *dest)
{
	if (!strcmp(arg, "on") || !strcmp(arg, "off")) {
		*(int *)dest = arg[1] == 'n';
		return 0;
	}
	return -1;
}

static const struct exp_opt every_opts[] = {
	OPT_FLAG("flag", "a flag", &flag),
	OPT_INT("int", "N", "an int\nover two lines", &integer, 1, 64, "(1 to 64)"),
	OPT_U64("u64", "N", "a count", &u64, 0, MAX_ITERATIONS, "(a count)"),
	OPT_STRING("string", "TEXT", "a string", &string),
	OPT_STRING("names", "LIST", "names", &names),
	OPT_CHOICE("policy", "rr|fifo|other", "a choice", &choice, choices, "(rr, fifo or other)"),
	OPT_INT_LIST("cpus", "LIST", "a list", &list, &nlist, 0, 4095, "(like 0,2-3)"),
	OPT_CALLBACK("switch", "on|off", "a callback", &cb, parse_onoff, NULL),
	OPT_END(),
};

static const struct exp_spec specs[] = {
	{
		.name = "calls", .synopsis = "Barrier calls per second.",
		.common = CO_ALL, .opts = calls_opts, .def_mech = "all",
		.def_duration_s = 0.5, .def_repeat = 3,
	},
	{
		.name = "every", .synopsis = "Every kind of option.",
		.common = CO_THREADS | CO_PLACEMENT | CO_DURATION | CO_FORMAT | CO_MECH,
		.opts = every_opts, .def_mech = "null", .def_threads = "ncpus",
		.threads_zero_ok = 1,
	},
	{
		.name = "bare", .synopsis = "Common options only.",
		.common = CO_REPEAT | CO_JSON | CO_OUTPUT, .def_threads = "1,2",
	},
};

static struct opts o;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char *args[MAX_ARGS + 1], *copy;
	const struct exp_spec *spec;
	int argc = 0, saved_stdout;

	if (!ready) {
		/* A fixed small machine: the host's topology is not input. */
		unsetenv("HWLOC_SYNTHETIC");
		unsetenv("HWLOC_XMLFILE");
		setenv("MBBENCH_SYNTHETIC", "pack:1 core:2 pu:1", 1);
		ready = 1;
	}
	if (size < 1)
		return 0;
	spec = &specs[data[0] % (sizeof(specs) / sizeof(specs[0]))];
	copy = fuzz_str(data + 1, size - 1);
	args[argc++] = (char *)spec->name;
	for (char *p = copy, *next; *p && argc < MAX_ARGS; p = next) {
		next = fuzz_line(p);
		args[argc++] = p;
	}
	args[argc] = NULL;

	/* glibc's getopt keeps its place in the last argv unless optind is 0. */
	optind = 0;
	getopt(1, (char *[]){ "reset", NULL }, "");
	free(list);
	list = NULL;
	saved_stdout = dup(STDOUT_FILENO);
	fflush(stdout);
	if (!setjmp(back)) {
		parsing = 1;
		opts_parse(argc, args, spec, &o);
		parsing = 0;
		FUZZ_CHECK(o.nmechs >= 1 && o.repeat >= 1);
		for (int i = 0; i < o.nthreads; i++)
			FUZZ_CHECK(o.threads[i] >= (spec->threads_zero_ok ? 0 : 1) &&
				   o.threads[i] <= MAX_THREADS);
	}
	/* --json - sends stdout to /dev/null; take it back. */
	fflush(stdout);
	if (saved_stdout >= 0) {
		dup2(saved_stdout, STDOUT_FILENO);
		close(saved_stdout);
	}
	if (o.json_fd > 0)
		close(o.json_fd);
	opts_free(&o);
	memset(&o, 0, sizeof(o));
	free(copy);
	return 0;
}
