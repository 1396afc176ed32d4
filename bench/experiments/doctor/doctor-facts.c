// SPDX-License-Identifier: MIT
/*
 * doctor's facts of the host that the fallbacks and the targeted command
 * rely on: what glibc did with rseq (the targeted RSEQ command needs the
 * thread's rseq area, and the 2026 rseq rework changed what the kernel
 * offers), and whether the mprotect trick interrupts a running thread here
 * at all. It does not where another CPU's TLB entries are invalidated
 * without an IPI: by a broadcast of the CPU (AMD INVLPGB, since 6.15) or of
 * the architecture (arm64's TLBI), or by a hypervisor's flush hypercall.
 * Which of these this host does is the remote_tlb_flush host fact
 * (bench/host/guestfacts.c); the probe names that cause, and only that one,
 * or says it is not identified.
 */
#include "config.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>	/* glibc 2.35+: __rseq_size, 0 when not registered */
#define HAVE_GLIBC_RSEQ 1
#endif

#include "doctor.h"
#include "experiment.h"
#include "ipicount.h"
#include "util.h"

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif
#ifndef AT_RSEQ_ALIGN
#define AT_RSEQ_ALIGN 28
#endif

/* The rseq facts, appended to the rseq probe's evidence. */
void doctor_rseq_facts(struct finding *f)
{
	const char *tun = getenv("GLIBC_TUNABLES");
	const char *off = tun ? strstr(tun, "glibc.pthread.rseq=0") : NULL;
	unsigned long fsz = getauxval(AT_RSEQ_FEATURE_SIZE), al = getauxval(AT_RSEQ_ALIGN);

	doctor_say(f->evidence, "; glibc %s", gnu_get_libc_version());
#ifdef HAVE_GLIBC_RSEQ
	if (__rseq_size)
		doctor_say(f->evidence, " registered rseq for each thread (__rseq_size %u)", __rseq_size);
	else
		doctor_say(f->evidence, " did not register rseq (__rseq_size 0%s)",
			   off ? ": GLIBC_TUNABLES has glibc.pthread.rseq=0" : "");
#else
	doctor_say(f->evidence, " predates rseq registration (before 2.35)");
#endif
	if (fsz)
		doctor_say(f->evidence, "; the kernel offers an rseq area of %lu bytes, aligned to %lu (AT_RSEQ_FEATURE_SIZE)",
			   fsz, al);
	else
		doctor_say(f->evidence, "; no AT_RSEQ_FEATURE_SIZE (a kernel before 6.3: the original 32-byte area)");
}

/* ---- mprotect-barrier --------------------------------------------------- */

#define MP_BARRIERS 2000
#define MP_MIN 0.9	/* IPIs per barrier that say it interrupts */

struct mp_spin {
	int cpu;
	_Atomic int stop, on;
};

static void *mp_spinner(void *arg)
{
	struct mp_spin *s = arg;

	if (doctor_pin_to(s->cpu))
		return (void *)1;
	while (sched_getcpu() != s->cpu)
		;
	atomic_store(&s->on, 1);
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed))
		;
	return NULL;
}

/* IPIs (row) on CPU b per barrier of m, MP_BARRIERS of them: NAN when not countable. */
static double ipis_per(const struct mechanism *m, const char *row, int b, int ncpus, char *err, size_t len)
{
	uint64_t *c0 = xcalloc((size_t)ncpus + 1, sizeof(uint64_t));
	uint64_t *c1 = xcalloc((size_t)ncpus + 1, sizeof(uint64_t));
	double v = NAN;
	int e = 0;

	if (!proc_interrupts_read(row, c0, ncpus)) {
		for (int i = 0; i < MP_BARRIERS && !e; i++)
			e = m->barrier(m);
		if (e)
			snprintf(err, len, "%s: %s", m->name, strerror(-e));
		else if (!proc_interrupts_read(row, c1, ncpus))
			v = (double)(c1[b] - c0[b]) / MP_BARRIERS;
	}
	free(c0);
	free(c1);
	return v;
}

/* The remote_tlb_flush fact when it names a cause that interrupts no CPU, or NULL. */
static const char *mp_cause(const struct hostinfo *h)
{
	const char *c = hostinfo_get(h, "remote_tlb_flush");

	return c && (!strncmp(c, "broadcast", 9) || !strncmp(c, "by hypercall", 12) ||
		     !strncmp(c, "by SBI call", 11)) ? c : NULL;
}

/* The cause in a few words, for the reason: the fix and evidence have it whole. */
static const char *mp_cause_short(const char *c)
{
	return !c ? "without an IPI, for a cause not identified" :
	       strstr(c, "flag invlpgb") ? "by the CPU's broadcast (flag invlpgb)" :
	       strstr(c, "arm64") ? "by arm64's broadcast TLBI" :
	       !strncmp(c, "by SBI call", 11) ? "by the firmware's SBI remote fence, which Linux on the target neither runs nor counts" :
	       !strncmp(c, "by hypercall for a preempted", 28) ? "by the hypervisor's flush hypercall for a preempted vCPU" :
							   "by the hypervisor's flush hypercall";
}

/* The fix and reference of a row: by the cause seen here, and only by it. */
void doctor_mprotect_fix(struct finding *f, const struct hostinfo *h)
{
	static char fix[900], ref[400];
	const char *c = mp_cause(h), *fact = hostinfo_get(h, "remote_tlb_flush");

	if (f->result != RES_AFFECTED) {
		f->fix = "none needed where each TLB shootdown interrupts the CPUs; where a CPU or a hypervisor invalidates remote TLB entries without an IPI, there is none in the kernel";
		f->reference = "docs/FINDINGS.md (the mprotect trick)";
		return;
	}
	if (c)
		snprintf(fix, sizeof(fix), "none in the kernel: this host flushes remote TLBs without an IPI (remote_tlb_flush: %s)", c);
	else
		snprintf(fix, sizeof(fix), "cause not identified: remote_tlb_flush says %s; no CPU flag, paravirtual flush or architecture seen here explains it",
			 fact ? fact : "unknown (no remote_tlb_flush fact)");
	snprintf(ref, sizeof(ref), "%sdocs/FINDINGS.md (the mprotect trick)",
		 !c ? "" : strstr(c, "invlpgb") ? "x86 INVLPGB support (Linux 6.15); " :
		 strstr(c, "arm64") ? "arm64 flushes remote TLBs by broadcast TLBI; " :
		 !strncmp(c, "by SBI call", 11) ? "riscv hands remote TLB flushes to the SBI firmware when its IPIs go through the SBI (arch/riscv/mm/tlbflush.c); " :
				      "the hypervisor's remote TLB flush (pv_ops.mmu.flush_tlb_multi); ");
	f->fix = fix;
	f->reference = ref;
}

static void mp_measure(struct finding *f, const struct hostinfo *h)
{
	const struct mechanism *mp = mech_find("mprotect"), *pe = mech_find("membarrier-private-expedited");
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF), a, b;
	struct mp_spin s = { 0 };
	char err[200] = "", why[256];
	double tlb = NAN, cal = NAN, ctl = NAN;
	cpu_set_t saved;
	pthread_t th;

	f->measure = NAN;
	f->unit = "IPIs/barrier";
	f->consequence = "the mprotect trick (.NET's FlushProcessWriteBuffers, folly's asymmetric barrier) orders nothing where remote TLB entries are invalidated without interrupting the CPUs that hold them: a running thread's stores are not made visible, nor its loads ordered";
	f->workaround = "use membarrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED) or signals; the mprotect trick is a barrier only where each TLB shootdown interrupts every CPU of the process";
	if (ncpus < 2)
		ncpus = 2;
	if (!mp || !pe || mech_prepare(mp, why, sizeof(why)) || doctor_pick(&a, &b, ncpus)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "needs two CPUs this process may run on and the mprotect mechanism");
		return;
	}
	if (sched_getaffinity(0, sizeof(saved), &saved) || doctor_pin_to(a))
		fail("cannot pin to CPU %d: %s", a, strerror(errno));
	s.cpu = b;
	if (pthread_create(&th, NULL, mp_spinner, &s)) {
		sched_setaffinity(0, sizeof(saved), &saved);
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "cannot start the spinning thread");
		return;
	}
	while (!atomic_load(&s.on))
		;
	/* The control: a barrier that interrupts a running thread, by IPI. */
	if (!mech_prepare(pe, why, sizeof(why)))
		ctl = ipis_per(pe, "CAL", b, ncpus, err, sizeof(err));
	tlb = ipis_per(mp, "TLB", b, ncpus, err, sizeof(err));
	cal = ipis_per(mp, "CAL", b, ncpus, err, sizeof(err));
	atomic_store(&s.stop, 1);
	pthread_join(th, NULL);
	sched_setaffinity(0, sizeof(saved), &saved);

	doctor_say(f->evidence, "caller on CPU %d, a thread spinning on CPU %d; %d barriers each:", a, b, MP_BARRIERS);
	if (!isnan(ctl))
		doctor_say(f->evidence, " control (PRIVATE_EXPEDITED) %.3f function-call IPIs per barrier;", ctl);
	if (!isnan(tlb))
		doctor_say(f->evidence, " mprotect %.3f TLB shootdowns per barrier (TLB row)", tlb);
	if (!isnan(cal))
		doctor_say(f->evidence, "%s %.3f function-call IPIs per barrier", isnan(tlb) ? " mprotect" : ",",
			   cal);
	if (isnan(tlb))
		doctor_say(f->evidence, " (TLB shootdowns: %s)", ipi_no_tlb_why());
	if (err[0]) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s", err);
		return;
	}
	/* A shootdown is counted on the TLB row (x86) or as a function call. */
	f->measure = !isnan(tlb) ? tlb : cal;
	if (isnan(f->measure) || isnan(ctl)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "/proc/interrupts has no function-call row (CAL, or one named Function call interrupts)%s to count IPIs by",
			 isnan(tlb) ? " and no TLB row" : "");
	} else if (ctl < MP_MIN) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "the control read %.3f IPIs per barrier, not 1: the spinner lost its CPU (a busy host; rerun when it is quiet)",
			 ctl);
	} else if (f->measure >= MP_MIN || (!isnan(cal) && cal >= MP_MIN)) {
		f->result = RES_OK;
		snprintf(f->reason, sizeof(f->reason), "each mprotect barrier interrupted the running thread's CPU (%.2f per barrier)",
			 fmax(f->measure, isnan(cal) ? 0 : cal));
	} else {
		f->result = RES_AFFECTED;
		snprintf(f->reason, sizeof(f->reason),
			 "mprotect interrupted the running thread's CPU %.2f times per barrier, the control %.2f: remote TLBs are flushed here %s, so the trick is no barrier here",
			 f->measure, ctl, mp_cause_short(mp_cause(h)));
	}
}

void probe_mprotect(struct finding *f, struct hostinfo *h)
{
	const char *fact = hostinfo_get(h, "remote_tlb_flush");

	mp_measure(f, h);
	doctor_say(f->evidence, "; remote TLB flushes: %s", fact ? fact : "unknown");
	doctor_mprotect_fix(f, h);
}
