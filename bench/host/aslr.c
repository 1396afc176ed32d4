// SPDX-License-Identifier: MIT
/*
 * One memory layout for every point of a sweep: whether this host lets a
 * process run with address-space randomization off, under what prefix
 * (setarch ARCH -R, or busybox's linux64 -R in a guest), and the state the
 * points ran in, for `mbbench plan --format lines` (exp-plan.c). A seccomp
 * filter may refuse personality(2), so that is tried in a child.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aslr.h"
#include "strbuf.h"

/* The path of a program on PATH, or NULL (malloc'd). */
static char *on_path(const char *name)
{
	const char *path = getenv("PATH");

	for (const char *d = path ? path : ""; *d; d += strcspn(d, ":") + (d[strcspn(d, ":")] == ':')) {
		char *f = xasprintf("%.*s/%s", (int)strcspn(d, ":"), d, name);

		if (!access(f, X_OK))
			return f;
		free(f);
	}
	return NULL;
}

/* Whether this process may turn address-space randomization off (a
 * seccomp filter may refuse personality(2)): tried in a child. */
static int norand_allowed(void)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE) == -1);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

/*
 * One memory layout for every run of this build (--aslr off, the default):
 * with randomization, which cache sets the hot data of two threads share
 * changes from one process to the next (docs/FINDINGS.md). Prints the
 * prefix each point runs under ("norand", setarch ARCH -R; busybox in a
 * guest has linux64 -R) and the state the points ran in ("aslr"), and
 * "note" where it cannot be had.
 */
void print_aslr(int off)
{
	char va[32] = "", state[160], prefix[96] = "", *setarch, *linux64;
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
	struct utsname u;

	if (f) {
		if (!fgets(va, sizeof(va), f))
			va[0] = '\0';
		va[strcspn(va, "\n")] = '\0';
		fclose(f);
	}
	snprintf(state, sizeof(state), "on (kernel.randomize_va_space=%s)", *va ? va : "unknown");
	if (!strcmp(va, "0"))
		snprintf(state, sizeof(state), "off (kernel.randomize_va_space=0)");
	else if (off) {
		setarch = on_path("setarch");
		linux64 = setarch ? NULL : on_path("linux64");
		if (setarch && !uname(&u))
			snprintf(prefix, sizeof(prefix), "setarch %s -R", u.machine);
		else if (linux64)
			snprintf(prefix, sizeof(prefix), "linux64 -R");
		if (*prefix && norand_allowed()) {
			snprintf(state, sizeof(state), "off (every point under %s)", prefix);
		} else {
			printf("note %s: points run with address-space randomization on\n",
			       *prefix ? "setarch -R was refused" : "setarch not found");
			snprintf(state + strlen(state), sizeof(state) - strlen(state), ": %s, so layouts vary",
				 *prefix ? "setarch -R was refused here (a seccomp filter?)" : "setarch not found (util-linux)");
			prefix[0] = '\0';
		}
		free(setarch);
		free(linux64);
	}
	printf("norand %s\naslr %s\n", prefix, state);
}
