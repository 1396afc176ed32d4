/* SPDX-License-Identifier: MIT */
/*
 * Full and compiler barriers for the user-space side of the schemes.
 *
 * On x86-64 a locked add to the stack is a full barrier and is cheaper than
 * mfence on current AMD and Intel parts (liburcu uses it for that reason,
 * measured on AMD Ryzen 7; the reader-side `fence` mechanism shows the cost
 * on this host). The slot below the red zone is never live data.
 */
#ifndef MBBENCH_BARRIER_H
#define MBBENCH_BARRIER_H

#define compiler_barrier() __asm__ __volatile__("" ::: "memory")

static inline void smp_mb_full(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("lock; addl $0,-128(%%rsp)" ::: "memory", "cc");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#else
	compiler_barrier();
#endif
}

#endif
