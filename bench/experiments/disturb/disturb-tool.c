// SPDX-License-Identifier: MIT
/*
 * disturb with a real victim: oslat or cyclictest (rt-tests) run as the
 * victim of a round, one run per phase, their --json read back into the
 * same rows as our own victims'. Process control only; the rows are
 * disturb-rows.c's.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disturb.h"
#include "rtjson.h"
#include "util.h"
#include "victim.h"

/* Free a split command, then exit 2 with the message (nothing is left
 * allocated behind an error, for leak checkers). */
__attribute__((format(printf, 2, 3), noreturn))
static void refuse_cmd(char **argv, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (int i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
	die("%s", msg);
}

/* Split on blanks; the executable must be found now, not mid-run. */
char **disturb_split_cmd(const char *cmd, int *argc, enum role *role, char **tool)
{
	char *copy = xstrdup(cmd), *save = NULL, **argv = NULL, *base;
	int n = 0;

	for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		argv = xrealloc(argv, sizeof(char *) * (size_t)(n + 2));
		argv[n++] = xstrdup(t);
	}
	free(copy);
	if (!n)
		die("--victim-cmd needs a command, e.g. \"oslat -f 5\"");
	argv[n] = NULL;
	if (strchr(argv[0], '/')) {
		if (access(argv[0], X_OK))
			refuse_cmd(argv, "--victim-cmd: '%s' is not an executable file", argv[0]);
	} else {
		const char *path = getenv("PATH");
		char *pc = xstrdup(path ? path : "/usr/bin:/bin"), *sv = NULL;
		int found = 0;

		for (char *d = strtok_r(pc, ":", &sv); d && !found; d = strtok_r(NULL, ":", &sv)) {
			char *p = path_join(d, argv[0]);
			struct stat st;

			found = !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
			free(p);
		}
		free(pc);
		if (!found)
			refuse_cmd(argv, "--victim-cmd: '%s' not found in PATH (Debian: apt-get install rt-tests)", argv[0]);
	}
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (!strcmp(base, "oslat"))
		*role = ROLE_FOREIGN_RT;
	else if (!strcmp(base, "cyclictest"))
		*role = ROLE_FOREIGN_SLEEP;
	else
		refuse_cmd(argv, "--victim-cmd '%s': only oslat or cyclictest (rt-tests) are understood", argv[0]);
	for (int i = 1; i < n; i++)
		if (!strncmp(argv[i], "--json", 6))
			refuse_cmd(argv, "--victim-cmd: leave out %s, disturb adds its own", "--json");
	*argc = n;
	*tool = xstrdup(base);
	return argv;
}

/* Pace barriers while the tool runs (it needs its own start-up time). */
static void paced_while(const struct mechanism *m, double rate, pid_t pid,
			struct hist *h, struct measure *acc, double limit_s)
{
	uint64_t end = now_ns() + (uint64_t)(limit_s * 1e9);

	memset(acc, 0, sizeof(*acc));
	while (now_ns() < end) {
		struct measure me;
		int st;

		if (waitpid(pid, &st, WNOHANG) == pid) {
			/* Reaped here: keep its status for victim_wait's caller. */
			acc->err = 0;
			return;
		}
		harness_paced(m, rate, 0.05, h, &me);
		acc->calls += me.calls;
		acc->ns += me.ns;
		if (me.err) {
			acc->err = me.err;
			break;
		}
	}
}

/* The real tool's round: one run of the tool per phase. */
void disturb_tool_round(struct run_ctx *c, const struct mechanism *m,
			const struct mechanism *null_mech, int ri, const struct round *rd)
{
	const struct opts *o = c->o;
	int cpu = rd->s[0].cpu, secs = (int)ceil(c->o->duration_s);
	const char *role = role_name(rd->s[0].role);
	int is_oslat = !strcmp(c->tool, "oslat"), has_D = 0, has_cpu = 0;
	struct phase_data pd[2];
	struct hist th[2], caller_h;
	double tool_max[2] = { NAN, NAN };
	char reason[512] = "";
	struct team team;
	struct team_cfg cfg = { 0 };
	struct placement pl = { 0 };
	char err[256];

	memset(pd, 0, sizeof(pd));
	for (int i = 1; i < c->tool_argc; i++) {
		const char *a = c->tool_argv[i];

		has_D |= !strncmp(a, "-D", 2) || !strncmp(a, "--duration", 10);
		has_cpu |= is_oslat ? (!strncmp(a, "-c", 2) || !strncmp(a, "--cpu-list", 10))
				    : (!strncmp(a, "-a", 2) || !strncmp(a, "--affinity", 10));
	}
	pl.n = 1;
	pl.pu_os = xcalloc(1, sizeof(int));
	pl.pu_logical = xcalloc(1, sizeof(int));
	pl.pu_os[0] = c->d->caller_cpu;
	memset(&cfg, 0, sizeof(cfg));
	cfg.topo = o->topo;
	cfg.pl = &pl;
	cfg.mech = m;
	hist_init(&th[0]);
	hist_init(&th[1]);
	hist_init(&caller_h);
	if (team_start(&team, &cfg, err, sizeof(err))) {
		disturb_skip_rows(c, m, ri, role, cpu, c->tool, err);
		goto out;
	}
	harness_warmup(m, 0.02);
	for (int p = 0; p < 2 && !reason[0]; p++) {
		char **argv = xcalloc((size_t)c->tool_argc + 8, sizeof(char *));
		char json[512], log[512], cpus[16], dsec[16], jopt[600];
		struct victim_group g = { 0 };
		struct rt_result rr;
		int n = 0, st;
		uint64_t t0;
		pid_t pid;

		/* Inherited by the victim: /proc/self is then the victim. */
		snprintf(json, sizeof(json), "/proc/self/fd/%d", c->tool_json_fd);
		snprintf(log, sizeof(log), "/proc/self/fd/%d", c->tool_log_fd);
		/* Empty, so nothing of the phase before is read as this one's. */
		if (ftruncate(c->tool_json_fd, 0) || ftruncate(c->tool_log_fd, 0)) {
			snprintf(reason, sizeof(reason), "ftruncate: %s", strerror(errno));
			free(argv);
			break;
		}
		snprintf(cpus, sizeof(cpus), "%d", cpu);
		snprintf(dsec, sizeof(dsec), "%d", secs);
		for (int i = 0; i < c->tool_argc; i++)
			argv[n++] = c->tool_argv[i];
		if (!has_D) {
			argv[n++] = "-D";
			argv[n++] = dsec;
		}
		if (!has_cpu) {
			argv[n++] = is_oslat ? "-c" : "-a";
			argv[n++] = cpus;
		}
		argv[n++] = "-q";
		snprintf(jopt, sizeof(jopt), "--json=%s", json);
		argv[n++] = jopt;
		argv[n] = NULL;
		disturb_snap_begin(c, &pd[p], &t0);
		pid = victim_exec(&g, argv, cpu, secs + 15, log, reason, sizeof(reason));
		if (pid > 0) {
			paced_while(p ? m : null_mech, c->d->rate, pid, p ? &caller_h : NULL,
				    &pd[p].me, secs + 10);
			disturb_snap_end(c, &pd[p], t0);
			st = victim_wait(pid, 5);
			if (g.pgid > 0)
				kill(-g.pgid, SIGKILL);
			(void)st;
			if (rtjson_read(json, &rr, &th[p], reason, sizeof(reason))) {
				FILE *f = fopen(log, "r");
				char line[200] = "";

				if (f) {
					if (!fgets(line, sizeof(line), f))
						line[0] = '\0';
					fclose(f);
					line[strcspn(line, "\n")] = '\0';
				}
				if (line[0]) {
					size_t l = strlen(reason);

					snprintf(reason + l, sizeof(reason) - l, " (%s said: %s)", c->tool, line);
				}
			} else if (!th[p].count) {
				/* cyclictest without -h: only min/avg/max. */
				tool_max[p] = rr.max_ns;
				if (p)
					results_note(c->res, "%s gave no histogram (cyclictest needs -h N): only max_ns is reported", c->tool);
			} else if (rr.overflow) {
				results_note(c->res, "%s %s: %llu samples in its last, open-ended histogram bucket; percentiles there are lower bounds",
					     c->tool, p ? "storm" : "baseline", (unsigned long long)rr.overflow);
			}
		} else {
			disturb_phase_free(&pd[p]);
			memset(&pd[p], 0, sizeof(pd[p]));
		}

		free(g.v);
		free(argv);
	}
	team_stop(&team);
	if (reason[0]) {
		disturb_skip_rows(c, m, ri, role, cpu, c->tool, reason);
		goto out;
	}
	for (int p = 0; p < 2; p++) {
		const char *ph = p ? "storm" : "baseline";
		int r = disturb_row(c, m, ri, role, cpu, ph, c->tool);

		disturb_counter_cells(c, r, cpu, &pd[p], &pd[0], p);
		table_set_str(c->t, r, "policy", "the tool's own");
		disturb_hist_cells(c->t, r, &th[p], NULL);
		if (!th[p].count)
			table_set_num(c->t, r, "max_ns", tool_max[p]);
		r = disturb_row(c, m, ri, "caller", c->d->caller_cpu, ph, "mbbench");
		disturb_counter_cells(c, r, c->d->caller_cpu, &pd[p], &pd[0], p);
		if (p)
			disturb_hist_cells(c->t, r, &caller_h, NULL);
	}
out:
	disturb_phase_free(&pd[0]);
	disturb_phase_free(&pd[1]);
	hist_free(&th[0]);
	hist_free(&th[1]);
	hist_free(&caller_h);
	free(pl.pu_os);
	free(pl.pu_logical);
}
