// SPDX-License-Identifier: MIT
/*
 * doctor's rseq-restart probe: does MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ
 * abort an rseq critical section running on each target CPU, and with
 * MEMBARRIER_CMD_FLAG_CPU only on the CPU aimed at? Per-CPU allocators
 * (tcmalloc, per-CPU caches) take a CPU's cache back by this promise: a
 * barrier that reaches the CPU but leaves a critical section running lets
 * its commit land on memory the caller already took. Nothing else checks
 * it, and the rseq rework of Linux 6.19 changed the path.
 *
 * Up to 3 target threads, each pinned to a CPU of its own, run critical
 * sections back to back, one target at a time (the others sleep, so that a
 * guest's idle vCPUs leave the host's CPUs to the two that are measured): a
 * countdown of about 0.25 ms (short, so that preemption seldom aborts one
 * on a busy host) whose every step stores the remaining count (so that the
 * caller sees the thread running inside one), ending in an abort handler
 * that records the abort. Each instance is numbered and its end (aborted
 * or completed) recorded in a ring. The caller runs rounds of four kinds,
 * interleaved so that the host's load is the same for each: it sees the
 * target running inside an instance, then issues nothing (the control:
 * aborts from preemption, migration and signals), a PRIVATE_EXPEDITED_RSEQ
 * barrier, or one with FLAG_CPU aimed at the target's CPU or elsewhere,
 * and waits for the instance to end. A round counts only if the instance
 * had not completed when the barrier returned, so a vCPU that starved
 * between the look and the barrier costs rounds, not a wrong answer.
 *
 * The critical sections are inline assembly for x86_64, aarch64 and riscv64; on
 * other architectures the probe cannot tell. It uses the rseq area glibc
 * registered (2.35+), or registers its own where glibc did not.
 */
#include "config.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>	/* glibc 2.35+: __rseq_offset, __rseq_size (0: not registered) */
#define HAVE_GLIBC_RSEQ 1
#endif

#include "doctor.h"
#include "mech.h"
#include "util.h"

#ifndef MEMBARRIER_CMD_FLAG_CPU
#define MEMBARRIER_CMD_FLAG_CPU (1 << 0)
#endif

/* ---- the critical section ------------------------------------------------ */

#if defined(__x86_64__) || (defined(__aarch64__) && defined(__LP64__)) || \
	(defined(__riscv) && __riscv_xlen == 64)
#define RS_HAVE_CS 1
#endif

/* The signature the kernel finds in the 4 bytes before the abort handler:
 * glibc's, since its registration names it. */
#if defined(__x86_64__)
#define RS_SIG 0x53053053	/* in "ud1 0x53053053(%rip), %edi" */
#elif defined(__aarch64__) && defined(__AARCH64EB__)
#define RS_SIG 0x00bc28d4	/* "brk #0x45e0", read as big-endian data */
#elif defined(__aarch64__)
#define RS_SIG 0xd428bc00	/* "brk #0x45e0" */
#elif defined(__riscv)
#define RS_SIG 0xf1401073	/* "csrr x0, mhartid": illegal in user mode */
#else
#define RS_SIG 0
#endif
#if defined(RS_HAVE_CS) && defined(RSEQ_SIG)
_Static_assert(RSEQ_SIG == RS_SIG, "the abort signature differs from glibc's RSEQ_SIG");
#endif
#define RS_STR_(x) #x
#define RS_STR(x) RS_STR_(x)

/* The section's descriptor (struct rseq_cs) at label 3: version, flags,
 * start (1:), post-commit offset (2: - 1:), abort handler (4:). */
#define RS_DESC \
	".pushsection __rseq_cs, \"aw\"\n\t" \
	".balign 32\n\t" \
	"3:\n\t" \
	".long 0, 0\n\t" \
	".quad 1f, 2f - 1f, 4f\n\t" \
	".popsection\n\t"

/*
 * One critical section: arm it (the descriptor's address into the area's
 * rseq_cs), count down from count storing each value to *spin, and return
 * 0 at the end, or 1 where the kernel aborted it. Not inlined: each call
 * runs the one copy its descriptor names.
 */
__attribute__((noinline)) static int rs_cs(uint64_t *rseq_cs, unsigned long count,
					   unsigned long *spin)
{
	int aborted = 0;

#if defined(__x86_64__)
	__asm__ __volatile__(
		RS_DESC
		"leaq 3b(%%rip), %%rax\n\t"
		"movq %%rax, (%[cs])\n\t"
		"1:\n\t"
		"movq %[n], (%[spin])\n\t"
		"decq %[n]\n\t"
		"jnz 1b\n\t"
		"2:\n\t"
		"jmp 5f\n\t"
		".byte 0x0f, 0xb9, 0x3d\n\t"		/* ud1 <sig>(%rip), %edi */
		".long " RS_STR(RS_SIG) "\n\t"
		"4:\n\t"
		"movl $1, %[ab]\n\t"
		"5:\n\t"
		: [n] "+r"(count), [ab] "+r"(aborted)
		: [cs] "r"(rseq_cs), [spin] "r"(spin)
		: "rax", "memory", "cc");
#elif defined(RS_HAVE_CS) && defined(__riscv)
	unsigned long tmp;

	__asm__ __volatile__(
		RS_DESC
		"la %[tmp], 3b\n\t"
		"sd %[tmp], 0(%[cs])\n\t"
		"1:\n\t"
		"sd %[n], 0(%[spin])\n\t"
		"addi %[n], %[n], -1\n\t"
		"bnez %[n], 1b\n\t"
		"2:\n\t"
		"j 5f\n\t"
		".balign 4\n\t"
		".long " RS_STR(RS_SIG) "\n\t"	/* the signature, just before the handler */
		"4:\n\t"
		"li %[ab], 1\n\t"
		"5:\n\t"
		: [n] "+r"(count), [ab] "+r"(aborted), [tmp] "=&r"(tmp)
		: [cs] "r"(rseq_cs), [spin] "r"(spin)
		: "memory");
#elif defined(RS_HAVE_CS)	/* aarch64 */
	unsigned long tmp;

	__asm__ __volatile__(
		RS_DESC
		"adrp %[tmp], 3b\n\t"
		"add %[tmp], %[tmp], :lo12:3b\n\t"
		"str %[tmp], [%[cs]]\n\t"
		"1:\n\t"
		"str %[n], [%[spin]]\n\t"
		"subs %[n], %[n], #1\n\t"
		"b.ne 1b\n\t"
		"2:\n\t"
		"b 5f\n\t"
		".inst 0xd428bc00\n\t"			/* brk #0x45e0: the signature */
		"4:\n\t"
		"mov %w[ab], #1\n\t"
		"5:\n\t"
		: [n] "+r"(count), [ab] "+r"(aborted), [tmp] "=&r"(tmp)
		: [cs] "r"(rseq_cs), [spin] "r"(spin)
		: "memory", "cc");
#else
	(void)rseq_cs;
	(void)count;
	(void)spin;
#endif
	return aborted;
}

/* The thread pointer glibc's __rseq_offset is relative to. */
static inline char *rs_thread_pointer(void)
{
	char *tp = NULL;

#if defined(__x86_64__)
	__asm__("movq %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__)
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
#elif defined(__riscv)
	__asm__("mv %0, tp" : "=r"(tp));
#endif
	return tp;
}

/* ---- the target threads --------------------------------------------------- */

#define RS_TARGETS 3
#define RS_RING 64
#define RS_CS_S 250e-6		/* one critical section: about 0.25 ms */
#define RS_BUDGET_S 1.5		/* the rounds stop after this once each target can be judged */
#define RS_MAX_S 8.0		/* and after this in any case (a starved guest) */
#define RS_OBSERVE_S 0.005	/* a target not seen running within it sits out the round */
#define RS_END_S 0.05		/* nor one whose instance has not ended within it */

/* The kernel's struct rseq as registered by the probe (the original 32 bytes). */
struct rs_area {
	uint32_t cpu_id_start, cpu_id;
	uint64_t rseq_cs;
	uint32_t flags, pad[3];
} __attribute__((aligned(32)));

struct rs_target {
	int cpu;
	pthread_t th;
	_Atomic int ready;		/* 1 running its critical sections; -1 failed (why) */
	_Atomic int active;		/* runs sections only while set, else sleeps */
	_Atomic int *stop;
	char why[160];
	int own;			/* registered its own rseq area */
	unsigned long count;		/* one critical section's countdown */
	/* the countdown, stored at every step (asm): a line of its own */
	unsigned long spin __attribute__((aligned(64)));
	_Atomic uint64_t seq __attribute__((aligned(64)));	/* the instance being run */
	_Atomic uint64_t ring[RS_RING];	/* each ended instance: seq << 1 | aborted */
	_Atomic long aborts, completed;
	struct rseq_target_tally tally __attribute__((aligned(64)));
} __attribute__((aligned(64)));

static __thread struct rs_area rs_own;

/* The rseq_cs word of this thread's area: glibc's, or one registered here. */
static uint64_t *rs_attach(struct rs_target *t)
{
#ifdef HAVE_GLIBC_RSEQ
	if (__rseq_size > 0) {
		struct rs_area *a = (struct rs_area *)(void *)(rs_thread_pointer() + __rseq_offset);

		if ((int32_t)__atomic_load_n(&a->cpu_id, __ATOMIC_RELAXED) >= 0)
			return &a->rseq_cs;
	}
#endif
#ifdef SYS_rseq
	if (syscall(SYS_rseq, &rs_own, sizeof(rs_own), 0, RS_SIG) == 0) {
		t->own = 1;
		return &rs_own.rseq_cs;
	}
	snprintf(t->why, sizeof(t->why), "rseq is unavailable: the rseq system call failed (%s)%s",
		 strerror(errno), errno == ENOSYS ? ": a kernel without CONFIG_RSEQ" : "");
#else
	snprintf(t->why, sizeof(t->why), "rseq: no system call number in these headers");
#endif
	return NULL;
}

static void *rs_target_main(void *arg)
{
	struct rs_target *t = arg;
	double best = 0;
	uint64_t *cs;
	int done = 0;

	if (doctor_pin_to(t->cpu)) {
		snprintf(t->why, sizeof(t->why), "cannot pin a thread to CPU %d: %s", t->cpu, strerror(errno));
		atomic_store(&t->ready, -1);
		return NULL;
	}
	cs = rs_attach(t);
	if (!cs) {
		atomic_store(&t->ready, -1);
		return NULL;
	}
	/* The countdown of RS_CS_S from the fastest of 3 uninterrupted runs. */
	for (int i = 0; i < 200 && done < 3; i++) {
		const unsigned long n = 1UL << 16;
		double t0 = doctor_now_s(), dt;

		if (rs_cs(cs, n, &t->spin))
			continue;
		dt = doctor_now_s() - t0;
		if (!done++ || dt < best)
			best = dt;
	}
	__atomic_store_n(cs, 0, __ATOMIC_RELAXED);
	if (!done) {
		snprintf(t->why, sizeof(t->why),
			 "the critical section on CPU %d never completed in 200 tries (each aborted)", t->cpu);
		atomic_store(&t->ready, -1);
		goto out;
	}
	/* A clock too coarse to time 2^16 steps reads 0: take 1 us for them
	 * (0.015 ns a step, faster than any CPU: the shortest section). */
	if (best < 1e-6)
		best = 1e-6;
	t->count = (unsigned long)(RS_CS_S / best * (double)(1UL << 16));
	if (t->count < 1000)
		t->count = 1000;
	atomic_store(&t->ready, 1);
	for (uint64_t s = 1; !atomic_load_explicit(t->stop, memory_order_relaxed); s++) {
		int ab;

		/* Idle while another target is measured: its vCPU halts and
		 * leaves the host CPU to the caller's and the active one's. */
		while (!atomic_load_explicit(&t->active, memory_order_acquire) &&
		       !atomic_load_explicit(t->stop, memory_order_relaxed))
			doctor_sleep_ms(1);
		atomic_store_explicit(&t->seq, s, memory_order_release);
		ab = rs_cs(cs, t->count, &t->spin);
		__atomic_store_n(&t->spin, 0, __ATOMIC_RELEASE);
		atomic_store_explicit(&t->ring[s % RS_RING], s << 1 | (uint64_t)ab, memory_order_release);
		atomic_fetch_add_explicit(ab ? &t->aborts : &t->completed, 1, memory_order_relaxed);
	}
	__atomic_store_n(cs, 0, __ATOMIC_RELAXED);
out:
#ifdef SYS_rseq
	if (t->own)
		syscall(SYS_rseq, &rs_own, sizeof(rs_own), 1 /* RSEQ_FLAG_UNREGISTER */, RS_SIG);
#endif
	return NULL;
}

/* ---- the caller's rounds -------------------------------------------------- */

enum { RS_CTL, RS_ALL, RS_CPU };

/*
 * Sees target t running inside an instance: its countdown moves while its
 * instance number stays. The instance, or 0.
 */
static uint64_t rs_observe(struct rs_target *t, double until)
{
	while (doctor_now_s() < until) {
		uint64_t s = atomic_load_explicit(&t->seq, memory_order_acquire);
		unsigned long v = __atomic_load_n(&t->spin, __ATOMIC_ACQUIRE), w;

		if (!v)
			continue;
		for (int i = 0; i < 100000; i++) {
			w = __atomic_load_n(&t->spin, __ATOMIC_ACQUIRE);
			if (w != v)
				break;
		}
		if (w && w != v && atomic_load_explicit(&t->seq, memory_order_acquire) == s)
			return s;
	}
	return 0;
}

/* How instance s of t ended: 1 aborted, 0 completed, -1 not seen to end. */
static int rs_outcome(struct rs_target *t, uint64_t s, double until)
{
	for (;;) {
		uint64_t r = atomic_load_explicit(&t->ring[s % RS_RING], memory_order_acquire);

		if (r >> 1 == s)
			return (int)(r & 1);
		if (r >> 1 > s || doctor_now_s() > until)
			return -1;
	}
}

struct rs_run {
	struct rs_target *t;
	int n, caller_cpu, flag_cpu;	/* flag_cpu: 1 works, -1 refused */
	long rounds[3];
	char err[160];
};

/*
 * One round of kind k (RS_CPU: aimed at cpu) on target a: 0, or -1 when a
 * barrier failed. The round counts only when the target was seen running
 * inside instance s before the barrier and s had not completed when the
 * barrier returned (the kernel has run ipi_rseq on each CPU by then): so s
 * was running when the IPI came, whatever the caller's or the target's
 * vCPU did in between. An instance that completed first says nothing.
 */
static int rs_round(struct rs_run *r, int a, int k, int cpu)
{
	struct rs_target *t = &r->t[a];
	struct rseq_target_tally *y = &t->tally;
	struct rseq_tally *c;
	uint64_t s = rs_observe(t, doctor_now_s() + RS_OBSERVE_S), e;
	int ret = 0, o;

	if (!s)
		return 0;
	if (k == RS_ALL)
		ret = sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0, 0);
	else if (k == RS_CPU)
		ret = sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, cpu);
	if (ret) {
		if (k == RS_CPU && errno == EINVAL && r->flag_cpu == 0) {
			r->flag_cpu = -1;
			return 0;
		}
		snprintf(r->err, sizeof(r->err), "MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ%s: %s",
			 k == RS_CPU ? " with FLAG_CPU" : "", strerror(errno));
		return -1;
	}
	if (k == RS_CPU)
		r->flag_cpu = 1;
	e = atomic_load_explicit(&t->ring[s % RS_RING], memory_order_acquire);
	if (e >> 1 > s || (e >> 1 == s && !(e & 1)))
		return 0;
	if ((o = rs_outcome(t, s, doctor_now_s() + RS_END_S)) < 0)
		return 0;
	c = k == RS_CTL ? &y->ctl : k == RS_ALL ? &y->all : cpu == t->cpu ? &y->aimed : &y->other;
	c->n++;
	c->aborted += o;
	r->rounds[k]++;
	return 0;
}

/* Target a has the rounds the judgement needs (all: those it wants). */
static int rs_enough(const struct rs_run *r, int a, int all)
{
	const struct rseq_target_tally *y = &r->t[a].tally;
	double p0 = y->ctl.n ? (double)y->ctl.aborted / (double)y->ctl.n : 1;

	if (all)
		return y->ctl.n >= 50 && y->all.n >= 100 &&
		       (r->flag_cpu < 0 || (y->aimed.n >= 30 && y->other.n >= 30));
	return y->ctl.n >= RSEQ_MIN_ROUNDS && y->all.n >= RSEQ_MIN_ROUNDS &&
	       (double)y->all.n * (1 - p0) >= RSEQ_MIN_INFORMATIVE &&
	       (r->flag_cpu < 0 || (y->aimed.n >= RSEQ_MIN_ROUNDS && y->other.n >= RSEQ_MIN_ROUNDS));
}

/*
 * The rounds: one target active at a time (the others sleep, so that a
 * guest's idle vCPUs leave the host's CPUs to the caller's and the active
 * one's), in blocks of 8; in each, control, all, FLAG_CPU, all, FLAG_CPU
 * aimed alternately at the active target's CPU and elsewhere (the caller's
 * CPU, an idle target's). Until every target has the rounds it wants; after
 * RS_BUDGET_S as soon as each can be judged; after RS_MAX_S in any case.
 */
static void rs_rounds(struct rs_run *r)
{
	static const int cycle[] = { RS_CTL, RS_ALL, RS_CPU, RS_ALL };
	double t0 = doctor_now_s(), now;
	int a = -1, elsewhere = 0, aim[RS_TARGETS] = { 0 };
	long i = 0;

	for (;;) {
		int done = 1, judged = 1, next = -1;

		for (int j = 0; j < r->n; j++) {
			done &= rs_enough(r, j, 1);
			judged &= rs_enough(r, j, 0);
		}
		now = doctor_now_s();
		if (done || (judged && now - t0 > RS_BUDGET_S) || now - t0 > RS_MAX_S)
			break;
		/* The next target that wants rounds, after a block of 8. */
		if (a < 0 || i % 8 == 0 || rs_enough(r, a, 1)) {
			for (int j = 1; j <= r->n && next < 0; j++)
				if (!rs_enough(r, (a + j + r->n) % r->n, 1))
					next = (a + j + r->n) % r->n;
			if (next < 0)
				break;
			if (next != a) {
				if (a >= 0)
					atomic_store(&r->t[a].active, 0);
				a = next;
				atomic_store(&r->t[a].active, 1);
			}
		}
		{
			int k = cycle[i++ % 4], cpu = -1;

			if (k == RS_CPU && r->flag_cpu < 0)
				k = RS_ALL;
			if (k == RS_CPU) {
				if (!(elsewhere ^= 1)) {
					cpu = r->t[a].cpu;
				} else {
					/* the caller's CPU, then each other target's */
					int o = aim[a]++ % r->n;

					cpu = o == 0 ? r->caller_cpu : r->t[(a + o) % r->n].cpu;
				}
			}
			if (rs_round(r, a, k, cpu))
				break;
		}
	}
	for (int j = 0; j < r->n; j++)
		atomic_store(&r->t[j].active, 0);
}

static const char *rs_tally_say(char *buf, size_t len, struct rseq_tally c)
{
	if (c.n)
		snprintf(buf, len, "%ld/%ld aborted (%.3f)", c.aborted, c.n, (double)c.aborted / (double)c.n);
	else
		snprintf(buf, len, "no rounds");
	return buf;
}

void probe_rseq_restart(struct finding *f, struct hostinfo *h)
{
	long mask = membarrier_query();
	struct rs_target *t = NULL;
	struct rs_run r = { 0 };
	_Atomic int stop = 0;
	cpu_set_t saved;
	int cpus[RS_TARGETS + 1], ncpu = 0, started = 0;
	double t0 = doctor_now_s();

	(void)h;
	f->measure = NAN;
	f->unit = "aborts/barrier";
	f->consequence = "a per-CPU allocator (tcmalloc, a per-CPU cache) takes a CPU's cache back by this barrier: a critical section left running commits into memory the caller already took, which corrupts the cache (tcmalloc crashed after the Linux 6.19 rseq rework)";
	f->workaround = "where affected: disable the per-CPU caches (tcmalloc: TCMALLOC_PER_CPU_CACHES=0 or its rseq off switch; glibc: GLIBC_TUNABLES=glibc.pthread.rseq=0 for programs that only read the CPU number) until the kernel is fixed";
	f->fix = "MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ needs Linux 5.10 (with FLAG_CPU) and CONFIG_RSEQ; a kernel where it restarts nothing needs the rseq fix of its series";
	f->reference = "membarrier(2), rseq(2); kernel/sched/membarrier.c ipi_rseq(); the rseq rework of Linux 6.19 and tcmalloc's per-CPU caches";
	if (mask < 0 || !(mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ is not offered here (QUERY): nothing to check");
		return;
	}
#ifndef RS_HAVE_CS
	f->result = RES_CANNOT_TELL;
	snprintf(f->reason, sizeof(f->reason), "no rseq critical section for this architecture");
	return;
#endif
	if (sched_getaffinity(0, sizeof(saved), &saved))
		fail("sched_getaffinity: %s", strerror(errno));
	for (int c = 0; c < CPU_SETSIZE && ncpu < RS_TARGETS + 1; c++)
		if (CPU_ISSET(c, &saved))
			cpus[ncpu++] = c;
	if (ncpu < 2) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason),
			 "needs two CPUs (a caller and a target on another): %d allowed here", ncpu);
		return;
	}
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0)) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ: %s",
			 strerror(errno));
		return;
	}
	r.caller_cpu = cpus[0];
	r.n = ncpu - 1;
	t = xcalloc((size_t)r.n, sizeof(*t));
	if (doctor_pin_to(r.caller_cpu))
		fail("cannot pin to CPU %d: %s", r.caller_cpu, strerror(errno));
	for (int i = 0; i < r.n; i++) {
		t[i].cpu = cpus[i + 1];
		t[i].tally.cpu = t[i].cpu;
		t[i].stop = &stop;
		if (pthread_create(&t[i].th, NULL, rs_target_main, &t[i])) {
			snprintf(t[i].why, sizeof(t[i].why), "cannot start a thread");
			atomic_store(&t[i].ready, -1);
			break;
		}
		started++;
	}
	r.t = t;
	for (int i = 0; i < started; i++)
		while (!atomic_load(&t[i].ready) && doctor_now_s() - t0 < 5)
			doctor_sleep_ms(1);
	for (int i = 0; i < r.n; i++)
		if (atomic_load(&t[i].ready) != 1) {
			f->result = RES_CANNOT_TELL;
			snprintf(f->reason, sizeof(f->reason), "%s",
				 t[i].why[0] ? t[i].why : "a target thread did not start its critical sections within 5 s");
			goto out;
		}
	rs_rounds(&r);

#ifdef HAVE_GLIBC_RSEQ
	if (t[0].own)
		doctor_say(f->evidence, "rseq areas registered by the probe (glibc did not register: __rseq_size 0)");
	else
		doctor_say(f->evidence, "glibc's rseq areas (__rseq_offset %ld, __rseq_size %u)", (long)__rseq_offset,
			   __rseq_size);
#else
	doctor_say(f->evidence, "rseq areas registered by the probe (a C library before glibc 2.35)");
#endif
	doctor_say(f->evidence, "; caller on CPU %d, %d target%s (one running at a time); each critical section a countdown of about %.2f ms; rounds that found a target inside its section and the section still running after the barrier: %ld control, %ld barriers, %ld with FLAG_CPU (%s), in %.2f s",
		   r.caller_cpu, r.n, r.n == 1 ? "" : "s", RS_CS_S * 1e3, r.rounds[RS_CTL], r.rounds[RS_ALL],
		   r.rounds[RS_CPU], r.flag_cpu > 0 ? "aimed at the target's CPU and elsewhere in turn" :
				     r.flag_cpu < 0 ? "refused: EINVAL" : "not run",
		   doctor_now_s() - t0);
	for (int i = 0; i < r.n; i++) {
		struct rseq_target_tally *y = &t[i].tally;
		char a[64], b[64], c[64], d[64];

		doctor_say(f->evidence, "; CPU %d (countdown %lu): without a barrier %s, PRIVATE_EXPEDITED_RSEQ %s = %.3f per barrier beyond the background",
			   t[i].cpu, t[i].count, rs_tally_say(a, sizeof(a), y->ctl), rs_tally_say(b, sizeof(b), y->all),
			   doctor_rseq_excess(y->all, y->ctl));
		if (r.flag_cpu > 0)
			doctor_say(f->evidence, ", FLAG_CPU aimed there %s, aimed elsewhere %s",
				   rs_tally_say(c, sizeof(c), y->aimed), rs_tally_say(d, sizeof(d), y->other));
	}
	if (r.err[0]) {
		f->result = RES_CANNOT_TELL;
		snprintf(f->reason, sizeof(f->reason), "%s", r.err);
		goto out;
	}
	{
		struct rseq_target_tally y[RS_TARGETS];

		for (int i = 0; i < r.n; i++)
			y[i] = t[i].tally;
		f->result = doctor_rseq_judge(y, r.n, r.flag_cpu, &f->measure, f->reason, sizeof(f->reason));
	}
out:
	atomic_store(&stop, 1);
	for (int i = 0; i < started; i++)
		pthread_join(t[i].th, NULL);
	free(t);
	sched_setaffinity(0, sizeof(saved), &saved);
}
