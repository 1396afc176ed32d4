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
 *
 * Each phase runs in NSLICE slices; the percentiles of each slice's
 * samples (the caller's calls, a foreign victim's gaps or wake-ups) give
 * the phase's percentiles their 95% CIs, as latency's repeats do, and each
 * slice's counts per barrier give the counts theirs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "disturb.h"
#include "util.h"
#include "victim.h"

#define MAX_RATE 10000000ull

static const struct col disturb_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY("round", COL_INT, "", COL_REQ, "0, 1, ...: rows of one round were measured together"),
	COL_KEY_IN("role", "idle|self-spin|self-sleep|foreign-spin|foreign-rt|foreign-sleep|caller", COL_REQ,
		"`idle`, `self-spin`, `self-sleep` (threads of the caller's process), `foreign-spin`, `foreign-rt`, `foreign-sleep` (another process), or `caller`"),
	COL_KEY("cpu", COL_INT, "", COL_REQ, "OS CPU number"),
	COL_KEY_IN("phase", "baseline|storm", COL_REQ, "`baseline` or `storm`"),
	COL_INFO("victim", COL_STR, "", 0,
		 "`mbbench` (our victim), `oslat` or `cyclictest` (`--victim-cmd`), empty for `idle`"),
	COL_INFO("policy", COL_STR, "", 0,
		 "scheduling policy of the victim: `SCHED_OTHER`, `SCHED_FIFO/<prio>`, or `the tool's own`"),
	COL_INFO("rate_per_s", COL_NUM, "1/s", 0, "barriers per second asked; empty for `--rate max`"),
	COL_INFO("elapsed_s", COL_NUM, "s", 0, "length of the phase"),
	COL_COUNT("barriers", COL_INT, 0, "barriers issued in the phase (0 in the baseline)"),
	COL_INFO("ipi_source", COL_STR, "", 0,
		 "`tracepoint` (irq_vectors:call_function_entry + call_function_single_entry, per CPU) or `proc-interrupts` (the CAL row); the JSON notes say why tracepoints were not used"),
	COL_COUNT("ipis", COL_INT, 0, "function-call IPIs the CPU received in the phase"),
	COL_MEASURE("ipis_per_barrier", COL_NUM, "1/barrier", LOWER, DIFF, COL_REQ | COL_SIGNED,
		    "storm only: (`ipis` - baseline `ipis` scaled to the storm's length) / `barriers`"),
	COL_COUNT("mb_ipis", COL_INT, 0,
		  "cross-CPU calls queued for this CPU with a membarrier callback (csd:csd_queue_cpu filtered on ipi_mb, ipi_sync_core, ipi_rseq, ipi_sync_rq_state and on the caller's thread); counted at the sender, so it includes calls an idle polling CPU ran without an IPI; empty when not measurable (reason in the notes)"),
	COL_MEASURE("mb_ipis_per_barrier", COL_NUM, "1/barrier", LOWER, NONE, COL_REQ | COL_SIGNED,
		    "storm only, as `ipis_per_barrier`"),
	COL_COUNT("tlb_shootdowns", COL_INT, 0, "TLB row of /proc/interrupts (x86); the same IPIs also count in `ipis`"),
	COL_MEASURE("tlb_per_barrier", COL_NUM, "1/barrier", LOWER, NONE, COL_REQ | COL_SIGNED,
		    "storm only, as `ipis_per_barrier`"),
	COL_CI95("ipis_per_barrier_ci95", "ipis_per_barrier", "1/barrier", 0,
		 "storm only, our own victims' rounds: the 95% CI half-width from the phase's 5 slices (each storm slice's count less the baseline slice of the same index scaled to its length, over that slice's barriers); empty for a real tool's round"),
	COL_CI95("mb_ipis_per_barrier_ci95", "mb_ipis_per_barrier", "1/barrier", 0, "as `ipis_per_barrier_ci95`"),
	COL_CI95("tlb_per_barrier_ci95", "tlb_per_barrier", "1/barrier", 0, "as `ipis_per_barrier_ci95`"),
	COL_COUNT("idle_entries", COL_INT, 0, "cpuidle state usage counts summed; empty without cpuidle (e.g. most VMs)"),
	COL_COUNT("signals", COL_INT, 0, "`signal` mechanism, self-* roles: signals the thread handled in the phase"),
	COL_INFO("oncpu_fraction", COL_NUM, "", COL_REQ,
		 "CPU time of the victim thread or process / `elapsed_s`, within [0, 1]: a self-spin CPU can only be IPI'd while our thread is current there"),
	COL_COUNT("samples", COL_INT, 0,
		  "foreign-rt: loop gaps recorded; foreign-sleep: wake-ups; caller (storm): barriers timed"),
	COL_MEASURE("p50_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ,
		    "foreign-rt: gaps in its busy-poll loop (oslat method); foreign-sleep: wake-up lateness (cyclictest method, 1 ms period); caller: barrier call latency; same histogram as latency.csv"),
	COL_MEASURE("p99_ns", COL_NUM, "ns", LOWER, PCT, COL_REQ, "99th percentile, as `p50_ns`"),
	COL_MEASURE("p999_ns", COL_NUM, "ns", LOWER, NONE, 0, "99.9th percentile, as `p50_ns`"),
	COL_MEASURE("max_ns", COL_NUM, "ns", LOWER, NONE, 0, "maximum, as `p50_ns`"),
	COL_COUNT("repeats", COL_INT, COL_POS,
		  "the fewest slices any of the row's CIs came from (5 unless a slice had no sample or no barrier); empty where the row has no CI: a real tool's rows, and baseline rows without a histogram"),
	COL_CI95("p50_ns_ci95", "p50_ns", "ns", 0,
		 "95% CI half-width of `p50_ns` from the spread of the slices' own percentiles (the batch-percentile method, as in latency.csv)"),
	COL_CI95("p99_ns_ci95", "p99_ns", "ns", 0,
		 "as `p50_ns_ci95`; compare and report do not test it where a slice holds fewer than 100 samples"),
	COL_CI95("p999_ns_ci95", "p999_ns", "ns", 0,
		 "as `p50_ns_ci95`; not tested where a slice holds fewer than 1000 samples (the full preset's 5 s phases hold 1000)"),
	COL_STATUS("status", COL_REQ,
		   "`ok`, or `skipped` with the reason (mechanism unavailable, `SCHED_FIFO needs root or CAP_SYS_NICE`, the tool failed) and no numbers"),
	COL_STATUS("skip_reason", 0, "why a skipped row could not be measured"),
	COL_INFO("where", COL_STR, "", 0,
		 "the row's CPU relative to the caller's: `caller`, `local` (same package and NUMA node) or `remote` (another package or node); without `--roles`, a host with a CPU for every role on both sides runs each role on both at once"),
};

const struct table_schema disturb_table = {
	.name = "disturb", .experiment = "disturb", .analysed = 1,
	.rows = "One row per (mechanism, round, CPU, role, phase). A round runs its roles at the same time (all of them, or one each with `--in-turn`); `caller` rows are the caller's own CPU. Every round runs a `baseline` phase (the same paced loop with no barrier) and then the `storm`.",
	.notes = "Derived: none. The JSON notes record the IPI source and why, whether attribution and idle counts were measurable, and rate shortfalls.",
	.cols = disturb_cols, .ncols = NCOLS(disturb_cols),
};

/* --rate N, N/s or max (0). */
static int parse_rate(const char *arg, void *dest)
{
	double *rate = dest;
	char buf[32];
	size_t l = strlen(arg);
	uint64_t v;

	if (!strcmp(arg, "max")) {
		*rate = 0;
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
	*rate = (double)v;
	return 0;
}

/* In enum ipi_source's order. */
static const char *const ipi_sources[] = { "auto", "tracepoint", "proc", NULL };

/* Is cpu usable: present in the topology and in our affinity mask? */
static int cpu_ok(void *arg, int cpu)
{
	const struct opts *o = arg;
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


static int exp_disturb_main(int argc, char **argv)
{
	struct dstate d = {
		.rate = 1000,
		.caller_cpu = -1,
		.src = IPI_SRC_AUTO,
		.rt_prio = 5,
	};
	int src = IPI_SRC_AUTO;
	const struct exp_opt disturb_opts[] = {
		OPT_INT("caller-cpu", "N", "CPU of the caller (default: the first CPU)",
			&d.caller_cpu, 0, 1u << 20, "(a CPU number)"),
		OPT_FLAG("in-turn", "run each role alone, one round each", &d.in_turn),
		OPT_CHOICE("ipi-source", "auto|tracepoint|proc",
			   "where IPI counts come from (default auto)", &src, ipi_sources,
			   "(use auto, tracepoint or proc)"),
		OPT_CALLBACK("rate", "N|max", "barriers per second (default 1000)", &d.rate,
			     parse_rate,
			     "(barriers per second, 1 to 10000000, e.g. 1000 or 1000/s, or max)"),
		OPT_STRING("roles", "ROLE[@CPU],...",
			   "idle, self-spin, self-sleep, foreign-spin,\n"
			   "foreign-rt, foreign-sleep (default: every role,\n"
			   "in turn when the host has too few CPUs)", &d.roles),
		OPT_INT("rt-prio", "N", "SCHED_FIFO priority of RT victims, 1-10 (default 5)",
			&d.rt_prio, 1, 10,
			"(a SCHED_FIFO priority from 1 to 10: kept modest on purpose)"),
		OPT_STRING("victim-cmd", "\"CMD ARGS\"", "also run oslat or cyclictest as the victim",
			   &d.victim_cmd),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "disturb",
		.synopsis = "What one caller's barriers do to the other CPUs: IPIs, TLB shootdowns, signals, victims' latency; baseline vs storm.",
		.common = CO_MECH | CO_DURATION | CO_FORMAT | CO_JSON | CO_OUTPUT,
		.opts = disturb_opts,
		.def_mech = "membarrier-private-expedited",
		.def_duration_s = 1.0,
	};
	struct opts o;
	struct table t;
	struct results res;
	struct round *rounds;
	int nrounds, point = 0, *targets, ntargets = 0, nslots = 1;
	const struct mechanism *null_mech = mech_find("null");
	enum role tool_role = ROLE_IDLE;
	struct ipicount ic;
	struct run_ctx c;
	int rt_noted = 0;

	opts_parse(argc, argv, &spec, &o);
	d.src = (enum ipi_source)src;
	if (o.iterations)
		die("disturb runs for --duration; --iterations is not used here");
	memset(&c, 0, sizeof(c));
	if (d.victim_cmd) {
		char *tool;

		c.tool_argv = disturb_split_cmd(d.victim_cmd, &c.tool_argc, &tool_role, &tool);
		c.tool = tool;
		if (o.duration_s < 1)
			die("--victim-cmd: rt-tests count whole seconds; give --duration 1 or more");
	}
	{
		struct dplan_in in = {
			.topo = o.topo, .cpu_ok = cpu_ok, .cpu_ok_arg = &o,
			.host_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN),
			.caller_cpu = d.caller_cpu, .in_turn = d.in_turn, .roles = d.roles,
			.have_tool = d.victim_cmd != NULL, .tool_role = tool_role,
		};
		char err[512];

		nrounds = disturb_plan(&in, &rounds, err, sizeof(err));
		if (nrounds == DPLAN_USAGE)
			die("%s", err);
		if (nrounds < 0)
			fail("%s", err);
		d.caller_cpu = in.caller_cpu;
		d.in_turn = in.in_turn;
	}
	/* The CPUs whose IPIs are counted: every slot's (once), and the caller's. */
	for (int i = 0; i < nrounds; i++)
		nslots += rounds[i].n;
	targets = xcalloc((size_t)nslots, sizeof(int));
	for (int i = 0; i < nrounds; i++)
		for (int k = 0; k < rounds[i].n; k++) {
			int dup = 0;

			for (int j = 0; j < ntargets; j++)
				dup |= targets[j] == rounds[i].s[k].cpu;
			if (!dup)
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
	if (d.src == IPI_SRC_TRACEPOINT && ic.src != IPI_SRC_TRACEPOINT)
		die("--ipi-source tracepoint: %s (run as root or with CAP_PERFMON and tracefs mounted, or use --ipi-source auto)",
			  ic.src_why);
	if (ic.mount_note[0])
		results_note(&res, "%s", ic.mount_note);
	c.o = &o;
	c.d = &d;
	c.t = &t;
	c.res = &res;
	c.ic = &ic;
	if (c.tool) {
		/*
		 * The tool writes its --json and its log into memory files
		 * that have no name: the victim inherits them and opens
		 * /proc/self/fd/N. Nothing is left in $TMPDIR, whatever ends
		 * the run (SIGKILL included).
		 */
		c.tool_json_fd = memfd_create("mbbench-victim.json", 0);
		c.tool_log_fd = memfd_create("mbbench-victim.log", 0);
		if (c.tool_json_fd < 0 || c.tool_log_fd < 0)
			fail("--victim-cmd: memfd_create: %m");
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
					disturb_skip_rows(&c, m, i, role_name(rounds[i].s[k].role),
							  rounds[i].s[k].cpu,
							  rounds[i].tool ? c.tool : "mbbench", reason);
				disturb_skip_rows(&c, m, i, "caller", d.caller_cpu, "mbbench", reason);
			}
			progress("disturb", ++point, o.nmechs, m->name);
			continue;
		}
		for (int i = 0; i < nrounds; i++) {
			if (rounds[i].tool)
				disturb_tool_round(&c, m, null_mech, i, &rounds[i]);
			else
				disturb_own_round(&c, m, null_mech, i, &rounds[i]);
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
	if (c.tool) {
		close(c.tool_json_fd);
		close(c.tool_log_fd);
	}
	for (int i = 0; i < c.tool_argc; i++)
		free(c.tool_argv[i]);
	free(c.tool_argv);
	free((void *)c.tool);
	free(rounds);
	free(targets);
	table_free(&t);
	opts_free(&o);
	return 0;
}

/*
 * The sweep: every role (in turn where CPUs are few) for the mechanisms
 * whose disturbance differs: the expedited IPIs, the grace period, signals
 * and TLB shootdowns, the 2010 IPIs (skipped rows off the patched kernel).
 */
static const struct mech_pick disturb_picks[] = {
	{ .all = MC_IPI, .cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED },
	{ .all = MC_GRACE_PERIOD, .none = MC_PATCHED_KERNEL, .cmd = PICK_ANY },
	{ .all = MC_IPI, .cmd = PICK_NO_CMD },
	{ .all = MC_IPI | MC_PATCHED_KERNEL, .cmd = PICK_ANY },
};

static double disturb_cost(const struct preset *p, const struct plan_host *h,
			   const struct mechanism *m)
{
	(void)m;
	return h->disturb_rounds * 2 * p->duration + 0.8;
}

static void disturb_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	(void)h;
	fprintf(f, " --duration %g --rate 1000", p->duration);
}

const struct experiment exp_disturb = {
	.tables = (const struct table_schema *const[]){ &disturb_table, NULL },
	.name = "disturb",
	.summary = "IPIs and latency a barrier storm causes on other CPUs",
	.main = exp_disturb_main,
	.quick = { .duration = 0.15, .processes = 3 },
	.full = { .duration = 2 },
	.floor = 0.1,
	.picks = disturb_picks,
	.npicks = NPICKS(disturb_picks),
	.cpus = 2,	/* a CPU besides the caller's */
	.skipped_s = 0.3,
	.cost = disturb_cost,
	.options = disturb_options,
};
