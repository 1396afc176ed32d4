// SPDX-License-Identifier: MIT
/*
 * mbbench: measure and characterize process-wide memory barriers on Linux
 * (membarrier commands, the 2010 sys_membarrier designs on a patched kernel,
 * signals, the mprotect trick, and a plain fence).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "experiment.h"
#include "util.h"

static const struct experiment experiments[] = {
	{ "calls", "barrier calls/s vs thread count, per mechanism", exp_calls_main },
	{ "contend", "C concurrent callers: aggregate and per-caller barriers/s", exp_contend_main },
	{ "disturb", "IPIs and latency a barrier storm causes on other CPUs", exp_disturb_main },
	{ "info", "host facts recorded with every result", exp_info_main },
	{ "latency", "per-call latency distribution per mechanism", exp_latency_main },
	{ "list", "every mechanism, available here or why not", exp_list_main },
	{ "litmus", "store-buffering litmus: every barrier pairing orders memory", exp_litmus_main },
	{ "rcu", "userspace RCU reads/s and writes/s per scheme, with torture", exp_rcu_main },
	{ "register", "cost of MEMBARRIER_CMD_REGISTER_* with threads running", exp_register_main },
};
#define NEXP (sizeof(experiments) / sizeof(experiments[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: mbbench SUBCOMMAND [options]   (mbbench SUBCOMMAND --help)\n\nsubcommands:\n");
	for (size_t i = 0; i < NEXP; i++)
		fprintf(f, "  %-10s %s\n", experiments[i].name, experiments[i].summary);
	fprintf(f, "\nmbbench --version prints the version. See mbbench(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("mbbench (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NEXP; i++)
		if (!strcmp(argv[1], experiments[i].name))
			return experiments[i].main(argc - 1, argv + 1);
	{
		char names[256] = "";

		for (size_t i = 0; i < NEXP; i++) {
			strcat(names, i ? ", " : "");
			strcat(names, experiments[i].name);
		}
		die_usage("unknown subcommand '%s' (valid: %s)", argv[1], names);
	}
}
