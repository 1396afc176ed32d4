// SPDX-License-Identifier: MIT
/*
 * doctor: what this kernel gets wrong or makes expensive about process-wide
 * barriers, found by measurement in seconds. Each probe answers one
 * question with a result (ok, affected, cannot tell and why, or info), the
 * evidence as numbers, what it means for a user, the workaround and the
 * fix, and the upstream reference. The exit status is 1 when a probe finds
 * the host affected, so scripts can gate on it.
 * The lazy-mm probe is bench/experiments/doctor/doctor-lazy.c; the helpers the probes share
 * are bench/experiments/doctor/doctor-common.c.
 */
#include "config.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "experiment.h"
#include "ipicount.h"
#include "paths.h"
#include "register-child.h"
#include "results.h"
#include "util.h"

#ifndef MEMBARRIER_CMD_GET_REGISTRATIONS
#define MEMBARRIER_CMD_GET_REGISTRATIONS (1 << 9)
#endif

static const struct col doctor_cols[] = {
	COL_KEY("probe", COL_STR, "", COL_REQ,
		"`lazy-mm`, `expedited-serialization`, `register-cost`, `global`, `sync-core`, `rseq`, `rseq-restart`, `mprotect-barrier`, `guest-ipi`"),
	COL_INFO("question", COL_STR, "", 0, "what the probe answers"),
	COL_STATUS("result", COL_REQ, "`ok`, `affected`, `cannot tell` (with `reason`) or `info`"),
	COL_STATUS("reason", 0, "the result in a sentence; why it cannot tell"),
	COL_MEASURE("measure", COL_NUM, "", NONE, NONE, COL_SIGNED,
		    "the probe's main figure, in `measure_unit`: lazy-mm the lowest IPIs/barrier of the lazy cases (paths A and B) on the lazily held CPU over the first 60 barriers, expedited-serialization two callers' aggregate rate over one caller's, register-cost the registration with one other thread, global the cost of a call, rseq-restart the lowest target's aborts per PRIVATE_EXPEDITED_RSEQ barrier beyond the background (1: each barrier restarted the critical section); empty when not measured"),
	COL_INFO("measure_unit", COL_STR, "", 0, "the unit of `measure` (`ratio`, `ms`, `us/call`, ...)"),
	COL_INFO("evidence", COL_STR, "", 0, "the numbers behind the result, as text"),
	COL_INFO("consequence", COL_STR, "", 0, "what it means for a user"),
	COL_INFO("workaround", COL_STR, "", 0, "what to do now"),
	COL_INFO("fix", COL_STR, "", 0, "where it is fixed"),
	COL_INFO("reference", COL_STR, "", 0, "the upstream record"),
};

const struct table_schema doctor_table = {
	.name = "doctor", .experiment = "doctor",
	.rows = "One row per probe run (`--probe` selects them; `mbbench doctor --format csv`).",
	.notes = "Derived: `probes_affected`; the exit status is 1 when it is not 0.",
	.cols = doctor_cols, .ncols = NCOLS(doctor_cols),
};

static const char *const result_names[] = { "ok", "affected", "cannot tell", "info" };

struct probe {
	const char *name;
	const char *question;
	void (*run)(struct finding *f, struct hostinfo *h);
	int cmds;	/* the membarrier commands an `affected` concerns (mbbench list --doctor) */
};


/* ---- expedited serialization ------------------------------------------- */

#define SER_S 0.3

struct ser_res {
	_Atomic int ready, go;
	long calls[2];
	double secs[2];
	char error[160];
};

static void *ser_spin(void *arg)
{
	_Atomic int *stop = arg;

	while (!atomic_load_explicit(stop, memory_order_relaxed))
		;
	return NULL;
}

/* A process with a caller on cpu and a spinner on spin_cpu; calls when call. */
static void ser_child(struct ser_res *r, int idx, int cpu, int spin_cpu, int call)
{
	static _Atomic int stop;
	pthread_t th;
	long n = 0;
	double t0;

	if (doctor_pin_to(spin_cpu) || pthread_create(&th, NULL, ser_spin, &stop) || doctor_pin_to(cpu)) {
		snprintf(r->error, sizeof(r->error), "cannot place the threads");
		_exit(0);
	}
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: %s",
			 strerror(errno));
		_exit(0);
	}
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load(&r->go))
		;
	t0 = doctor_now_s();
	while (doctor_now_s() - t0 < SER_S) {
		for (int i = 0; i < 20 && call; i++)
			if (sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)) {
				snprintf(r->error, sizeof(r->error), "MEMBARRIER_CMD_PRIVATE_EXPEDITED: %s",
					 strerror(errno));
				_exit(0);
			}
		n += 20;
	}
	r->calls[idx] = call ? n : 0;
	r->secs[idx] = doctor_now_s() - t0;
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	_exit(0);
}

/* Aggregate calls/s of two processes, the second calling only when both. */
static double ser_run(struct ser_res *r, const int *cpu, int both)
{
	pid_t pid[2];
	double rate = 0;

	memset(r, 0, sizeof(*r));
	fflush(NULL);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			fail("fork: %s", strerror(errno));
		if (pid[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			alarm(10);
			ser_child(r, i, cpu[2 * i], cpu[2 * i + 1], i == 0 || both);
		}
	}
	for (double t0 = doctor_now_s(); atomic_load(&r->ready) < 2 && doctor_now_s() - t0 < 2;)
		doctor_sleep_ms(1);
	atomic_store(&r->go, 1);
	for (int i = 0; i < 2; i++)
		while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
			;
	for (int i = 0; i < 2; i++)
		if (r->secs[i] > 0)
			rate += (double)r->calls[i] / r->secs[i];
	return r->error[0] || r->secs[0] <= 0 ? -1 : rate;
}

/* Whether the running kernel's release is at least major.minor. */
static int membarrier_release_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > major || (a == major && b >= minor);
}

static void probe_serialization(struct finding *f, struct hostinfo *h)
{
	long mask = membarrier_query();
	const char *ser = hostinfo_get(h, "membarrier_ipi_serialized");
	cpu_set_t set;
	int cpu[4], n = 0;
	double alone = 0, both = 0, ratio;
	struct ser_res *r;

	f->unit = "ratio";
	f->measure = NAN;
	f->consequence = "concurrent PRIVATE_EXPEDITED or GLOBAL_EXPEDITED callers anywhere on the machine wait for each other: a process that issues many barriers slows every other user of expedited membarrier, and its barrier rate does not grow with callers";
	f->workaround = "issue fewer expedited barriers (batch the frees of a userspace RCU or hazard-pointer reclaim), or target one CPU with MEMBARRIER_CMD_FLAG_CPU where the design allows";
	f->fix = membarrier_release_at_least(7, 0) ?
		"this kernel (7.0 or later) gives the targeted commands (MEMBARRIER_CMD_FLAG_CPU) their target CPU's mutex: callers aimed at different CPUs do not wait for each other; the others still share one" :
		"Linux 7.0 gives the targeted commands (MEMBARRIER_CMD_FLAG_CPU) per-CPU mutexes (\"Use per-CPU mutexes for targeted commands\"); the other expedited commands still share one";
	f->reference = "944d5fe50f3f (6.8, membarrier_ipi_mutex, backported to stable down to 4.19); scylladb/seastar#2143";
	if (mask < 0 || !(mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "MEMBARRIER_CMD_PRIVATE_EXPEDITED is not offered here (QUERY)");
		return;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		fail("sched_getaffinity: %s", strerror(errno));
	for (int c = 0; c < CPU_SETSIZE && n < 4; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	doctor_say(f->evidence, "kernel release says serialized: %s;", ser ? ser : "unknown");
	if (n < 4) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "needs 4 CPUs (each of two callers with a thread of its process on a CPU of its own, so that its barrier holds the mutex while it sends an IPI); %d allowed here",
			 n);
		return;
	}
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	for (int rep = 0; rep < 2; rep++) {
		double a1 = ser_run(r, cpu, 0), b1 = a1 < 0 ? -1 : ser_run(r, cpu, 1);

		if (a1 < 0 || b1 < 0)
			break;
		alone += a1 / 2;
		both += b1 / 2;
	}
	if (r->error[0] || alone <= 0) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s", r->error[0] ? r->error : "the callers did not run");
		munmap(r, sizeof(*r));
		return;
	}
	munmap(r, sizeof(*r));
	ratio = both / alone;
	f->measure = ratio;
	f->result = RES_INFO;
	doctor_say(f->evidence, " one caller %.0f calls/s; two callers in two processes %.0f calls/s together: %.2fx (1: serialized, 2: parallel); callers on CPUs %d and %d, their spinners on %d and %d",
	    alone, both, ratio, cpu[0], cpu[2], cpu[1], cpu[3]);
	if (ratio < 1.4) {
		snprintf(f->reason, sizeof(f->reason), "serialized: two callers get %.2fx one caller's barriers", ratio);
	} else if (ser && !strcmp(ser, "yes")) {
		/* A rate does not show a mutex held for a small part of each
		 * call: in a 6.12 guest with the global mutex two callers
		 * reached 1.46x while lock:contention_begin counted 276 waits
		 * on it (docs/FINDINGS.md, "Serialization"). */
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "two callers reached %.2fx one caller's barriers, but this kernel's release has the global mutex: the rate cannot show a mutex held for part of each call (count its waits with the lock:contention_begin tracepoint)",
			 ratio);
	} else {
		snprintf(f->reason, sizeof(f->reason), "not serialized in this measurement: %.2fx", ratio);
	}
}

/* ---- registration cost -------------------------------------------------- */

static void probe_register(struct finding *f, struct hostinfo *h)
{
	const struct mechanism *m = mech_find("membarrier-private-expedited");
	const char *helper = helper_require("mbbench-fresh");
	double ns[2] = { 0, 0 };
	char reason[256];
	const int reps = 3;

	(void)h;
	f->unit = "ms";
	f->measure = NAN;
	f->consequence = "REGISTER_PRIVATE_EXPEDITED made once the process has other threads waits for an RCU grace period (milliseconds; tens of microseconds where rcu_expedited=1): a runtime that registers lazily pays it on a critical path";
	f->workaround = "register before creating threads (at start-up), as .NET's runtime now does";
	f->fix = "none: by design (sync_runqueues_membarrier_state() runs synchronize_rcu() once the mm has several users)";
	f->reference = "kernel/sched/membarrier.c sync_runqueues_membarrier_state(); dotnet/runtime#106722";
	if (!m || mech_probe(m, reason, sizeof(reason))) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s", m ? reason : "no private-expedited mechanism");
		return;
	}
	for (int k = 0; k < 2; k++) {
		for (int r = 0; r < reps; r++) {
			struct sample s;

			if (register_fresh(helper, m, k, "compact", BEH_SPIN, &s) || s.err) {
				f->result = RES_CANNOT_TELL;
				snprintf(f->reason, sizeof(f->reason), "%.200s", s.why[0] ? s.why : "fork failed");
				return;
			}
			ns[k] += s.reg_ns / reps;
		}
	}
	f->result = RES_INFO;
	f->measure = ns[1] / 1e6;
	doctor_say(f->evidence, "REGISTER_PRIVATE_EXPEDITED in a fresh process: %.1f us with no other thread, %.3f ms with one other thread running (%.0fx; mean of %d each)",
	    ns[0] / 1e3, ns[1] / 1e6, ns[0] > 0 ? ns[1] / ns[0] : 0, reps);
	snprintf(f->reason, sizeof(f->reason), "registering with a thread running costs %.3f ms", ns[1] / 1e6);
}

/* ---- GLOBAL semantics --------------------------------------------------- */

static void probe_global(struct finding *f, struct hostinfo *h)
{
	long mask = membarrier_query();
	const char *nohz = hostinfo_get(h, "nohz_full"), *exp = hostinfo_get(h, "rcu_expedited");
	int refused_nohz = nohz && strcmp(nohz, "none") && strcmp(nohz, "unknown") && nohz[0];
	int expedited = exp && !strcmp(exp, "1");
	double t0, total = 0;
	int n = 0;

	f->unit = "us/call";
	f->measure = NAN;
	f->workaround = "where GLOBAL is refused, register and use GLOBAL_EXPEDITED or PRIVATE_EXPEDITED (liburcu's memb flavor falls back to them)";
	f->fix = "none: by design (GLOBAL relies on the scheduler tick's quiescent states, which nohz_full CPUs do not have)";
	f->reference = "kernel/sched/membarrier.c membarrier_query()/membarrier(): MEMBARRIER_CMD_GLOBAL refused when tick_nohz_full_enabled(); sched-ext/scx#3809; /sys/kernel/rcu_expedited";
	doctor_say(f->evidence, "QUERY offers GLOBAL: %s; nohz_full: %s; rcu_expedited: %s;",
	    mask >= 0 && (mask & MEMBARRIER_CMD_GLOBAL) ? "yes" : "no", nohz ? nohz : "unknown",
	    exp ? exp : "unknown");
	if (mask < 0 || !(mask & MEMBARRIER_CMD_GLOBAL) || refused_nohz) {
		f->result = RES_AFFECTED;
		f->consequence = "MEMBARRIER_CMD_GLOBAL fails with EINVAL: a program that uses it as its process-wide barrier must fall back to the expedited commands, which need registration and send IPIs";
		snprintf(f->reason, sizeof(f->reason), "%s",
			 refused_nohz ? "GLOBAL is refused (EINVAL) on a nohz_full kernel"
				      : "GLOBAL is not offered by this kernel (QUERY)");
		return;
	}
	/* A few calls; each is a grace period, so stop after half a second. */
	for (t0 = doctor_now_s(); n < 5 && doctor_now_s() - t0 < 0.5; n++) {
		double c0 = doctor_now_s();

		if (sys_membarrier(MEMBARRIER_CMD_GLOBAL, 0, 0)) {
			f->result = RES_AFFECTED;
			snprintf(f->reason, sizeof(f->reason), "MEMBARRIER_CMD_GLOBAL: %s", strerror(errno));
			return;
		}
		total += doctor_now_s() - c0;
	}
	f->measure = total * 1e6 / n;
	f->result = RES_INFO;
	doctor_say(f->evidence, " %.1f us per MEMBARRIER_CMD_GLOBAL (mean of %d)", f->measure, n);
	if (expedited) {
		f->consequence = "GLOBAL is an expedited grace period here (rcu_expedited=1): microseconds, but IPIs to every CPU running a task";
		snprintf(f->reason, sizeof(f->reason), "available, expedited (rcu_expedited=1)");
	} else {
		f->consequence = "GLOBAL is a normal RCU grace period here: milliseconds per call, no IPIs; fine for rare barriers, too slow for frequent ones";
		snprintf(f->reason, sizeof(f->reason), "available, a normal grace period");
	}
}

/* ---- sync-core and rseq availability ------------------------------------ */

static void probe_avail(struct finding *f, const char *mech, const char *what)
{
	const struct mechanism *m = mech_find(mech);
	char reason[256];
	long mask = membarrier_query();

	f->measure = NAN;
	f->unit = "";
	doctor_say(f->evidence, "QUERY mask 0x%lx", mask < 0 ? 0 : mask);
	if (m && !mech_probe(m, reason, sizeof(reason))) {
		f->result = RES_OK;
		snprintf(f->reason, sizeof(f->reason), "%s is available", what);
		return;
	}
	f->result = RES_INFO;
	snprintf(f->reason, sizeof(f->reason), "%s is missing: %.200s", what, m ? reason : "not built in");
}

static void probe_sync_core(struct finding *f, struct hostinfo *h)
{
	(void)h;
	f->consequence = "without it, a JIT that rewrites code other threads run has no cheap way to make them resynchronize their instruction stream";
	f->workaround = "where missing: mprotect-based cross-modification or a signal to every thread";
	f->fix = "MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE needs Linux 4.16 and an architecture that selects ARCH_HAS_MEMBARRIER_SYNC_CORE (x86 and arm64 do)";
	f->reference = "membarrier(2) (MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, since Linux 4.16)";
	probe_avail(f, "membarrier-private-expedited-sync-core", "PRIVATE_EXPEDITED_SYNC_CORE");
}

static void probe_rseq(struct finding *f, struct hostinfo *h)
{
	(void)h;
	f->consequence = "without it, per-CPU data structures built on rseq cannot fence the critical sections of other threads (e.g. to quiesce a per-CPU memory pool)";
	f->workaround = "where missing: a PRIVATE_EXPEDITED barrier with a protocol that does not need restarts";
	f->fix = "MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ needs Linux 5.10 and CONFIG_RSEQ";
	f->reference = "membarrier(2) (MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, since Linux 5.10)";
	probe_avail(f, "membarrier-private-expedited-rseq", "PRIVATE_EXPEDITED_RSEQ");
	doctor_rseq_facts(f);
}

/* ---- IPI delivery in a guest -------------------------------------------- */

static void probe_guest(struct finding *f, struct hostinfo *h)
{
	const char *virt = hostinfo_get(h, "virtualization"), *feat = hostinfo_get(h, "hypervisor_features"),
		   *idle = hostinfo_get(h, "cpuidle"), *pv = hostinfo_get(h, "paravirt_interface"),
		   *tlb = hostinfo_get(h, "remote_tlb_flush");
	int pv_named = pv && strncmp(pv, "unknown", 7) && strncmp(pv, "none", 4);

	f->result = RES_INFO;
	f->measure = NAN;
	f->unit = "";
	f->consequence = "in a guest an IPI costs a VM exit on the sender (one hypercall for many CPUs with PV send-IPI) and, without posted interrupts, one on the receiver; a haltpoll guest polls before halting, so a barrier to an idle vCPU can be cheap and uncounted";
	f->workaround = "compare barrier costs between hosts only with these facts equal";
	f->fix = "host configuration: KVM PV send-IPI (kvm_para), APICv/posted interrupts (kvm_intel enable_apicv), cpuidle-haltpoll";
	f->reference = "docs/FINDINGS.md (Counting IPIs); Documentation/virt/kvm/x86/cpuid.rst (KVM_FEATURE_PV_SEND_IPI); Documentation/virt/guest-halt-polling.rst";
	doctor_say(f->evidence, "virtualization: %s; hypervisor features: %s; paravirtual interface: %s; remote TLB flushes: %s; cpuidle: %s; posted interrupts: not visible from inside a guest",
	    virt ? virt : "unknown", feat ? feat : "unknown", pv ? pv : "unknown", tlb ? tlb : "unknown",
	    idle ? idle : "unknown");
	if (pv_named && (!feat || !strncmp(feat, "unknown", 7))) {
		snprintf(f->reason, sizeof(f->reason),
			 "a guest of %.100s by the kernel's log; its hypervisor describes no features in CPUID", pv);
		return;
	}
	snprintf(f->reason, sizeof(f->reason), "%s",
		 !feat || !strncmp(feat, "unknown", 7) ?
			 "a guest whose hypervisor does not describe its features, or unknown" :
		 !strncmp(feat, "none (not a guest)", 18) ? "not a guest: IPIs are native" :
		 strstr(feat, "pv-send-ipi") ? "a KVM guest with PV send-IPI" :
					       "a KVM guest without PV send-IPI: one VM exit per target");
}

static const struct probe probes[] = {
	{ "lazy-mm", "Does MEMBARRIER_CMD_GLOBAL_EXPEDITED reach a thread on a CPU whose idle task held the process's mm lazily (a thread of it ran there before registration, or exited there after)?", probe_lazy,
	  MEMBARRIER_CMD_GLOBAL_EXPEDITED },
	{ "expedited-serialization", "Do expedited barriers of two processes wait for each other (one mutex for the system)?", probe_serialization,
	  MEMBARRIER_CMD_GLOBAL_EXPEDITED | MEMBARRIER_CMD_PRIVATE_EXPEDITED |
	  MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE | MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ },
	{ "register-cost", "What does REGISTER_PRIVATE_EXPEDITED cost before and after a second thread exists?", probe_register, 0 },
	{ "global", "Is MEMBARRIER_CMD_GLOBAL available here, a normal or an expedited grace period, and at what cost?", probe_global, 0 },
	{ "sync-core", "Is MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE available?", probe_sync_core, 0 },
	{ "rseq", "Is MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ available?", probe_rseq, 0 },
	{ "rseq-restart", "Does MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ abort an rseq critical section running on each target CPU (and, with MEMBARRIER_CMD_FLAG_CPU, only on the targeted CPU)?", probe_rseq_restart,
	  MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ },
	{ "mprotect-barrier", "Does the mprotect trick (a TLB shootdown) interrupt the CPU of a running thread here, as a barrier must?", probe_mprotect, 0 },
	{ "guest-ipi", "How are IPIs delivered here (guest, PV send-IPI, posted interrupts, haltpoll)?", probe_guest, 0 },
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

static char selected[NPROBES];

/* --probe: a comma-separated list of probe names, or "all". */
static int parse_probes(const char *arg, void *dest)
{
	const char *p = arg;

	(void)dest;
	memset(selected, 0, sizeof(selected));
	if (!strcmp(arg, "all"))
		return 0;
	for (;;) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < NPROBES; i++)
			if (strlen(probes[i].name) == n && !strncmp(p, probes[i].name, n))
				break;
		if (i == NPROBES)
			return -1;
		selected[i] = 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

int doctor_probe_cmds(const char *name)
{
	for (size_t i = 0; i < NPROBES; i++)
		if (!strcmp(probes[i].name, name))
			return probes[i].cmds;
	return -1;
}

void doctor_affected(hwloc_topology_t topo,
		     void (*mark)(const char *probe, int cmds, void *arg), void *arg)
{
	struct hostinfo h;

	hostinfo_collect(&h, topo);
	for (size_t i = 0; i < NPROBES; i++) {
		struct finding f;

		if (!probes[i].cmds)
			continue;
		progress("doctor", (int)i + 1, (int)NPROBES, probes[i].name);
		memset(&f, 0, sizeof(f));
		f.measure = NAN;
		probes[i].run(&f, &h);
		if (f.result == RES_AFFECTED)
			mark(probes[i].name, probes[i].cmds, arg);
	}
	hostinfo_free(&h);
}

static void human(const struct table *t, int naffected)
{
	static const char *const fields[] = { "question", "evidence", "consequence", "workaround",
					      "fix", "reference" };

	for (int r = 0; r < t->nrows; r++) {
		const char *reason = table_get(t, r, "reason");

		printf("%s: %s%s%s\n", table_get(t, r, "probe"), table_get(t, r, "result"),
		       reason ? ": " : "", reason ? reason : "");
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			const char *v = table_get(t, r, fields[i]);

			if (v)
				printf("  %-12s %s\n", fields[i], v);
		}
		printf("\n");
	}
	printf("# %d probe%s found this host affected%s\n", naffected, naffected == 1 ? "" : "s",
	       naffected ? " (exit status 1)" : "");
}

static int exp_doctor_main(int argc, char **argv)
{
	static char fix[512];
	struct exp_opt own[] = {
		OPT_CALLBACK("probe", "LIST", "run only these probes (comma-separated, or all; default: all)",
			     NULL, parse_probes, fix),
		OPT_INT("budget", "S", "lazy-mm starts no attempt after S seconds (default: 9, or the time\n"
			"6 attempts of each case take at the pace measured, up to 90)",
			&doctor_lazy_budget_s, 1, 3600, "(whole seconds from 1 to 3600)"),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "doctor",
		.synopsis = "What this kernel gets wrong or makes expensive about process-wide barriers, by measurement.",
		.common = CO_FORMAT | CO_JSON | CO_OUTPUT,
		.opts = own,
		.extra_help = "  probes: lazy-mm, expedited-serialization, register-cost, global, sync-core,\n"
			      "  rseq, rseq-restart, mprotect-barrier, guest-ipi. Exit status: 0 none\n"
			      "  affected, 1 some probe affected, 2 bad input.\n",
	};
	struct opts o;
	struct table t;
	struct results res;
	struct hostinfo h;
	int naffected = 0, any = 0, done = 0, nsel = 0;

	snprintf(fix, sizeof(fix), "(valid:");
	for (size_t i = 0; i < NPROBES; i++)
		snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix), "%s%s", i ? ", " : " ", probes[i].name);
	snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix), "; or all)");
	opts_parse(argc, argv, &spec, &o);
	for (size_t i = 0; i < NPROBES; i++)
		any |= selected[i];
	for (size_t i = 0; i < NPROBES; i++)
		nsel += !any || selected[i];
	table_init(&t, doctor_cols, (int)(sizeof(doctor_cols) / sizeof(doctor_cols[0])));
	results_begin(&res, &o, &t);
	hostinfo_collect(&h, o.topo);
	for (size_t i = 0; i < NPROBES; i++) {
		struct finding f;
		int r;

		if (any && !selected[i])
			continue;
		progress("doctor", ++done, nsel, probes[i].name);
		memset(&f, 0, sizeof(f));
		f.measure = NAN;
		probes[i].run(&f, &h);
		r = table_add_row(&t);
		table_set_str(&t, r, "probe", probes[i].name);
		table_set_str(&t, r, "question", probes[i].question);
		table_set_str(&t, r, "result", result_names[f.result]);
		table_set_str(&t, r, "reason", f.reason[0] ? f.reason : NULL);
		table_set_num(&t, r, "measure", f.measure);
		table_set_str(&t, r, "measure_unit", isnan(f.measure) || !f.unit || !f.unit[0] ? NULL : f.unit);
		table_set_str(&t, r, "evidence", f.evidence[0] ? f.evidence : NULL);
		table_set_str(&t, r, "consequence", f.consequence);
		table_set_str(&t, r, "workaround", f.workaround);
		table_set_str(&t, r, "fix", f.fix);
		table_set_str(&t, r, "reference", f.reference);
		naffected += f.result == RES_AFFECTED;
	}
	hostinfo_free(&h);
	if (o.format == FMT_HUMAN) {
		human(&t, naffected);
		res.files_only = 1;
	}
	results_derived(&res, "probes_affected", naffected, "%d probe%s found this host affected",
			naffected, naffected == 1 ? "" : "s");
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return naffected ? 1 : 0;
}

/* The sweep runs every probe first: a few seconds, most of it lazy-mm's
 * attempts (up to 4 per case when the host is busy). */
static double doctor_cost(const struct preset *p, const struct plan_host *h,
			  const struct mechanism *m)
{
	(void)p;
	(void)h;
	(void)m;
	return 8;
}

static void doctor_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	(void)f;
	(void)p;
	(void)h;
}

const struct experiment exp_doctor = {
	.tables = (const struct table_schema *const[]){ &doctor_table, NULL },
	.name = "doctor",
	.summary = "what this kernel gets wrong or makes expensive, by measurement",
	.main = exp_doctor_main,
	.all_opt = "--probe",
	.first = 1,
	.cost = doctor_cost,
	.options = doctor_options,
};
