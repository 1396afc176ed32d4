/* SPDX-License-Identifier: MIT */
/*
 * The two-level command line: common options parsed once here, then each
 * experiment's own options through its handler. Bad input exits 2 with one
 * line naming the fix, before anything is measured or written.
 */
#ifndef MBBENCH_CLI_H
#define MBBENCH_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "behaviour.h"
#include "mech.h"
#include "output.h"
#include "topo.h"

#define MAX_THREADS 4096
#define MAX_REPEAT 100000
#define MAX_DURATION_S 86400.0
#define MAX_ITERATIONS 10000000000ull

struct opts {
	const char *exp;
	const struct mechanism **mechs;
	int nmechs;
	int *threads;
	int nthreads;
	const char *placement;
	enum behaviour beh;
	double duration_s;	/* per repeat; used when iterations == 0 */
	uint64_t iterations;
	int repeat;
	enum out_format format;
	const char *json_path;	/* "-", or the file (a symbolic link resolved) */
	int json_fd;	/* --json -: the real stdout, while stdout goes to /dev/null */
	const char *outdir;	/* a symbolic link resolved */
	int force;	/* --force: replace earlier results */
	int keep_degraded;	/* --keep-degraded: count degraded repeats, keep them */
	char *json_alloc, *outdir_alloc;
	int membind;		/* NUMA node or -1 */
	int other_process;
	int argc;
	char **argv;
	hwloc_topology_t topo;
};

/* Which common options an experiment accepts. */
enum {
	CO_MECH = 1 << 0,
	CO_THREADS = 1 << 1,
	CO_PLACEMENT = 1 << 2,
	CO_BEHAVIOUR = 1 << 3,
	CO_DURATION = 1 << 4,	/* --duration and --iterations */
	CO_REPEAT = 1 << 5,
	CO_FORMAT = 1 << 6,
	CO_JSON = 1 << 7,
	CO_OUTPUT = 1 << 8,
	CO_MEMBIND = 1 << 9,
	CO_OTHER_PROCESS = 1 << 10,
	CO_WORK = 1 << 11,	/* --keep-degraded: the experiment judges its repeats */
	CO_PLANT = 1 << 12,	/* --plant: its barriers run through harness_measure */
	CO_PLANT_SYSCALL = 1 << 13,	/* --plant-syscall: it makes expedited membarrier(2) calls */
	CO_ALL = (1 << 14) - 1,
};

/*
 * An experiment's own option, declared once: cli.c builds the getopt table,
 * the usage lines and the one-line error ("bad value 'x' for --name FIX")
 * from it. Build a table with the OPT_* macros, ended by OPT_END().
 */
enum opt_kind {
	OPTK_END,
	OPTK_FLAG,	/* int *dest = 1 */
	OPTK_INT,	/* int *dest in [min, max] */
	OPTK_U64,	/* uint64_t *dest in [min, max] */
	OPTK_STRING,	/* const char **dest, as given */
	OPTK_CHOICE,	/* int *dest = index of the value in choices */
	OPTK_INT_LIST,	/* int **dest, int *count: "1,2,4" or "1-8" in [min, max] */
	OPTK_CALLBACK,	/* parse(arg, dest): 0, or -1 for a bad value */
};

struct exp_opt {
	enum opt_kind kind;
	const char *name;	/* without the dashes */
	const char *arg;	/* the value's name in usage; NULL for a flag */
	const char *help;	/* '\n' starts an indented continuation line */
	void *dest;
	uint64_t min, max;
	const char *const *choices;	/* OPTK_CHOICE, NULL-terminated */
	int *count;			/* OPTK_INT_LIST */
	int (*parse)(const char *arg, void *dest);	/* OPTK_CALLBACK */
	const char *fix;	/* how to write it, for the error line */
};

#define OPT_FLAG(n, h, d) \
	{ .kind = OPTK_FLAG, .name = (n), .help = (h), .dest = (d) }
#define OPT_INT(n, a, h, d, lo, hi, f) \
	{ .kind = OPTK_INT, .name = (n), .arg = (a), .help = (h), .dest = (d), \
	  .min = (lo), .max = (hi), .fix = (f) }
#define OPT_U64(n, a, h, d, lo, hi, f) \
	{ .kind = OPTK_U64, .name = (n), .arg = (a), .help = (h), .dest = (d), \
	  .min = (lo), .max = (hi), .fix = (f) }
#define OPT_STRING(n, a, h, d) \
	{ .kind = OPTK_STRING, .name = (n), .arg = (a), .help = (h), .dest = (d) }
#define OPT_CHOICE(n, a, h, d, ch, f) \
	{ .kind = OPTK_CHOICE, .name = (n), .arg = (a), .help = (h), .dest = (d), \
	  .choices = (ch), .fix = (f) }
#define OPT_INT_LIST(n, a, h, d, cnt, lo, hi, f) \
	{ .kind = OPTK_INT_LIST, .name = (n), .arg = (a), .help = (h), .dest = (d), \
	  .count = (cnt), .min = (lo), .max = (hi), .fix = (f) }
#define OPT_CALLBACK(n, a, h, d, fn, f) \
	{ .kind = OPTK_CALLBACK, .name = (n), .arg = (a), .help = (h), .dest = (d), \
	  .parse = (fn), .fix = (f) }
#define OPT_END() { .kind = OPTK_END }

struct exp_spec {
	const char *name;
	const char *synopsis;	/* one line */
	unsigned common;	/* CO_* accepted */
	const struct exp_opt *opts;	/* the experiment's own, or NULL */
	const char *extra_help;	/* further lines for usage() */
	/* defaults */
	const char *def_mech;
	const char *def_threads;	/* NULL = 1..ncpus */
	double def_duration_s;
	int def_repeat;
	/* --threads counts other threads, so 0 is valid (default: >= 1). */
	int threads_zero_ok;
};

/* --force is offered with --json or --output. */
#define CO_FORCE (CO_JSON | CO_OUTPUT)

void opts_parse(int argc, char **argv, const struct exp_spec *spec, struct opts *o);
/*
 * The errors of a getopt_long loop of subcommand cmd (also one written by
 * hand): getopt_bad for the ':' (a missing value) and '?' cases,
 * getopt_no_args after the loop (an argument left over). One line, exit 2.
 */
__attribute__((noreturn)) void getopt_bad(const char *cmd, int c, char **argv);
void getopt_no_args(const char *cmd, int argc, char **argv);
void usage_exp(FILE *f, const struct exp_spec *spec);
/* Restrict memory to o->membind when given (libnuma). */
void opts_apply_membind(const struct opts *o);
void opts_free(struct opts *o);

#endif
