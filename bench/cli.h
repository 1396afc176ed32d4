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
	const char *json_path;
	int json_fd;	/* --json -: the real stdout, while stdout goes to /dev/null */
	const char *outdir;
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
	CO_ALL = (1 << 11) - 1,
};

struct exp_spec {
	const char *name;
	const char *synopsis;	/* one line */
	unsigned common;	/* CO_* accepted */
	const struct option *extra;	/* NULL-terminated, codes >= 1000 */
	const char *extra_help;	/* lines for usage() */
	/* Returns 0, or -1 for a bad value (the handler prints nothing). */
	int (*handle)(int code, const char *arg, void *state);
	const char *(*bad_value)(int code);	/* the fix, for the error line */
	void *state;
	/* defaults */
	const char *def_mech;
	const char *def_threads;	/* NULL = 1..ncpus */
	double def_duration_s;
	int def_repeat;
	/* --threads counts other threads, so 0 is valid (default: >= 1). */
	int threads_zero_ok;
};

void opts_parse(int argc, char **argv, const struct exp_spec *spec, struct opts *o);
void usage_exp(FILE *f, const struct exp_spec *spec);
/* Restrict memory to o->membind when given (libnuma). */
void opts_apply_membind(const struct opts *o);
void opts_free(struct opts *o);

#endif
