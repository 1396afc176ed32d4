/* SPDX-License-Identifier: MIT */
/*
 * Userspace RCU schemes for the rcu experiment: which read side and which
 * write-side barrier each uses decides the reads/s against writes/s trade
 * the seed measured (smp_mb in the reader, signals, sys_membarrier).
 *
 * A run: R reader threads dereference an RCU-protected pointer to a heap
 * object and check it; W writer threads replace it, wait for a grace period,
 * poison the old object and retire it to a quarantine. The checks make every
 * run a torture test: a reader that sees a poisoned object counts a
 * violation. The loop code is shared by every scheme (ours and liburcu's);
 * only the read-side primitives and synchronize differ.
 */
#ifndef MBBENCH_RCU_H
#define MBBENCH_RCU_H

#include <hwloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mech.h"

#define RCU_OBJ_LIVE 0x4c4956454f424a31ull	/* "LIVEOBJ1" */
#define RCU_OBJ_POISON 0x6b6b6b6b6b6b6b6bull	/* the kernel's POISON_FREE byte */
#define RCU_OBJ_KEY 0x9e3779b97f4a7c15ull
/* The gap probe: a clock reading this much after the last is an interruption. */
#define RCU_GAP_NS 250

/*
 * The RCU-protected object: a reader checks magic and check == seq ^ key.
 * One cache line each, so the writer's next allocation and its poisoning of
 * a retired object never share a line with the object a reader is reading
 * (in malloc's 48-byte chunks they could).
 */
struct rcu_obj {
	uint64_t magic;
	uint64_t seq;
	uint64_t check;
	struct rcu_obj *next;	/* quarantine link; readers never look at it */
} __attribute__((aligned(64)));

struct rcu_reader_slot {
	_Atomic uint64_t reads;	/* published after each read (quarantine) */
	_Atomic int done;
	uint64_t violations;
	uint64_t stolen_ns;	/* the interruption probe's reader: time away */
	char pad[64 - 3 * sizeof(uint64_t) - sizeof(int)];
} __attribute__((aligned(64)));

struct rcu_qblock;

struct rcu_writer_slot {
	uint64_t writes;
	uint64_t seq;
	/* Quarantine: poisoned objects, freed once every reader moved on. */
	struct rcu_qblock *qhead, *qtail, *qcur;
	uint64_t quarantined, peak_quarantined;
	char pad[64 - 2 * sizeof(uint64_t)];
} __attribute__((aligned(64)));

struct rcu_scheme;

struct rcu_run {
	const struct rcu_scheme *s;
	struct rcu_obj *_Atomic gp;	/* the RCU-protected pointer */
	_Atomic int stop;
	_Atomic int writers_done;
	int nreaders, nwriters;
	uint64_t cs_ns, writer_delay_ns;
	struct rcu_reader_slot *readers;
	struct rcu_writer_slot *writers;
	pthread_t *reader_th;	/* filled before attach */
	pid_t *tids;		/* thread i's tid (readers first), filled as it starts */
	void *priv;		/* the scheme's own state (its setup sets it) */
	_Atomic int err;	/* a failed write-side barrier: -errno */
};

/*
 * What one read of a scheme executes and what its writer takes from it,
 * from the code (rcu-ours.c, liburcu's static headers and urcu.c): the
 * read-side model of rcu-readcost.c prices these with this host's costs.
 */
struct rcu_readside {
	/* Fences per read, by whether a store is pending when one runs (a
	 * fence waits for the store buffer to drain): our smp_mb_full() (a
	 * locked add on x86-64) and liburcu's cmm_smp_mb() (mfence). */
	double rmw, rmw_idle;
	double mfence, mfence_idle;
	/* Cache lines one grace period takes from a running reader: ones the
	 * writer stores to that the reader then loads, and the reader's own
	 * counter line each time the writer polls it between the reader's
	 * stores. */
	double lines;
	/* Interruptions of each reader per write (IPIs, signals), and the
	 * mechanism whose interruption the probe times; NULL for none. */
	double interrupts;
	const char *interrupt;
	const char *why;	/* one line: where the counts come from */
};

struct rcu_scheme {
	const char *name;	/* stable CLI / CSV identifier */
	const char *family;	/* "ours", "liburcu" or "broken" */
	const char *summary;
	const char *mech;	/* write-side mechanism (mech.h), or NULL */
	/* signal: the writer sleeps this long between ack checks (0: spins). */
	uint64_t ack_sleep_ns;
	struct rcu_readside rs;
	/* 0 when usable here, or -1 with a reason ("built without liburcu"). */
	int (*probe)(const struct rcu_scheme *s, char *reason, size_t len);
	/* Before the threads start. */
	int (*setup)(struct rcu_run *r, char *reason, size_t len);
	/* Once the reader threads exist (reader_th valid), before they run. */
	int (*attach)(struct rcu_run *r);
	/* In each reader thread before the run starts (optional). */
	void (*reader_init)(struct rcu_run *r, int idx);
	/* Thread bodies: run until r->stop, counting into the slots. */
	void (*reader)(struct rcu_run *r, int idx);
	void (*writer)(struct rcu_run *r, int idx);
	void (*teardown)(struct rcu_run *r);
};

extern const struct rcu_scheme *const rcu_schemes[];
extern const size_t nr_rcu_schemes;

const struct rcu_scheme *rcu_scheme_find(const char *name);
/* Comma-separated names (broken ones only when with_broken). */
const char *rcu_scheme_names(int with_broken);
int rcu_scheme_probe(const struct rcu_scheme *s, char *reason, size_t len);
static inline int rcu_scheme_is_broken(const struct rcu_scheme *s)
{
	return s->family[0] == 'b';
}

struct rcu_result {
	uint64_t reads, writes, violations;
	uint64_t stolen_ns;	/* the gap probe's readers: time away, summed */
	uint64_t ns;		/* wall time between start and stop */
	uint64_t peak_quarantined;
	int err;		/* setup/attach failure: reason filled */
};

/*
 * One timed run of scheme s with readers on cpus[0..R-1] and writers on
 * cpus[R..R+W-1] (OS CPU numbers of topo; spawn_pinned binds them).
 * Returns 0, or -1 with reason when the scheme cannot run here.
 */
struct rcu_marks {
	/* Called with every thread started and its tid known (readers' tids
	 * first), just before the readers and writers go, and just before
	 * they are told to stop (with tids NULL). */
	void (*mark)(void *arg, const pid_t *tids);
	void *arg;
};
int rcu_run_once(const struct rcu_scheme *s, int nreaders, int nwriters,
		 hwloc_topology_t topo, const int *cpus, double duration_s, uint64_t cs_ns, uint64_t writer_delay_ns,
		 const struct rcu_marks *marks, struct rcu_result *res, char *reason, size_t len);

/*
 * Objects and quarantine (rcu-torture.c), shared by every scheme's loops
 * (rcu-loop.h) and the runner.
 */
struct rcu_obj *rcu_obj_new(struct rcu_writer_slot *w);
void rcu_retire(struct rcu_run *r, struct rcu_writer_slot *w, struct rcu_obj *old);
/* Free what a writer still holds, after every thread has been joined. */
void rcu_quarantine_drain(struct rcu_writer_slot *w);
void rcu_spin_ns(uint64_t ns);

/* The read-side model's probes (rcu-ours.c), in no table. */
extern const struct rcu_scheme rcu_light_loop, rcu_publish_probe, rcu_gap_probe;

/* The scheme table (rcu-schemes.c): probes, and a scheme's mechanism. */
int rcu_probe_mech(const struct rcu_scheme *s, char *reason, size_t len);
int rcu_no_liburcu(const struct rcu_scheme *s, char *reason, size_t len);
const struct mechanism *rcu_scheme_mech(const struct rcu_scheme *s);

#endif
