// SPDX-License-Identifier: MIT
/*
 * register: the cost of MEMBARRIER_CMD_REGISTER_* with 0, 1, N other
 * threads already running, of the first barrier after it, and of a barrier
 * in steady state; also of creating a thread before and after registration.
 * Registering once other threads exist makes the kernel wait for a grace
 * period (sync_runqueues_membarrier_state), which runtimes that register
 * lazily (.NET) paid at start-up. Each repeat is a fresh process, since a
 * registration cannot be undone.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "barrier.h"
#include "experiment.h"
#include "paths.h"
#include "register-child.h"
#include "results.h"
#include "util.h"


static const struct col reg_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "the barrier"),
	COL_INFO("register_command", COL_STR, "", 0, "the `MEMBARRIER_CMD_REGISTER_*` it needs"),
	COL_KEY("other_threads", COL_INT, "", COL_REQ, "threads running besides the registering one"),
	COL_KEY_IN("behaviour", "spin|sleep", COL_REQ | COL_SETTING, "what they do (`spin` or `sleep`)"),
	COL_COUNT("repeats", COL_INT, COL_POS, "fresh processes measured"),
	COL_MEASURE("register_ns", COL_NUM, "ns", LOWER, MEAN, COL_REQ, "time of the registration call"),
	COL_CI95("register_ns_ci95", "register_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("first_barrier_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "the first barrier after it"),
	COL_CI95("first_barrier_ns_ci95", "first_barrier_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("steady_barrier_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "mean of the next 200 barriers"),
	COL_MEASURE("thread_create_unregistered_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ,
		    "pthread_create + join of an empty thread before registration (mean of 20)"),
	COL_MEASURE("thread_create_registered_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ,
		    "pthread_create + join of an empty thread after registration (mean of 20)"),
	COL_STATUS("status", COL_REQ, "`ok` or `skipped` (a mechanism with no registration is skipped)"),
	COL_STATUS("skip_reason", 0, "why a skipped row could not be measured"),
};

const struct table_schema register_table = {
	.name = "register", .experiment = "register", .analysed = 1,
	.rows = "One row per (mechanism, other_threads). Each repeat is a fresh process that starts `other_threads` threads (`--behaviour`), then registers.",
	.cols = reg_cols, .ncols = NCOLS(reg_cols),
};

int register_fresh(const char *helper, const struct mechanism *m, int nother,
		   const char *placement, enum behaviour beh, struct sample *s)
{
	int p[2], st = 0;
	pid_t pid;
	ssize_t n;

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char fd[16], others[16];

		close(p[0]);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		snprintf(others, sizeof(others), "%d", nother);
		execl(helper, helper, fd, m->name, others, placement,
		      behaviour_name(beh), (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], s, sizeof(*s));
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*s)) {
		memset(s, 0, sizeof(*s));
		s->err = EIO;
		if (WIFSIGNALED(st))
			snprintf(s->why, sizeof(s->why), "measuring process mbbench-fresh was killed by signal %d",
				 WTERMSIG(st));
		else
			snprintf(s->why, sizeof(s->why), "measuring process mbbench-fresh failed (exit status %d)",
				 WEXITSTATUS(st));
	}
	return 0;
}

static int exp_register_main(int argc, char **argv)
{
	struct exp_spec spec = {
		.name = "register",
		.synopsis = "Registration cost: REGISTER_* with N other threads running, first barrier, thread creation.",
		.common = CO_MECH | CO_THREADS | CO_PLACEMENT | CO_BEHAVIOUR | CO_REPEAT |
			  CO_FORMAT | CO_JSON | CO_OUTPUT,
		.extra_help = "  --threads here counts the OTHER threads running at registration (0 allowed)\n",
		.def_mech = "membarrier-global-expedited,membarrier-private-expedited,"
			    "membarrier-private-expedited-sync-core,membarrier-private-expedited-rseq",
		.def_threads = "0,1",
		.threads_zero_ok = 1,
		.def_repeat = 5,
	};
	struct opts o;
	struct table t;
	struct results res;
	int npoints, pointno = 0;
	const char *helper;

	opts_parse(argc, argv, &spec, &o);
	/* Part of the installation: missing is an error, not a skip. */
	helper = helper_require("mbbench-fresh");
	table_init(&t, reg_cols, (int)(sizeof(reg_cols) / sizeof(reg_cols[0])));
	results_begin(&res, &o, &t);
	npoints = o.nmechs * o.nthreads;
	for (int mi = 0; mi < o.nmechs; mi++) {
		const struct mechanism *m = o.mechs[mi];
		int reg = membarrier_register_cmd(m->membarrier_cmd);
		char reason[256];

		for (int ti = 0; ti < o.nthreads; ti++) {
			int nother = o.threads[ti], row = table_add_row(&t);
			double *regs = xcalloc((size_t)o.repeat, sizeof(double));
			double *firsts = xcalloc((size_t)o.repeat, sizeof(double));
			double steady = 0, cb = 0, ca = 0;
			int cb_bad = 0, ca_bad = 0;	/* pthread_create failed: no figure */
			struct summary sr, sf;
			struct sample s;
			int bad = 0;

			progress("register", ++pointno, npoints, m->name);
			table_set_str(&t, row, "mechanism", m->name);
			table_set_int(&t, row, "other_threads", nother);
			table_set_str(&t, row, "behaviour", behaviour_name(o.beh));
			if (!reg) {
				snprintf(reason, sizeof(reason), "%s needs no registration", m->name);
				bad = 1;
			} else if (mech_probe(m, reason, sizeof(reason))) {
				bad = 1;
			}
			if (reg)
				table_set_str(&t, row, "register_command", membarrier_cmd_name(reg));
			for (int r = 0; r < o.repeat && !bad; r++) {
				if (register_fresh(helper, m, nother, o.placement, o.beh, &s) || s.err) {
					snprintf(reason, sizeof(reason), "%.200s", s.why[0] ? s.why : "fork failed");
					bad = 1;
					break;
				}
				regs[r] = s.reg_ns;
				firsts[r] = s.first_ns;
				steady += s.steady_ns / o.repeat;
				cb += s.create_before_ns / o.repeat;
				ca += s.create_after_ns / o.repeat;
				cb_bad |= s.create_before_ns < 0;
				ca_bad |= s.create_after_ns < 0;
			}
			if (bad) {
				row_skip(&t, row, reason);
			} else {
				summarize(regs, o.repeat, &sr);
				summarize(firsts, o.repeat, &sf);
				table_set_int(&t, row, "repeats", o.repeat);
				table_set_num(&t, row, "register_ns", sr.mean);
				table_set_num(&t, row, "register_ns_ci95", sr.ci95);
				table_set_num(&t, row, "first_barrier_ns", sf.mean);
				table_set_num(&t, row, "first_barrier_ns_ci95", sf.ci95);
				table_set_num(&t, row, "steady_barrier_ns", steady);
				if (!cb_bad)
					table_set_num(&t, row, "thread_create_unregistered_ns", cb);
				if (!ca_bad)
					table_set_num(&t, row, "thread_create_registered_ns", ca);
				if (cb_bad || ca_bad)
					results_note(&res, "%s with %d other threads: thread creation not measured (pthread_create failed: a thread limit such as RLIMIT_NPROC)",
						     m->name, nother);
				table_set_str(&t, row, "status", "ok");
			}
			free(regs);
			free(firsts);
		}
	}
	results_note(&res, "each repeat is a fresh process; thread creation is pthread_create + join of an empty thread, mean of %d", CREATE_SAMPLES);
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return 0;
}

/* The sweep: every membarrier command that has a registration. */
static const struct mech_pick register_picks[] = {
	{ .all = MC_REGISTER, .cmd = PICK_SOME_CMD },
};

/* The preset's thread counts; without them 0, 1, 2, N and 2N. */
static void register_threads(const struct preset *p, const struct plan_host *h,
			     char *buf, size_t len)
{
	int v[] = { 0, 1, 2, h->npus, 2 * h->npus };
	size_t n = 0;

	if (p->threads) {
		snprintf(buf, len, "%s", p->threads);
		return;
	}
	buf[0] = '\0';
	for (int last = -1;;) {	/* ascending, each once */
		int next = -1;

		for (int i = 0; i < 5; i++)
			if (v[i] > last && (next < 0 || v[i] < next))
				next = v[i];
		if (next < 0)
			return;
		n += snprintf(buf + n, len - n, "%s%d", n ? "," : "", next);
		last = next;
	}
}

static double register_cost(const struct preset *p, const struct plan_host *h,
			    const struct mechanism *m)
{
	char list[64];
	int n, *t;
	double s = 0.05;

	(void)m;
	register_threads(p, h, list, sizeof(list));
	t = plan_counts(list, &n);
	for (int i = 0; i < n; i++)
		s += p->repeat * (0.03 + PLAN_TH * t[i]);
	free(t);
	return s;
}

static void register_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	char list[64];

	register_threads(p, h, list, sizeof(list));
	fprintf(f, " --placement %s%s --threads %s --repeat %d", h->placement, h->behaviour,
		list, p->repeat);
}

const struct experiment exp_register = {
	.tables = (const struct table_schema *const[]){ &register_table, NULL },
	.name = "register",
	.summary = "cost of MEMBARRIER_CMD_REGISTER_* with threads running",
	.main = exp_register_main,
	.quick = { .repeat = 1, .threads = "0,1" },
	.full = { .repeat = 4 },
	.cut = CUT_HALVE,
	.picks = register_picks,
	.npicks = NPICKS(register_picks),
	.cost = register_cost,
	.options = register_options,
};
