// SPDX-License-Identifier: MIT
/*
 * disturb: what one process's barriers do to every other CPU. A caller
 * issues barriers at a fixed rate; each other CPU is given a role (idle, a
 * spinning or sleeping thread of the caller's process, a spinning, RT
 * busy-polling or periodically sleeping thread of another process). Each
 * round is run twice, a quiet baseline (the same paced loop, no barrier) and
 * the storm, and per CPU we count the function-call IPIs received, those
 * requested by a membarrier callback, TLB shootdowns, idle entries, signals
 * delivered, and the victims' loop gaps (oslat method) or wake-up latency
 * (cyclictest method). The seed's claim under test: v5/PRIVATE_EXPEDITED
 * IPIs only the CPUs running the caller's threads, v1 every CPU.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiment.h"
#include "ipicount.h"
#include "results.h"
#include "rtjson.h"
#include "util.h"
#include "victim.h"

#define MAX_RATE 10000000ull
#define WARMUP_S 0.1

static const struct col disturb_cols[] = {
	{ "mechanism", COL_STR },
	{ "round", COL_INT },
	{ "role", COL_STR },
	{ "cpu", COL_INT },
	{ "phase", COL_STR },
	{ "victim", COL_STR },
	{ "policy", COL_STR },
	{ "rate_per_s", COL_NUM },
	{ "elapsed_s", COL_NUM },
	{ "barriers", COL_INT },
	{ "ipi_source", COL_STR },
	{ "ipis", COL_INT },
	{ "ipis_per_barrier", COL_NUM },
	{ "mb_ipis", COL_INT },
	{ "mb_ipis_per_barrier", COL_NUM },
	{ "tlb_shootdowns", COL_INT },
	{ "tlb_per_barrier", COL_NUM },
	{ "idle_entries", COL_INT },
	{ "signals", COL_INT },
	{ "oncpu_fraction", COL_NUM },
	{ "samples", COL_INT },
	{ "p50_ns", COL_NUM },
	{ "p99_ns", COL_NUM },
	{ "p999_ns", COL_NUM },
	{ "max_ns", COL_NUM },
	{ "status", COL_STR },
	{ "skip_reason", COL_STR },
};

enum {
	OPT_CALLER_CPU = 1000,
	OPT_IN_TURN,
	OPT_IPI_SOURCE,
	OPT_RATE,
	OPT_ROLES,
	OPT_RT_PRIO,
	OPT_VICTIM_CMD,
};

static const struct option disturb_opts[] = {
	{ "caller-cpu", required_argument, NULL, OPT_CALLER_CPU },
	{ "in-turn", no_argument, NULL, OPT_IN_TURN },
	{ "ipi-source", required_argument, NULL, OPT_IPI_SOURCE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "roles", required_argument, NULL, OPT_ROLES },
	{ "rt-prio", required_argument, NULL, OPT_RT_PRIO },
	{ "victim-cmd", required_argument, NULL, OPT_VICTIM_CMD },
	{ NULL, 0, NULL, 0 },
};

struct dstate {
	double rate;		/* per second; 0 = max */
	int caller_cpu;		/* -1 = first CPU of the compact placement */
	int in_turn;
	enum ipi_source src;
	int rt_prio;
	const char *roles;
	const char *victim_cmd;
};

struct slot {
	enum role role;
	int cpu;
};

struct round {
	int n;
	struct slot s[64];
	int tool;		/* this round runs --victim-cmd */
};

static int disturb_handle(int code, const char *arg, void *state)
{
	struct dstate *d = state;
	uint64_t v;

	switch (code) {
	case OPT_CALLER_CPU:
		if (parse_u64(arg, 0, 1u << 20, &v))
			return -1;
		d->caller_cpu = (int)v;
		return 0;
	case OPT_IN_TURN:
		d->in_turn = 1;
		return 0;
	case OPT_IPI_SOURCE:
		if (!strcmp(arg, "auto"))
			d->src = IPI_SRC_AUTO;
		else if (!strcmp(arg, "tracepoint"))
			d->src = IPI_SRC_TRACEPOINT;
		else if (!strcmp(arg, "proc"))
			d->src = IPI_SRC_PROC;
		else
			return -1;
		return 0;
	case OPT_RATE: {
		char buf[32];
		size_t l = strlen(arg);

		if (!strcmp(arg, "max")) {
			d->rate = 0;
			return 0;
		}
		/* "1000" or "1000/s" */
		if (l >= sizeof(buf))
			return -1;
		memcpy(buf, arg, l + 1);
		if (l > 2 && !strcmp(buf + l - 2, "/s"))
			buf[l - 2] = '\0';
		if (parse_u64(buf, 1, MAX_RATE, &v))
			return -1;
		d->rate = (double)v;
		return 0;
	}
	case OPT_ROLES:
		d->roles = arg;
		return 0;
	case OPT_RT_PRIO:
		if (parse_u64(arg, 1, 10, &v))
			return -1;
		d->rt_prio = (int)v;
		return 0;
	case OPT_VICTIM_CMD:
		d->victim_cmd = arg;
		return 0;
	}
	return -1;
}

static const char *disturb_bad_value(int code)
{
	switch (code) {
	case OPT_CALLER_CPU:
		return "(a CPU number)";
	case OPT_IPI_SOURCE:
		return "(use auto, tracepoint or proc)";
	case OPT_RATE:
		return "(barriers per second, 1 to 10000000, e.g. 1000 or 1000/s, or max)";
	case OPT_RT_PRIO:
		return "(a SCHED_FIFO priority from 1 to 10: kept modest on purpose)";
	}
	return NULL;
}

/* Is cpu usable: present in the topology and in our affinity mask? */
static int cpu_ok(const struct opts *o, int cpu)
{
	char buf[16], err[256];
	struct placement pl;
	int bad;

	snprintf(buf, sizeof(buf), "%d", cpu);
	if (placement_compute(o->topo, buf, 1, &pl, err, sizeof(err)))
		return 0;
	bad = placement_check_affinity(&pl, err, sizeof(err));
	placement_free(&pl);
	return !bad;
}

/* Split on blanks; the executable must be found now, not mid-run. */
static char **split_cmd(const char *cmd, int *argc, enum role *role, char **tool)
{
	char *copy = xstrdup(cmd), *save = NULL, **argv = NULL, *base;
	int n = 0;

	for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		argv = xrealloc(argv, sizeof(char *) * (size_t)(n + 2));
		argv[n++] = xstrdup(t);
	}
	free(copy);
	if (!n)
		die_usage("--victim-cmd needs a command, e.g. \"oslat -f 5\"");
	argv[n] = NULL;
	if (strchr(argv[0], '/')) {
		if (access(argv[0], X_OK))
			die_usage("--victim-cmd: '%s' is not an executable file", argv[0]);
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
			die_usage("--victim-cmd: '%s' not found in PATH (Debian: apt-get install rt-tests)", argv[0]);
	}
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (!strcmp(base, "oslat"))
		*role = ROLE_FOREIGN_RT;
	else if (!strcmp(base, "cyclictest"))
		*role = ROLE_FOREIGN_SLEEP;
	else
		die_usage("--victim-cmd '%s': only oslat or cyclictest (rt-tests) are understood", argv[0]);
	for (int i = 1; i < n; i++)
		if (!strncmp(argv[i], "--json", 6))
			die_usage("--victim-cmd: leave out --json, disturb adds its own");
	*argc = n;
	*tool = xstrdup(base);
	return argv;
}

/* Roles → rounds of (role, cpu) slots; every bad input dies here. */
static int plan_rounds(const struct opts *o, struct dstate *d, struct round **out,
		       int have_tool, enum role tool_role)
{
	struct placement all;
	char err[256], *copy, *save = NULL;
	struct slot req[64];
	int nreq = 0, npus = topo_npus(o->topo), nvictim = 0, *victims, nrounds;
	struct round *r;

	if (placement_compute(o->topo, "compact", npus, &all, err, sizeof(err)))
		die("%s", err);
	if (d->caller_cpu < 0)
		d->caller_cpu = all.pu_os[0];
	else if (!cpu_ok(o, d->caller_cpu))
		die_usage("--caller-cpu %d: no such CPU, or not in this process's affinity", d->caller_cpu);
	victims = xcalloc((size_t)npus, sizeof(int));
	for (int i = 0; i < npus; i++)
		if (all.pu_os[i] != d->caller_cpu && cpu_ok(o, all.pu_os[i]))
			victims[nvictim++] = all.pu_os[i];
	placement_free(&all);
	if (!nvictim)
		die("disturb needs a CPU besides the caller's; this host offers %d", npus);

	if (!d->roles) {
		for (int i = 0; i < NR_ROLES; i++)
			req[nreq++] = (struct slot){ (enum role)i, -1 };
		if (nreq > nvictim)
			d->in_turn = 1;
	} else {
		copy = xstrdup(d->roles);
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *at = strchr(t, '@');
			enum role role;
			int cpu = -1;

			if (at) {
				uint64_t v;

				*at = '\0';
				if (parse_u64(at + 1, 0, 1u << 20, &v))
					die_usage("--roles: bad CPU '%s' after '@' in %s", at + 1, t);
				cpu = (int)v;
			}
			if (role_parse(t, &role))
				die_usage("unknown role '%s' in --roles (valid: %s)", t, role_names());
			if (nreq == 64)
				die_usage("--roles: at most 64 roles");
			if (cpu >= 0) {
				if (cpu == d->caller_cpu)
					die_usage("--roles: %s@%d is on the caller's CPU %d (choose another CPU, or move the caller with --caller-cpu)",
						  t, cpu, d->caller_cpu);
				if (!cpu_ok(o, cpu))
					die_usage("--roles: %s@%d: no such CPU, or not in this process's affinity", t, cpu);
				if (role == ROLE_FOREIGN_RT && cpu == 0)
					die_usage("--roles: foreign-rt@0: an RT spinner never runs on CPU 0");
			}
			req[nreq++] = (struct slot){ role, cpu };
		}
		free(copy);
		if (!nreq)
			die_usage("--roles needs at least one role (valid: %s)", role_names());
		if (!d->in_turn && nreq > nvictim)
			die_usage("--roles: %d roles but only %d CPU%s besides the caller's (use --in-turn to run them one at a time)",
				  nreq, nvictim, nvictim == 1 ? "" : "s");
	}

	nrounds = d->in_turn ? nreq : 1;
	r = xcalloc((size_t)nrounds + 1, sizeof(*r));
	if (d->in_turn) {
		for (int i = 0; i < nreq; i++) {
			r[i].n = 1;
			r[i].s[0] = req[i];
			if (r[i].s[0].cpu < 0)
				r[i].s[0].cpu = victims[0];
		}
	} else {
		/* Explicit CPUs first, then the rest in topology order. */
		int used[64], nused = 0, next = 0;

		for (int i = 0; i < nreq; i++)
			if (req[i].cpu >= 0) {
				for (int k = 0; k < nused; k++)
					if (used[k] == req[i].cpu)
						die_usage("--roles: CPU %d is given two roles (use --in-turn to run them one at a time)",
							  req[i].cpu);
				used[nused++] = req[i].cpu;
			}
		for (int i = 0; i < nreq; i++) {
			while (req[i].cpu < 0) {
				int c, taken = 0;

				if (next >= nvictim)
					die_usage("--roles: not enough free CPUs for %d roles", nreq);
				c = victims[next++];
				for (int k = 0; k < nused; k++)
					taken |= used[k] == c;
				if (!taken)
					req[i].cpu = c;
			}
			r[0].s[r[0].n++] = req[i];
		}
	}
	for (int i = 0; i < nrounds; i++)
		for (int k = 0; k < r[i].n; k++)
			if (r[i].s[k].role == ROLE_FOREIGN_RT && r[i].s[k].cpu == 0)
				die_usage("foreign-rt would land on CPU 0: an RT spinner never runs there (give it a CPU with foreign-rt@N)");
	if (have_tool) {
		int cpu = victims[0];

		for (int i = 0; i < nrounds; i++)
			for (int k = 0; k < r[i].n; k++)
				if (r[i].s[k].role == tool_role)
					cpu = r[i].s[k].cpu;
		if (cpu == 0 && tool_role == ROLE_FOREIGN_RT)
			die_usage("--victim-cmd would run on CPU 0: an RT victim never runs there");
		r[nrounds].n = 1;
		r[nrounds].s[0] = (struct slot){ tool_role, cpu };
		r[nrounds].tool = 1;
		nrounds++;
	}
	free(victims);
	*out = r;
	return nrounds;
}

/* What one phase of one round saw. */
struct phase_data {
	struct ipisnap a, b;
	double elapsed_s;
	struct measure me;
	unsigned long *acks;	/* per self thread, during the phase */
	double oncpu[64];	/* per slot: fraction of the phase it ran */
};

/* CPU time of a slot's thread or process so far, ns; 0 when not known. */
static uint64_t slot_runtime(const struct team *team, int selfidx, pid_t pid)
{
	if (selfidx >= 0) {
		clockid_t cid;
		struct timespec ts;

		if (pthread_getcpuclockid(team->th[selfidx], &cid) ||
		    clock_gettime(cid, &ts))
			return 0;
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return pid > 0 ? victim_runtime_ns(pid) : 0;
}

struct run_ctx {
	const struct opts *o;
	struct dstate *d;
	struct table *t;
	struct results *res;
	struct ipicount *ic;
	int ncpus;
	char **tool_argv;
	int tool_argc;
	const char *tool;
	char *tmpdir;
};

static int base_row(struct run_ctx *c, const struct mechanism *m, int round,
		    const char *role, int cpu, const char *phase, const char *victim)
{
	struct table *t = c->t;
	int r = table_add_row(t);

	table_set_str(t, r, "mechanism", m->name);
	table_set_int(t, r, "round", round);
	table_set_str(t, r, "role", role);
	table_set_int(t, r, "cpu", cpu);
	table_set_str(t, r, "phase", phase);
	table_set_str(t, r, "victim", victim);
	if (c->d->rate > 0)
		table_set_num(t, r, "rate_per_s", c->d->rate);
	return r;
}

static void skip_rows(struct run_ctx *c, const struct mechanism *m, int round,
		      const char *role, int cpu, const char *victim, const char *reason)
{
	static const char *const phases[] = { "baseline", "storm" };

	for (int p = 0; p < 2; p++) {
		int r = base_row(c, m, round, role, cpu, phases[p], victim);

		table_set_str(c->t, r, "status", "skipped");
		table_set_str(c->t, r, "skip_reason", reason);
	}
}

static double delta(const uint64_t *a, const uint64_t *b, int cpu)
{
	return (double)(b[cpu] - a[cpu]);
}

/* Storm count minus the baseline's, scaled to the storm's length, per barrier. */
static double per_barrier(double storm, double base, double storm_s, double base_s,
			  uint64_t barriers)
{
	if (!barriers || base_s <= 0)
		return NAN;
	return (storm - base * storm_s / base_s) / (double)barriers;
}

static void counter_cells(struct run_ctx *c, int r, int cpu, struct phase_data *pd,
			  struct phase_data *base, int storm)
{
	struct table *t = c->t;
	uint64_t n = pd->me.calls;

	table_set_num(t, r, "elapsed_s", pd->elapsed_s);
	table_set_int(t, r, "barriers", storm ? (long long)n : 0);
	table_set_str(t, r, "ipi_source", ipi_source_name(c->ic->src));
	if (pd->b.have_ipis) {
		table_set_int(t, r, "ipis", (long long)delta(pd->a.ipis, pd->b.ipis, cpu));
		if (storm)
			table_set_num(t, r, "ipis_per_barrier",
				      per_barrier(delta(pd->a.ipis, pd->b.ipis, cpu),
						  delta(base->a.ipis, base->b.ipis, cpu),
						  pd->elapsed_s, base->elapsed_s, n));
	}
	if (pd->b.have_mb[cpu]) {
		table_set_int(t, r, "mb_ipis", (long long)delta(pd->a.mb, pd->b.mb, cpu));
		if (storm)
			table_set_num(t, r, "mb_ipis_per_barrier",
				      per_barrier(delta(pd->a.mb, pd->b.mb, cpu),
						  delta(base->a.mb, base->b.mb, cpu),
						  pd->elapsed_s, base->elapsed_s, n));
	}
	if (pd->b.have_tlb) {
		table_set_int(t, r, "tlb_shootdowns", (long long)delta(pd->a.tlb, pd->b.tlb, cpu));
		if (storm)
			table_set_num(t, r, "tlb_per_barrier",
				      per_barrier(delta(pd->a.tlb, pd->b.tlb, cpu),
						  delta(base->a.tlb, base->b.tlb, cpu),
						  pd->elapsed_s, base->elapsed_s, n));
	}
	if (pd->b.have_idle)
		table_set_int(t, r, "idle_entries", (long long)delta(pd->a.idle, pd->b.idle, cpu));
	table_set_str(t, r, "status", "ok");
}

static void hist_cells(struct table *t, int r, const struct hist *h)
{
	table_set_int(t, r, "samples", (long long)h->count);
	if (!h->count)
		return;
	table_set_num(t, r, "p50_ns", hist_percentile(h, 50));
	table_set_num(t, r, "p99_ns", hist_percentile(h, 99));
	table_set_num(t, r, "p999_ns", hist_percentile(h, 99.9));
	table_set_num(t, r, "max_ns", (double)h->max);
}

static void snap_begin(struct run_ctx *c, struct phase_data *pd, uint64_t *t0)
{
	ipisnap_init(&pd->a, c->ncpus);
	ipisnap_init(&pd->b, c->ncpus);
	ipicount_read(c->ic, &pd->a);
	*t0 = now_ns();
}

static void snap_end(struct run_ctx *c, struct phase_data *pd, uint64_t t0)
{
	pd->elapsed_s = (double)(now_ns() - t0) / 1e9;
	ipicount_read(c->ic, &pd->b);
}

static void phase_free(struct phase_data *pd)
{
	ipisnap_free(&pd->a);
	ipisnap_free(&pd->b);
	free(pd->acks);
}

/* A round of our own victims: baseline then storm, rows for every slot. */
static void run_round(struct run_ctx *c, const struct mechanism *m,
		      const struct mechanism *null_mech, int ri, const struct round *rd)
{
	const struct opts *o = c->o;
	struct victim_group g = { 0 };
	struct team team;
	struct team_cfg cfg = { 0 };
	struct placement pl = { 0 };
	enum behaviour behs[64];
	int selfidx[64], nself = 0;
	char reason[64][256];
	int failed[64] = { 0 };
	pid_t vpid[64] = { 0 };
	struct phase_data pd[2];
	struct hist caller_h;
	struct watchdog *wd;
	const double dur = o->duration_s;
	char err[256];
	uint64_t t0;

	memset(pd, 0, sizeof(pd));
	/* Fork the foreign victims while this process has one thread. */
	for (int k = 0; k < rd->n; k++) {
		selfidx[k] = -1;
		if (role_is_foreign(rd->s[k].role) &&
		    victim_start(&g, rd->s[k].role, rd->s[k].cpu, c->d->rt_prio,
				 WARMUP_S + 2 * dur + 5, reason[k], sizeof(reason[k])))
			failed[k] = 1;
		if (rd->s[k].role == ROLE_SELF_SPIN || rd->s[k].role == ROLE_SELF_SLEEP) {
			behs[nself] = rd->s[k].role == ROLE_SELF_SPIN ? BEH_SPIN : BEH_SLEEP;
			selfidx[k] = nself++;
		}
	}
	wd = watchdog_arm(&g, WARMUP_S + 2 * dur + 10);
	pl.n = nself + 1;
	pl.pu_os = xcalloc((size_t)pl.n, sizeof(int));
	pl.pu_logical = xcalloc((size_t)pl.n, sizeof(int));
	pl.pu_os[0] = c->d->caller_cpu;
	for (int k = 0; k < rd->n; k++)
		if (selfidx[k] >= 0)
			pl.pu_os[selfidx[k] + 1] = rd->s[k].cpu;
	cfg.topo = o->topo;
	cfg.pl = &pl;
	cfg.beh = BEH_SPIN;
	cfg.behs = behs;
	cfg.other_process = 0;
	cfg.mech = m;
	if (team_start(&team, &cfg, err, sizeof(err))) {
		watchdog_cancel(wd);
		victim_stop_all(&g);
		for (int k = 0; k < rd->n; k++)
			skip_rows(c, m, ri, role_name(rd->s[k].role), rd->s[k].cpu, "mbbench", err);
		skip_rows(c, m, ri, "caller", c->d->caller_cpu, "mbbench", err);
		goto out;
	}
	hist_init(&caller_h);
	harness_warmup(m, 0.02);
	usleep((useconds_t)(WARMUP_S * 1e6));
	for (int k = 0; k < rd->n; k++)
		for (int i = 0; i < g.nv; i++)
			if (g.v[i].cpu == rd->s[k].cpu && g.v[i].sh)
				vpid[k] = g.v[i].pid;
	for (int p = 0; p < 2; p++) {
		uint64_t rt0[64];

		victim_phase(&g, p ? VPH_STORM : VPH_BASELINE);
		pd[p].acks = xcalloc((size_t)(nself + 1), sizeof(unsigned long));
		for (int i = 0; i < nself; i++)
			pd[p].acks[i] = mech_signal_acks(i);
		for (int k = 0; k < rd->n; k++)
			rt0[k] = slot_runtime(&team, selfidx[k], vpid[k]);
		snap_begin(c, &pd[p], &t0);
		/* Baseline: the same paced loop without a barrier. */
		harness_paced(p ? m : null_mech, c->d->rate, dur, p ? &caller_h : NULL, &pd[p].me);
		snap_end(c, &pd[p], t0);
		for (int k = 0; k < rd->n; k++) {
			uint64_t rt1 = slot_runtime(&team, selfidx[k], vpid[k]);

			pd[p].oncpu[k] = rt0[k] && rt1 ? (double)(rt1 - rt0[k]) / 1e9 / pd[p].elapsed_s : NAN;
		}
		for (int i = 0; i < nself; i++)
			pd[p].acks[i] = mech_signal_acks(i) - pd[p].acks[i];
	}
	victim_phase(&g, VPH_STOP);
	team_stop(&team);
	watchdog_cancel(wd);
	victim_stop_all(&g);

	for (int p = 0; p < 2; p++) {
		const char *ph = p ? "storm" : "baseline";
		int r;

		for (int k = 0; k < rd->n; k++) {
			enum role role = rd->s[k].role;
			int cpu = rd->s[k].cpu;
			struct victim *v = NULL;

			if (failed[k]) {
				if (!p)
					skip_rows(c, m, ri, role_name(role), cpu, "mbbench", reason[k]);
				continue;
			}
			for (int i = 0; i < g.nv; i++)
				if (g.v[i].cpu == cpu && g.v[i].sh)
					v = &g.v[i];
			r = base_row(c, m, ri, role_name(role), cpu, ph,
				     role == ROLE_IDLE ? "" : "mbbench");
			counter_cells(c, r, cpu, &pd[p], &pd[0], p);
			if (pd[p].me.err) {
				table_set_str(c->t, r, "status", "skipped");
				snprintf(err, sizeof(err), "barrier failed: %s", strerror(-pd[p].me.err));
				table_set_str(c->t, r, "skip_reason", err);
			}
			if (selfidx[k] >= 0 && !strcmp(m->name, "signal"))
				table_set_int(c->t, r, "signals", (long long)pd[p].acks[selfidx[k]]);
			if (role_is_foreign(role) && v)
				table_set_str(c->t, r, "policy", v->sh->policy);
			else if (role != ROLE_IDLE)
				table_set_str(c->t, r, "policy", "SCHED_OTHER");
			if ((role == ROLE_FOREIGN_RT || role == ROLE_FOREIGN_SLEEP) && v)
				hist_cells(c->t, r, &v->sh->h[p ? VPH_STORM : VPH_BASELINE]);
			if (role != ROLE_IDLE)
				table_set_num(c->t, r, "oncpu_fraction", pd[p].oncpu[k]);
		}
		r = base_row(c, m, ri, "caller", c->d->caller_cpu, ph, "mbbench");
		counter_cells(c, r, c->d->caller_cpu, &pd[p], &pd[0], p);
		table_set_str(c->t, r, "policy", "SCHED_OTHER");
		if (p)
			hist_cells(c->t, r, &caller_h);
		if (pd[p].me.err) {
			table_set_str(c->t, r, "status", "skipped");
			snprintf(err, sizeof(err), "barrier failed: %s", strerror(-pd[p].me.err));
			table_set_str(c->t, r, "skip_reason", err);
		}
	}
	if (c->d->rate > 0 && pd[1].me.calls < 0.9 * c->d->rate * dur)
		results_note(c->res, "%s round %d: %llu barriers in %.2f s, below the %.0f/s asked: each call takes longer than the period",
			     m->name, ri, (unsigned long long)pd[1].me.calls, pd[1].elapsed_s, c->d->rate);
	hist_free(&caller_h);
	phase_free(&pd[0]);
	phase_free(&pd[1]);
out:
	for (int i = 0; i < g.nv; i++)
		victim_shared_free(g.v[i].sh);
	free(g.v);
	free(pl.pu_os);
	free(pl.pu_logical);
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
static void run_tool_round(struct run_ctx *c, const struct mechanism *m,
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
		skip_rows(c, m, ri, role, cpu, c->tool, err);
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

		snprintf(json, sizeof(json), "%s/%s-%s-%d-%d.json", c->tmpdir, c->tool, m->name, ri, p);
		snprintf(log, sizeof(log), "%s/%s-%s-%d-%d.log", c->tmpdir, c->tool, m->name, ri, p);
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
		snap_begin(c, &pd[p], &t0);
		pid = victim_exec(&g, argv, cpu, secs + 15, log, reason, sizeof(reason));
		if (pid > 0) {
			paced_while(p ? m : null_mech, c->d->rate, pid, p ? &caller_h : NULL,
				    &pd[p].me, secs + 10);
			snap_end(c, &pd[p], t0);
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
			phase_free(&pd[p]);
			memset(&pd[p], 0, sizeof(pd[p]));
		}
		unlink(json);
		unlink(log);
		free(g.v);
		free(argv);
	}
	team_stop(&team);
	if (reason[0]) {
		skip_rows(c, m, ri, role, cpu, c->tool, reason);
		goto out;
	}
	for (int p = 0; p < 2; p++) {
		const char *ph = p ? "storm" : "baseline";
		int r = base_row(c, m, ri, role, cpu, ph, c->tool);

		counter_cells(c, r, cpu, &pd[p], &pd[0], p);
		table_set_str(c->t, r, "policy", "the tool's own");
		hist_cells(c->t, r, &th[p]);
		if (!th[p].count)
			table_set_num(c->t, r, "max_ns", tool_max[p]);
		r = base_row(c, m, ri, "caller", c->d->caller_cpu, ph, "mbbench");
		counter_cells(c, r, c->d->caller_cpu, &pd[p], &pd[0], p);
		if (p)
			hist_cells(c->t, r, &caller_h);
	}
out:
	phase_free(&pd[0]);
	phase_free(&pd[1]);
	hist_free(&th[0]);
	hist_free(&th[1]);
	hist_free(&caller_h);
	free(pl.pu_os);
	free(pl.pu_logical);
}

int exp_disturb_main(int argc, char **argv)
{
	struct dstate d = {
		.rate = 1000,
		.caller_cpu = -1,
		.src = IPI_SRC_AUTO,
		.rt_prio = 5,
	};
	struct exp_spec spec = {
		.name = "disturb",
		.synopsis = "What one caller's barriers do to the other CPUs: IPIs, TLB shootdowns, signals, victims' latency; baseline vs storm.",
		.common = CO_MECH | CO_DURATION | CO_FORMAT | CO_JSON | CO_OUTPUT,
		.extra = disturb_opts,
		.extra_help =
			"  --caller-cpu N               CPU of the caller (default: the first CPU)\n"
			"  --in-turn                    run each role alone, one round each\n"
			"  --ipi-source auto|tracepoint|proc  where IPI counts come from (default auto)\n"
			"  --rate N|max                 barriers per second (default 1000)\n"
			"  --roles ROLE[@CPU],...       idle, self-spin, self-sleep, foreign-spin,\n"
			"                               foreign-rt, foreign-sleep (default: every role,\n"
			"                               in turn when the host has too few CPUs)\n"
			"  --rt-prio N                  SCHED_FIFO priority of RT victims, 1-10 (default 5)\n"
			"  --victim-cmd \"CMD ARGS\"      also run oslat or cyclictest as the victim\n",
		.handle = disturb_handle,
		.bad_value = disturb_bad_value,
		.state = &d,
		.def_mech = "membarrier-private-expedited",
		.def_duration_s = 1.0,
	};
	struct opts o;
	struct table t;
	struct results res;
	struct round *rounds;
	int nrounds, point = 0, targets[64 * 2], ntargets = 0;
	const struct mechanism *null_mech = mech_find("null");
	enum role tool_role = ROLE_IDLE;
	struct ipicount ic;
	struct run_ctx c;
	int rt_noted = 0;

	opts_parse(argc, argv, &spec, &o);
	if (o.iterations)
		die_usage("disturb runs for --duration; --iterations is not used here");
	memset(&c, 0, sizeof(c));
	if (d.victim_cmd) {
		char *tool;

		c.tool_argv = split_cmd(d.victim_cmd, &c.tool_argc, &tool_role, &tool);
		c.tool = tool;
		if (o.duration_s < 1)
			die_usage("--victim-cmd: rt-tests count whole seconds; give --duration 1 or more");
	}
	nrounds = plan_rounds(&o, &d, &rounds, d.victim_cmd != NULL, tool_role);
	for (int i = 0; i < nrounds; i++)
		for (int k = 0; k < rounds[i].n; k++) {
			int dup = 0;

			for (int j = 0; j < ntargets; j++)
				dup |= targets[j] == rounds[i].s[k].cpu;
			if (!dup && ntargets < 64 * 2 - 1)
				targets[ntargets++] = rounds[i].s[k].cpu;
		}
	targets[ntargets++] = d.caller_cpu;

	table_init(&t, disturb_cols, (int)(sizeof(disturb_cols) / sizeof(disturb_cols[0])));
	results_begin(&res, &o, &t);
	{
		int maxcpu = 0;

		for (int i = 0; i < ntargets; i++)
			if (targets[i] > maxcpu)
				maxcpu = targets[i];
		c.ncpus = maxcpu + 1;
	}
	ipicount_open(&ic, c.ncpus, d.src, targets, ntargets);
	c.o = &o;
	c.d = &d;
	c.t = &t;
	c.res = &res;
	c.ic = &ic;
	if (c.tool) {
		const char *tmp = getenv("TMPDIR");
		char *tpl = path_join(tmp && *tmp ? tmp : "/tmp", "mbbench-disturb.XXXXXX");

		if (!mkdtemp(tpl))
			die("mkdtemp %s: %m", tpl);
		c.tmpdir = tpl;
	}
	results_note(&res, "IPI counts from %s%s%s", ipi_source_name(ic.src),
		     ic.src_why[0] ? ": " : "", ic.src_why);
	if (ic.attr_why[0])
		results_note(&res, "mb_ipis (IPIs requested with a membarrier callback) not measured: %s", ic.attr_why);
	for (int i = 0; i < nrounds; i++)
		for (int k = 0; k < rounds[i].n; k++)
			if (rounds[i].s[k].role == ROLE_FOREIGN_RT && !rt_noted) {
				FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
				long us = -1;

				if (f) {
					if (fscanf(f, "%ld", &us) != 1)
						us = -1;
					fclose(f);
				}
				if (us >= 0)
					results_note(&res, "RT throttling is on (sched_rt_runtime_us=%ld): a busy-poll victim running past %.2f s in a second is stopped for the rest, which shows as a long gap in either phase",
						     us, (double)us / 1e6);
				rt_noted = 1;
			}
	results_note(&res, "ipis_per_barrier = (storm IPIs - baseline IPIs scaled to the storm's length) / barriers; the caller's CPU runs the callback itself and receives none");

	for (int mi = 0; mi < o.nmechs; mi++) {
		const struct mechanism *m = o.mechs[mi];
		char reason[256];

		if (mech_prepare(m, reason, sizeof(reason))) {
			for (int i = 0; i < nrounds; i++) {
				for (int k = 0; k < rounds[i].n; k++)
					skip_rows(&c, m, i, role_name(rounds[i].s[k].role), rounds[i].s[k].cpu,
						  rounds[i].tool ? c.tool : "mbbench", reason);
				skip_rows(&c, m, i, "caller", d.caller_cpu, "mbbench", reason);
			}
			progress("disturb", ++point, o.nmechs, m->name);
			continue;
		}
		for (int i = 0; i < nrounds; i++) {
			if (rounds[i].tool)
				run_tool_round(&c, m, null_mech, i, &rounds[i]);
			else
				run_round(&c, m, null_mech, i, &rounds[i]);
		}
		if (m->teardown)
			m->teardown(m);
		progress("disturb", ++point, o.nmechs, m->name);
	}
	{
		struct ipisnap s;

		ipisnap_init(&s, c.ncpus);
		ipicount_read(&ic, &s);
		if (!s.have_tlb)
			results_note(&res, "tlb_shootdowns not measured: %s", ic.tlb_why);
		if (!s.have_idle)
			results_note(&res, "idle_entries not measured: %s", ic.idle_why);
		ipisnap_free(&s);
	}
	results_emit(&res);
	ipicount_close(&ic);
	if (c.tmpdir) {
		if (rmdir(c.tmpdir))
			warnx_("could not remove %s: %s", c.tmpdir, strerror(errno));
		free(c.tmpdir);
	}
	for (int i = 0; i < c.tool_argc; i++)
		free(c.tool_argv[i]);
	free(c.tool_argv);
	free((void *)c.tool);
	free(rounds);
	table_free(&t);
	opts_free(&o);
	return 0;
}
