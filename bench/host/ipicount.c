// SPDX-License-Identifier: MIT
/*
 * IPI counting for the disturb experiment. Tracepoints count every
 * function-call IPI a CPU handled, per CPU, from the kernel's own hooks
 * (x86's irq_vectors); /proc/interrupts is the fallback anyone can read
 * (its function-call row by label or name on every architecture: CAL on
 * x86, IPIn "Function call interrupts" on arm64), with the caveat that an
 * idle polling target runs the function without an IPI and without a CAL
 * count (docs/FINDINGS.md). Attribution to the membarrier callbacks uses
 * csd:csd_queue_cpu (Linux 6.4+) filtered on the function address from
 * /proc/kallsyms and on the target CPU: it counts the cross-CPU calls
 * queued for that CPU, on the sending side. (ipi:ipi_send_cpu names
 * generic_smp_call_function_single_interrupt as its callback on these
 * kernels, so it cannot tell membarrier's IPIs from others.)
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipicount.h"
#include "util.h"

static const char *const tracefs_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

/* The membarrier IPI callbacks of kernel/sched/membarrier.c. */
static const char *const mb_callbacks[] = {
	"ipi_mb", "ipi_sync_core", "ipi_rseq", "ipi_sync_rq_state",
};

const char *ipi_source_name(enum ipi_source s)
{
	switch (s) {
	case IPI_SRC_TRACEPOINT:
		return "tracepoint";
	case IPI_SRC_PROC:
		return "proc-interrupts";
	default:
		return "none";
	}
}

/* Tracepoint id from tracefs, or -1 with why. */
static long tp_id(const char *event, char *why, size_t len)
{
	int readable_root = 0;

	for (size_t i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]); i++) {
		char path[256];
		FILE *f;
		long id;

		snprintf(path, sizeof(path), "%s/events/%s/id", tracefs_roots[i], event);
		f = fopen(path, "r");
		if (!f) {
			if (errno == EACCES)
				readable_root = -1;
			continue;
		}
		if (fscanf(f, "%ld", &id) == 1) {
			fclose(f);
			return id;
		}
		fclose(f);
	}
	if (readable_root < 0)
		snprintf(why, len, "tracefs is not readable here (%s/events/%s/id: permission denied)",
			 tracefs_roots[0], event);
	else
		snprintf(why, len, "tracepoint %s not found (tracefs not mounted at %s, or the kernel lacks it)",
			 event, tracefs_roots[0]);
	return -1;
}

static int perf_open_tp(long id, int cpu, const char *filter)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (uint64_t)id;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

void ipi_perf_why(int err, char *why, size_t len)
{
	int paranoid = 99;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 99;
		fclose(f);
	}
	if (err == EACCES || err == EPERM)
		snprintf(why, len, "perf_event_open on tracepoints needs root, CAP_PERFMON or perf_event_paranoid <= -1 (it is %d)",
			 paranoid);
	else
		snprintf(why, len, "perf_event_open: %s", strerror(err));
}

int ipi_kallsyms(const char *const *names, int n, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	int found = 0;

	memset(addr, 0, sizeof(*addr) * (size_t)n);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || !a)
			continue;
		for (int i = 0; i < n; i++)
			if (!addr[i] && !strcmp(name, names[i])) {
				addr[i] = a;
				found++;
			}
	}
	fclose(f);
	return found;
}

static void open_attribution(struct ipicount *ic)
{
	enum { NCB = sizeof(mb_callbacks) / sizeof(mb_callbacks[0]) };
	uint64_t addr[NCB];
	char cb[512] = "", filt[640], why[256];
	long id;
	size_t nfd = (size_t)ic->ntargets * (size_t)ic->ncpus;

	if (ic->src != IPI_SRC_TRACEPOINT) {
		snprintf(ic->attr_why, sizeof(ic->attr_why), "needs the tracepoints (%.200s)", ic->src_why);
		return;
	}
	if (nfd > 4096) {
		snprintf(ic->attr_why, sizeof(ic->attr_why), "too many CPUs for per-target attribution (%zu counters)", nfd);
		return;
	}
	id = tp_id("csd/csd_queue_cpu", why, sizeof(why));
	if (id < 0) {
		snprintf(ic->attr_why, sizeof(ic->attr_why), "%s", why);
		return;
	}
	if (!ipi_kallsyms(mb_callbacks, NCB, addr)) {
		snprintf(ic->attr_why, sizeof(ic->attr_why),
			 "membarrier callbacks not in /proc/kallsyms (hidden by kptr_restrict?)");
		return;
	}
	for (int i = 0; i < NCB; i++) {
		size_t l = strlen(cb);

		if (addr[i])
			snprintf(cb + l, sizeof(cb) - l, "%sfunc == 0x%llx", l ? " || " : "",
				 (unsigned long long)addr[i]);
	}
	ic->afd = xcalloc(nfd, sizeof(int));
	for (size_t i = 0; i < nfd; i++)
		ic->afd[i] = -1;
	for (int t = 0; t < ic->ntargets; t++) {
		for (int s = 0; s < ic->ncpus; s++) {
			int *p = &ic->afd[(size_t)t * (size_t)ic->ncpus + (size_t)s];

			/* Only our caller's calls: other processes use ipi_mb too. */
			snprintf(filt, sizeof(filt), "(%s) && cpu == %d && common_pid == %d",
				 cb, ic->targets[t], ic->sender);
			*p = perf_open_tp(id, s, filt);
			if (*p == -ENODEV) {	/* offline CPU */
				*p = -1;
				continue;
			}
			if (*p < 0) {
				snprintf(ic->attr_why, sizeof(ic->attr_why),
					 "cannot filter csd_queue_cpu on the function: %s",
					 strerror(-*p));
				for (size_t i = 0; i < nfd; i++)
					if (ic->afd[i] >= 0)
						close(ic->afd[i]);
				free(ic->afd);
				ic->afd = NULL;
				return;
			}
		}
	}
}

/*
 * As root with tracefs not mounted, mount it where the kernel expects it, as
 * perf does, and say so; anyone else gets the reason from tp_id().
 */
static void mount_tracefs(struct ipicount *ic)
{
	struct stat st;

	if (geteuid() != 0 || stat("/sys/kernel/tracing", &st) || !S_ISDIR(st.st_mode) ||
	    !stat("/sys/kernel/tracing/events", &st))
		return;
	if (!mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		snprintf(ic->mount_note, sizeof(ic->mount_note),
			 "tracefs was not mounted: mbbench mounted it at /sys/kernel/tracing");
}

void ipicount_open(struct ipicount *ic, int ncpus, enum ipi_source want,
		   const int *targets, int ntargets)
{
	long id[2];

	memset(ic, 0, sizeof(*ic));
	ic->sender = (int)syscall(SYS_gettid);
	ic->ncpus = ncpus;
	ic->src = IPI_SRC_PROC;
	ic->ntargets = ntargets;
	ic->targets = xcalloc((size_t)(ntargets ? ntargets : 1), sizeof(int));
	memcpy(ic->targets, targets, sizeof(int) * (size_t)ntargets);
	if (want != IPI_SRC_PROC)
		mount_tracefs(ic);
	if (want == IPI_SRC_PROC) {
		snprintf(ic->src_why, sizeof(ic->src_why), "--ipi-source proc asked for /proc/interrupts");
	} else if ((id[0] = tp_id("irq_vectors/call_function_entry", ic->src_why, sizeof(ic->src_why))) >= 0 &&
		   (id[1] = tp_id("irq_vectors/call_function_single_entry", ic->src_why, sizeof(ic->src_why))) >= 0) {
		ic->fd = xcalloc((size_t)ncpus * 2, sizeof(int));
		ic->src = IPI_SRC_TRACEPOINT;
		for (int c = 0; c < ncpus && ic->src == IPI_SRC_TRACEPOINT; c++) {
			for (int k = 0; k < 2; k++) {
				int fd = perf_open_tp(id[k], c, NULL);

				ic->fd[c * 2 + k] = fd < 0 ? -1 : fd;
				if (fd == -ENODEV)	/* offline CPU: nothing to count */
					continue;
				if (fd < 0) {
					ipi_perf_why(-fd, ic->src_why, sizeof(ic->src_why));
					ic->src = IPI_SRC_PROC;
					break;
				}
			}
		}
		if (ic->src != IPI_SRC_TRACEPOINT) {
			for (int i = 0; i < ncpus * 2; i++)
				if (ic->fd[i] >= 0)
					close(ic->fd[i]);
			free(ic->fd);
			ic->fd = NULL;
		}
	}
	open_attribution(ic);
}

void ipicount_close(struct ipicount *ic)
{
	if (ic->fd) {
		for (int i = 0; i < ic->ncpus * 2; i++)
			if (ic->fd[i] >= 0)
				close(ic->fd[i]);
		free(ic->fd);
	}
	if (ic->afd) {
		for (size_t i = 0; i < (size_t)ic->ntargets * (size_t)ic->ncpus; i++)
			if (ic->afd[i] >= 0)
				close(ic->afd[i]);
		free(ic->afd);
	}
	free(ic->targets);
	memset(ic, 0, sizeof(*ic));
}

void ipisnap_init(struct ipisnap *s, int ncpus)
{
	memset(s, 0, sizeof(*s));
	s->ipis = xcalloc((size_t)ncpus, sizeof(uint64_t));
	s->mb = xcalloc((size_t)ncpus, sizeof(uint64_t));
	s->tlb = xcalloc((size_t)ncpus, sizeof(uint64_t));
	s->idle = xcalloc((size_t)ncpus, sizeof(uint64_t));
	s->have_mb = xcalloc((size_t)ncpus, sizeof(int));
}

void ipisnap_free(struct ipisnap *s)
{
	free(s->ipis);
	free(s->mb);
	free(s->tlb);
	free(s->idle);
	free(s->have_mb);
	memset(s, 0, sizeof(*s));
}

/*
 * What /proc/interrupts calls the rows the suite reads, on every
 * architecture: x86 labels them CAL, RES and TLB; arm64 and riscv number
 * their IPIs (IPI0, IPI1, ...) in an order that changes between kernels,
 * so a row is found by its label or, failing that, by its description.
 */
static const struct {
	const char *label, *desc;
} irq_rows[] = {
	{ "CAL", "Function call interrupts" },
	{ "RES", "Rescheduling interrupts" },
	{ "TLB", "TLB shootdowns" },
};

static const char *row_desc(const char *row)
{
	for (size_t i = 0; i < sizeof(irq_rows) / sizeof(irq_rows[0]); i++)
		if (!strcmp(irq_rows[i].label, row))
			return irq_rows[i].desc;
	return NULL;
}

const char *ipi_no_tlb_why(void)
{
#if defined(__aarch64__)
	return "no TLB-shootdown IPIs on this architecture (arm64 flushes TLBs with broadcast TLBI instructions)";
#elif defined(__riscv)
	return "no TLB-shootdown row on riscv64: a remote flush is an SBI remote fence handled by the firmware (when IPIs go through the SBI), or a function-call IPI";
#else
	return "/proc/interrupts has no TLB row on this architecture";
#endif
}

int proc_interrupts_row(FILE *f, const char *row, uint64_t *out, int ncpus)
{
	char *line = NULL;
	size_t cap = 0;
	int *col = NULL, ncol = 0, ret = -1;
	size_t rl = strlen(row);
	const char *desc = row_desc(row);
	uint64_t *v = NULL;

	memset(out, 0, sizeof(*out) * (size_t)ncpus);
	if (getline(&line, &cap, f) < 0)
		goto out;
	/* Header: "           CPU0       CPU1 ..." */
	for (char *p = line; (p = strstr(p, "CPU")); ) {
		char *end;
		long c;

		p += 3;
		c = strtol(p, &end, 10);
		if (end == p)
			continue;
		col = xrealloc(col, sizeof(int) * (size_t)(ncol + 1));
		col[ncol++] = (int)c;
		p = end;
	}
	if (!ncol)
		goto out;
	v = xcalloc((size_t)ncol, sizeof(*v));
	while (getline(&line, &cap, f) >= 0) {
		char *p = line, *end, *colon = strchr(line, ':');
		int label, i;
		size_t dl;

		while (*p == ' ')
			p++;
		if (!colon)
			continue;
		label = !strncmp(p, row, rl) && p + rl == colon;
		if (!label && !desc)
			continue;
		p = colon + 1;
		for (i = 0; i < ncol; i++) {
			unsigned long long x;

			errno = 0;
			x = strtoull(p, &end, 10);
			if (end == p || errno)
				break;
			v[i] = x;
			p = end;
		}
		if (i < ncol) {
			if (label)
				goto out;	/* the row asked for, malformed */
			continue;
		}
		if (!label) {
			/* by its description: the rest of the line, trimmed */
			while (*p == ' ' || *p == '\t')
				p++;
			dl = strlen(p);
			while (dl && (p[dl - 1] == '\n' || p[dl - 1] == ' '))
				dl--;
			if (dl != strlen(desc) || strncmp(p, desc, dl))
				continue;
		}
		for (i = 0; i < ncol; i++)
			if (col[i] >= 0 && col[i] < ncpus)
				out[col[i]] = v[i];
		ret = 0;
		break;
	}
out:
	free(v);
	free(line);
	free(col);
	return ret;
}

int proc_interrupts_read(const char *row, uint64_t *out, int ncpus)
{
	FILE *f = fopen("/proc/interrupts", "r");
	int r;

	if (!f)
		return -1;
	r = proc_interrupts_row(f, row, out, ncpus);
	fclose(f);
	return r;
}

/* Sum of cpuidle state usage counts: how often the CPU entered idle. */
static int read_idle(int cpu, uint64_t *out)
{
	char path[128];
	DIR *d;
	struct dirent *e;
	int n = 0;

	*out = 0;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle", cpu);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char p2[300];
		FILE *f;
		unsigned long long v;

		if (strncmp(e->d_name, "state", 5))
			continue;
		snprintf(p2, sizeof(p2), "%.127s/%.64s/usage", path, e->d_name);
		f = fopen(p2, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1) {
			*out += v;
			n++;
		}
		fclose(f);
	}
	closedir(d);
	return n ? 0 : -1;
}

static uint64_t fd_count(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

void ipicount_read(struct ipicount *ic, struct ipisnap *s)
{
	int n = ic->ncpus;

	s->have_ipis = 1;
	if (ic->src == IPI_SRC_TRACEPOINT) {
		for (int c = 0; c < n; c++)
			s->ipis[c] = fd_count(ic->fd[c * 2]) + fd_count(ic->fd[c * 2 + 1]);
	} else if (proc_interrupts_read("CAL", s->ipis, n)) {
		s->have_ipis = 0;
		char old[256];

		memcpy(old, ic->src_why, sizeof(old));
		snprintf(ic->src_why, sizeof(ic->src_why),
			 "%.150s; and /proc/interrupts has no function-call row (CAL, or one named so)",
			 old[0] ? old : "no tracepoints");
	}
	s->have_tlb = !proc_interrupts_read("TLB", s->tlb, n);
	if (!s->have_tlb) {
		snprintf(ic->tlb_why, sizeof(ic->tlb_why), "%s", ipi_no_tlb_why());
	} else {
		uint64_t sum = 0;

		for (int c = 0; c < n; c++)
			sum += s->tlb[c];
		/* A counter that has never moved cannot say 0: not observable here. */
		if (!sum) {
			s->have_tlb = 0;
			snprintf(ic->tlb_why, sizeof(ic->tlb_why),
				 "not observable here: the TLB row of /proc/interrupts has not moved since boot (the guest flushes without an IPI it can see)");
		}
	}
	s->have_idle = 1;
	for (int c = 0; c < n; c++)
		if (read_idle(c, &s->idle[c]))
			s->have_idle = 0;
	if (!s->have_idle)
		snprintf(ic->idle_why, sizeof(ic->idle_why), "no cpuidle usage counters (/sys/devices/system/cpu/cpuN/cpuidle)");
	memset(s->have_mb, 0, sizeof(int) * (size_t)n);
	if (ic->afd) {
		for (int t = 0; t < ic->ntargets; t++) {
			int cpu = ic->targets[t];
			uint64_t sum = 0;

			for (int src = 0; src < n; src++) {
				sum += fd_count(ic->afd[(size_t)t * (size_t)n + (size_t)src]);
			}
			if (cpu >= 0 && cpu < n) {
				s->mb[cpu] = sum;
				s->have_mb[cpu] = 1;
			}
		}
	}
}

int ipicount_read_cpu(struct ipicount *ic, int cpu, uint64_t *out)
{
	int n = ic->ncpus;

	*out = 0;
	if (cpu < 0 || cpu >= n)
		return -1;
	if (ic->afd) {
		for (int t = 0; t < ic->ntargets; t++) {
			if (ic->targets[t] != cpu)
				continue;
			for (int src = 0; src < n; src++)
				*out += fd_count(ic->afd[(size_t)t * (size_t)n + (size_t)src]);
			return 0;
		}
	}
	if (ic->src == IPI_SRC_TRACEPOINT) {
		*out = fd_count(ic->fd[cpu * 2]) + fd_count(ic->fd[cpu * 2 + 1]);
		return 0;
	} else {
		uint64_t *row = xcalloc((size_t)n, sizeof(uint64_t));
		int r = proc_interrupts_read("CAL", row, n);

		*out = row[cpu];
		free(row);
		return r;
	}
}
