/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU counts of the interrupts a barrier can cause on other CPUs:
 * function-call IPIs received (perf tracepoints irq_vectors:call_function*
 * when readable, else the CAL row of /proc/interrupts), the IPIs requested
 * with a membarrier callback (csd:csd_queue_cpu filtered on the function
 * address), TLB shootdowns (TLB row) and cpuidle entries.
 * The source used is always recorded: the two do not count the same thing
 * (docs/FINDINGS.md, "Counting IPIs").
 */
#ifndef MBBENCH_IPICOUNT_H
#define MBBENCH_IPICOUNT_H

#include <stdint.h>
#include <stdio.h>

enum ipi_source { IPI_SRC_AUTO, IPI_SRC_TRACEPOINT, IPI_SRC_PROC };

struct ipicount {
	int ncpus;		/* CPU numbers 0..ncpus-1 are counted */
	enum ipi_source src;	/* what ipis[] comes from */
	char src_why[256];	/* why tracepoints are not used, or "" */
	int *fd;		/* [cpu][2]: call_function_entry, _single_entry */
	int sender;		/* tid whose membarrier calls are attributed */
	int ntargets;
	int *targets;		/* CPUs with membarrier-callback attribution */
	int *afd;		/* [target][source cpu]: csd_queue_cpu, filtered */
	char attr_why[256];	/* why attribution is unavailable, or "" */
	char tlb_why[160];
	char mount_note[128];	/* set when ipicount_open mounted tracefs */
	char idle_why[128];
};

/* One reading; every array has ncpus entries; have_* says it was measured. */
struct ipisnap {
	uint64_t *ipis, *mb, *tlb, *idle;
	int have_ipis, have_tlb, have_idle;
	int *have_mb;	/* per CPU: attribution was counted there */
};

/*
 * Open counters for CPUs 0..ncpus-1 and membarrier attribution for the
 * `ntargets` CPUs in targets, counting only calls made by the calling
 * thread (the caller issues every barrier). want = IPI_SRC_PROC skips the tracepoints.
 */
void ipicount_open(struct ipicount *ic, int ncpus, enum ipi_source want,
		   const int *targets, int ntargets);
void ipicount_close(struct ipicount *ic);
void ipisnap_init(struct ipisnap *s, int ncpus);
void ipisnap_free(struct ipisnap *s);
void ipicount_read(struct ipicount *ic, struct ipisnap *s);
const char *ipi_source_name(enum ipi_source s);
/*
 * One CPU's count, cheap enough to read every few barriers (no TLB or idle
 * counters): the membarrier IPIs queued for it by the sender when it is a
 * target with attribution, else every function-call IPI it received.
 * Returns 0, or -1 when nothing could be read.
 */
int ipicount_read_cpu(struct ipicount *ic, int cpu, uint64_t *out);

/*
 * Parse one row ("CAL", "RES", "TLB") of /proc/interrupts text: out[cpu]
 * for the CPUs named in the header line (offline ones are absent there and
 * stay 0). A row is found by its x86 label or by what every architecture
 * calls it ("Function call interrupts", "Rescheduling interrupts", "TLB
 * shootdowns": arm64's IPI1 and IPI0). Returns 0, or -1 when the row or
 * the header is missing or malformed.
 */
int proc_interrupts_row(FILE *f, const char *row, uint64_t *out, int ncpus);
/* The same, read from /proc/interrupts itself: 0, or -1. */
int proc_interrupts_read(const char *row, uint64_t *out, int ncpus);
/* Why this architecture has no TLB row to read: said, never a zero. */
const char *ipi_no_tlb_why(void);

/* Why perf_event_open failed with err on a tracepoint, for a skipped row. */
void ipi_perf_why(int err, char *why, size_t len);
/*
 * The addresses of kernel text symbols names[0..n) from /proc/kallsyms into
 * addr (0 when absent or hidden by kptr_restrict); how many were found.
 */
int ipi_kallsyms(const char *const *names, int n, uint64_t *addr);

#endif
