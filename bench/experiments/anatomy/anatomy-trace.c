// SPDX-License-Identifier: MIT
/*
 * anatomy's tracing: every tracepoint of anatomy.h opened with
 * perf_event_open on each CPU of the team, sampling every event with its
 * time (CLOCK_MONOTONIC, through use_clockid), CPU, task and raw record
 * into one ring buffer per CPU (PERF_EVENT_IOC_SET_OUTPUT), which we read
 * ourselves. Raw fields are found in each tracepoint's format file, never
 * at assumed offsets.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "anatomy-trace.h"
#include "ipicount.h"
#include "util.h"

static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* What each tracepoint gives; field names as in their format files. */
static const struct {
	const char *event;
	enum ana_kind kind;
	int group;		/* ANA_G_* it belongs to */
	int mine;		/* filtered on the caller's tid in the kernel */
	const char *target, *func, *csd;
} tps[] = {
	{ "syscalls/sys_enter_membarrier", ANA_ENTER, ANA_G_SYSCALL, 1, NULL, NULL, NULL },
	{ "syscalls/sys_exit_membarrier", ANA_EXIT, ANA_G_SYSCALL, 1, NULL, NULL, NULL },
	{ "syscalls/sys_enter_mprotect", ANA_ENTER, ANA_G_SYSCALL, 1, NULL, NULL, NULL },
	{ "syscalls/sys_exit_mprotect", ANA_EXIT, ANA_G_SYSCALL, 1, NULL, NULL, NULL },
	{ "csd/csd_queue_cpu", ANA_QUEUE, ANA_G_CSD, 1, "cpu", "func", "csd" },
	{ "csd/csd_function_entry", ANA_HENTRY, ANA_G_CSD, 0, NULL, "func", "csd" },
	{ "csd/csd_function_exit", ANA_HEXIT, ANA_G_CSD, 0, NULL, "func", "csd" },
	{ "ipi/ipi_send_cpu", ANA_IPI, ANA_G_IPI, 1, "cpu", NULL, NULL },
	{ "ipi/ipi_send_cpumask", ANA_IPI, ANA_G_IPI, 1, "cpumask", NULL, NULL },
	{ "raw_syscalls/sys_enter", ANA_ENTER, ANA_G_RAWSYS, 1, NULL, NULL, NULL },
	{ "raw_syscalls/sys_exit", ANA_EXIT, ANA_G_RAWSYS, 1, NULL, NULL, NULL },
};
#define NTPS ((int)(sizeof(tps) / sizeof(tps[0])))
_Static_assert(NTPS == ANA_NTPS, "ANA_NTPS is the number of tracepoints");

/* The text of events/EVENT/format under the first readable root. */
static char *read_format(const char *event, int *eacces)
{
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char path[256];
		FILE *f;
		char *buf;
		size_t n;

		snprintf(path, sizeof(path), "%s/events/%s/format", roots[i], event);
		f = fopen(path, "r");
		if (!f) {
			if (errno == EACCES)
				*eacces = 1;
			continue;
		}
		buf = xmalloc(16384);
		n = fread(buf, 1, 16383, f);
		buf[n] = '\0';
		fclose(f);
		return buf;
	}
	return NULL;
}

static int field(const char *fmt, const char *name, int *off, int *size, char *why,
		 size_t len, const char *event)
{
	if (!name) {
		*off = *size = -1;
		return 0;
	}
	if (ana_format_field(fmt, name, off, size)) {
		snprintf(why, len, "%s: no field '%s' in its format file", event, name);
		return -1;
	}
	return 0;
}

/* tracefs is mounted (its events directory is there) under some root. */
static int tracefs_mounted(void)
{
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

/* Of the two syscall groups, open one: syscalls:*, else raw_syscalls:*. */
static void pick_syscalls(struct ana_trace *tr)
{
	int drop;

	if (!tr->why[ANA_G_SYSCALL][0]) {
		drop = ANA_G_RAWSYS;
	} else if (!tr->why[ANA_G_RAWSYS][0]) {
		drop = ANA_G_SYSCALL;
		tr->why[ANA_G_SYSCALL][0] = '\0';
		tr->raw_syscalls = 1;
	} else {
		size_t n = strlen(tr->why[ANA_G_SYSCALL]);

		snprintf(tr->why[ANA_G_SYSCALL] + n, sizeof(tr->why[ANA_G_SYSCALL]) - n,
			 "; no raw_syscalls:* either");
		drop = -1;
	}
	for (int i = 0; i < NTPS; i++)
		if (tps[i].group == drop)
			tr->tp[i].id = -1;
}

/* Read every format file; a group lacks its reason when a tracepoint is absent. */
static void describe(struct ana_trace *tr)
{
	int mounted = tracefs_mounted();

	for (int i = 0; i < NTPS; i++) {
		struct ana_tp *p = &tr->tp[i];
		int eacces = 0, g = tps[i].group, sz;
		char *fmt = read_format(tps[i].event, &eacces);

		p->id = -1;
		if (tr->why[g][0])
			goto next;
		if (!fmt) {
			if (eacces)
				snprintf(tr->why[g], sizeof(tr->why[g]),
					 "tracefs is not readable here (%s/events/%s: permission denied)",
					 roots[0], tps[i].event);
			else if (!mounted)
				snprintf(tr->why[g], sizeof(tr->why[g]),
					 "tracefs is not mounted (at %s or %s), so tracepoint %s cannot be found",
					 roots[0], roots[1], tps[i].event);
			else
				snprintf(tr->why[g], sizeof(tr->why[g]),
					 "tracepoint %s not found: the kernel lacks it%s",
					 tps[i].event,
					 g == ANA_G_CSD ? " (csd tracepoints arrived in Linux 6.3)" :
					 g == ANA_G_SYSCALL ? " (CONFIG_FTRACE_SYSCALLS)" : "");
			goto next;
		}
		p->id = ana_format_id(fmt);
		if (p->id < 0 ||
		    field(fmt, "common_type", &p->type_off, &p->type_size, tr->why[g], sizeof(tr->why[g]), tps[i].event) ||
		    field(fmt, tps[i].target, &p->target_off, &p->target_size, tr->why[g], sizeof(tr->why[g]), tps[i].event) ||
		    field(fmt, tps[i].func, &p->func_off, &sz, tr->why[g], sizeof(tr->why[g]), tps[i].event) ||
		    field(fmt, tps[i].csd, &p->csd_off, &sz, tr->why[g], sizeof(tr->why[g]), tps[i].event)) {
			if (!tr->why[g][0])
				snprintf(tr->why[g], sizeof(tr->why[g]), "%s: no ID in its format file", tps[i].event);
			p->id = -1;
		}
		p->mask = !strcmp(tps[i].target ? tps[i].target : "", "cpumask");
next:
		free(fmt);
	}
	pick_syscalls(tr);
}

static int open_tp(const struct ana_tp *p, int cpu, int filter_tid, int raw)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (uint64_t)p->id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	a.disabled = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (filter_tid > 0) {
		char filt[96];

		if (raw)	/* raw_syscalls:*: the barriers' system calls only */
			snprintf(filt, sizeof(filt), "common_pid == %d && (id == %d || id == %d)",
				 filter_tid, (int)SYS_membarrier, (int)SYS_mprotect);
		else
			snprintf(filt, sizeof(filt), "common_pid == %d", filter_tid);
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filt) < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
	}
	return fd;
}

void ana_trace_close(struct ana_trace *tr)
{
	for (int i = 0; i < tr->nfds; i++)
		close(tr->fds[i]);
	for (int c = 0; c < tr->ncpus; c++)
		if (tr->ring && tr->ring[c])
			munmap(tr->ring[c], tr->ring_len);
	free(tr->fds);
	free(tr->ring);
	free(tr->cpus);
	free(tr->ev);
	memset(tr, 0, sizeof(*tr));
}

int ana_trace_probe(struct ana_trace *tr)
{
	memset(tr, 0, sizeof(*tr));
	describe(tr);
	return tr->why[ANA_G_SYSCALL][0] ? -1 : 0;
}

int ana_trace_open(struct ana_trace *tr, const int *cpus, int ncpus, int caller,
		   char *why, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);

	if (ana_trace_probe(tr)) {
		snprintf(why, len, "%s", tr->why[ANA_G_SYSCALL]);
		return -1;
	}
	if (tr->why[ANA_G_CSD][0] && tr->why[ANA_G_IPI][0]) {
		snprintf(why, len, "neither csd:* (%.200s) nor ipi:* (%.200s)",
			 tr->why[ANA_G_CSD], tr->why[ANA_G_IPI]);
		return -1;
	}
	tr->ncpus = ncpus;
	tr->cpus = xcalloc((size_t)ncpus, sizeof(int));
	memcpy(tr->cpus, cpus, sizeof(int) * (size_t)ncpus);
	tr->ring = xcalloc((size_t)ncpus, sizeof(void *));
	tr->ring_len = (size_t)page * (1 + ANA_RING_PAGES);
	tr->fds = xcalloc((size_t)(ncpus * NTPS), sizeof(int));
	for (int c = 0; c < ncpus; c++) {
		int lead = -1;

		for (int i = 0; i < NTPS; i++) {
			int fd;

			if (tr->tp[i].id < 0)
				continue;
			fd = open_tp(&tr->tp[i], cpus[c], tps[i].mine ? caller : 0,
				     tps[i].group == ANA_G_RAWSYS);
			if (fd < 0) {
				ipi_perf_why(-fd, why, len);
				goto fail;
			}
			tr->fds[tr->nfds++] = fd;
			if (lead < 0) {
				void *r = mmap(NULL, tr->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

				if (r == MAP_FAILED) {
					snprintf(why, len, "perf ring buffer: mmap: %s", strerror(errno));
					goto fail;
				}
				tr->ring[c] = r;
				lead = fd;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead) < 0) {
				snprintf(why, len, "perf: PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
				goto fail;
			}
		}
	}
	return 0;
fail:
	ana_trace_close(tr);
	return -1;
}

void ana_trace_enable(struct ana_trace *tr, int on)
{
	for (int i = 0; i < tr->nfds; i++)
		if (ioctl(tr->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
			fail("perf: cannot %s a tracepoint: %s", on ? "enable" : "disable", strerror(errno));
}

static uint64_t get_uint(const unsigned char *raw, uint32_t n, int off, int size)
{
	uint64_t v = 0;

	if (off < 0 || size <= 0 || size > 8 || (uint32_t)(off + size) > n)
		return 0;
	memcpy(&v, raw + off, (size_t)size);	/* little endian: the low bytes */
	return size == 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* The first CPU of a __data_loc cpumask (its u32: offset | length << 16). */
static int first_cpu(const unsigned char *raw, uint32_t n, int off)
{
	uint32_t loc = (uint32_t)get_uint(raw, n, off, 4);
	uint32_t at = loc & 0xffff, len = loc >> 16;

	for (uint32_t b = 0; b < len && at + b < n; b++)
		for (int bit = 0; bit < 8; bit++)
			if (raw[at + b] & (1u << bit))
				return (int)(b * 8 + (uint32_t)bit);
	return -1;
}

static void add_sample(struct ana_trace *tr, const unsigned char *rec, size_t size)
{
	const unsigned char *p = rec + sizeof(struct perf_event_header);
	uint32_t pid_tid[2], cpu_res[2], rawsize;
	uint64_t t;
	const unsigned char *raw;
	struct ana_event e = { .target = -1 };
	int type;

	if (size < sizeof(struct perf_event_header) + 28)
		return;
	memcpy(pid_tid, p, 8);
	memcpy(&t, p + 8, 8);
	memcpy(cpu_res, p + 16, 8);
	memcpy(&rawsize, p + 24, 4);
	raw = p + 28;
	if (28 + sizeof(struct perf_event_header) + rawsize > size)
		return;
	for (type = 0; type < NTPS; type++)
		if (tr->tp[type].id >= 0 &&
		    get_uint(raw, rawsize, tr->tp[type].type_off, tr->tp[type].type_size) == (uint64_t)tr->tp[type].id)
			break;
	if (type == NTPS) {
		tr->undecoded++;
		return;
	}
	e.t = t;
	e.cpu = (int)cpu_res[0];
	e.tid = (int)pid_tid[1];
	e.kind = tps[type].kind;
	if (tr->tp[type].mask)
		e.target = first_cpu(raw, rawsize, tr->tp[type].target_off);
	else if (tr->tp[type].target_off >= 0)
		e.target = (int)get_uint(raw, rawsize, tr->tp[type].target_off, tr->tp[type].target_size);
	e.func = get_uint(raw, rawsize, tr->tp[type].func_off, 8);
	e.csd = get_uint(raw, rawsize, tr->tp[type].csd_off, 8);
	if (tr->nev == tr->cap) {
		tr->cap = tr->cap ? tr->cap * 2 : 4096;
		tr->ev = xrealloc(tr->ev, tr->cap * sizeof(*tr->ev));
	}
	tr->ev[tr->nev++] = e;
}

/* Copy n bytes from the ring's data at offset pos, wrapping. */
static void ring_copy(const unsigned char *data, size_t size, uint64_t pos, void *dst, size_t n)
{
	size_t at = (size_t)(pos % size), first = n < size - at ? n : size - at;

	memcpy(dst, data + at, first);
	memcpy((unsigned char *)dst + first, data, n - first);
}

void ana_trace_drain(struct ana_trace *tr)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char rec[65536];

	for (int c = 0; c < tr->ncpus; c++) {
		struct perf_event_mmap_page *mp = tr->ring[c];
		const unsigned char *data;
		uint64_t head, tail;
		size_t size;

		if (!mp)
			continue;
		data = (const unsigned char *)mp + page;
		size = tr->ring_len - (size_t)page;
		head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		tail = mp->data_tail;
		while (tail + sizeof(struct perf_event_header) <= head) {
			struct perf_event_header h;

			ring_copy(data, size, tail, &h, sizeof(h));
			if (h.size < sizeof(h) || tail + h.size > head)
				break;
			ring_copy(data, size, tail, rec, h.size);
			if (h.type == PERF_RECORD_SAMPLE) {
				add_sample(tr, rec, h.size);
			} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
				uint64_t lost;

				memcpy(&lost, rec + sizeof(h) + 8, 8);
				tr->lost += lost;
			}
			tail += h.size;
		}
		__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	}
}

/* The clock check: a ping-pong between two pinned threads. */
struct pingpong {
	_Atomic uint64_t ping, pong;
	int cpu;
	int rounds;
	uint64_t *t1;
	int pinned;
};

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *pong_thread(void *arg)
{
	struct pingpong *pp = arg;

	pp->pinned = !pin_self(pp->cpu);
	atomic_store(&pp->pong, 1);	/* ready */
	for (int i = 0; i < pp->rounds; i++) {
		uint64_t want = (uint64_t)i + 2;

		while (atomic_load_explicit(&pp->ping, memory_order_acquire) != want)
			;
		pp->t1[i] = now_ns();
		atomic_store_explicit(&pp->pong, want, memory_order_release);
	}
	return NULL;
}

struct pong_main {
	struct pingpong *pp;
	int cpu, rounds;
	uint64_t *t0, *t2;
	int pinned;
};

static void *ping_thread(void *arg)
{
	struct pong_main *m = arg;
	struct pingpong *pp = m->pp;

	m->pinned = !pin_self(m->cpu);
	while (atomic_load(&pp->pong) != 1)
		;
	for (int i = 0; i < m->rounds; i++) {
		uint64_t want = (uint64_t)i + 2;

		m->t0[i] = now_ns();
		atomic_store_explicit(&pp->ping, want, memory_order_release);
		while (atomic_load_explicit(&pp->pong, memory_order_acquire) != want)
			;
		m->t2[i] = now_ns();
	}
	return NULL;
}

int ana_clock_skew(int cpu_a, int cpu_b, int rounds, struct ana_skew *out, char *why, size_t len)
{
	struct pingpong pp = { .cpu = cpu_b, .rounds = rounds };
	struct pong_main m = { .pp = &pp, .cpu = cpu_a, .rounds = rounds };
	pthread_t a, b;
	uint64_t best = UINT64_MAX;
	int e;

	memset(out, 0, sizeof(*out));
	pp.t1 = xcalloc((size_t)rounds, sizeof(uint64_t));
	m.t0 = xcalloc((size_t)rounds, sizeof(uint64_t));
	m.t2 = xcalloc((size_t)rounds, sizeof(uint64_t));
	if ((e = pthread_create(&b, NULL, pong_thread, &pp))) {
		snprintf(why, len, "clock check: pthread_create: %s", strerror(e));
		goto out;
	}
	if (pthread_create(&a, NULL, ping_thread, &m)) {
		/* The pong side waits for its rounds: play ping here instead. */
		cpu_set_t saved;

		sched_getaffinity(0, sizeof(saved), &saved);
		ping_thread(&m);
		sched_setaffinity(0, sizeof(saved), &saved);
	} else {
		pthread_join(a, NULL);
	}
	pthread_join(b, NULL);
	if (!m.pinned || !pp.pinned) {
		snprintf(why, len, "clock check: cannot pin to CPUs %d and %d", cpu_a, cpu_b);
		e = -1;
		goto out;
	}
	/* The round trips with the least time in flight bound the offset best. */
	for (int i = 0; i < rounds; i++) {
		uint64_t rtt = m.t2[i] - m.t0[i];
		double off = (double)pp.t1[i] - ((double)m.t0[i] + (double)m.t2[i]) / 2;

		if (rtt < best) {
			best = rtt;
			out->offset_ns = off;
		}
		if (pp.t1[i] < m.t0[i] || pp.t1[i] > m.t2[i])
			out->violations++;
	}
	out->rtt_ns = (double)best;
	out->rounds = rounds;
out:
	free(pp.t1);
	free(m.t0);
	free(m.t2);
	return e ? -1 : 0;
}
