/* SPDX-License-Identifier: MIT */
/*
 * A mechanism is one way to obtain a process-wide memory barrier. Each lives
 * in its own mech-*.c file and is listed once in mech-registry.c. The harness
 * owns threads, clocks and the stop flag; a mechanism only knows how to
 * become ready (setup), issue one barrier (barrier) and clean up (teardown).
 */
#ifndef MBBENCH_MECH_H
#define MBBENCH_MECH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* What a mechanism may need to know about the team it serves. */
struct mech_team {
	int nthreads;		/* threads of this process besides the caller */
	pthread_t *threads;	/* their pthread ids (for the signal scheme) */
};

/*
 * What a mechanism is. Experiments, the sweep and the analysis choose their
 * mechanisms by these flags (mech_has, `mbbench list --format csv`), never by
 * name.
 */
enum mech_cap {
	/* Orders the memory of every thread of the process: a heavy barrier. */
	MC_PROCESS_WIDE = 1u << 0,
	/* Interrupts other CPUs to do it: IPIs, a TLB shootdown, a signal. */
	MC_IPI = 1u << 1,
	/* Waits for an RCU grace period or for every CPU to schedule. */
	MC_GRACE_PERIOD = 1u << 2,
	/* The process registers once before the first barrier. */
	MC_REGISTER = 1u << 3,
	/* Exists only on the patched kernel (kernel-patch/). */
	MC_PATCHED_KERNEL = 1u << 4,
	/* A local instruction or nothing: a control, not a heavy barrier. */
	MC_FENCE_LIKE = 1u << 5,
};
#define MC_COUNT 6

struct mechanism {
	const char *name;	/* stable CLI / CSV identifier */
	const char *summary;	/* one line for `mbbench list` */
	unsigned caps;		/* enum mech_cap bits */
	int membarrier_cmd;	/* membarrier command issued, or 0 if none */
	/*
	 * Returns 0 when usable here, or -1 with a human reason ("kernel lacks
	 * MEMBARRIER_CMD_GLOBAL_EXPEDITED") copied into reason.
	 */
	int (*probe)(const struct mechanism *m, char *reason, size_t len);
	/* Called once per process before the team starts; may fail with reason. */
	int (*setup)(const struct mechanism *m, char *reason, size_t len);
	/* Called by team thread number index (not the caller) before it runs. */
	void (*thread_init)(const struct mechanism *m, int index);
	/* Called by the caller once the team is running. */
	int (*attach)(const struct mechanism *m, const struct mech_team *team);
	void (*detach)(const struct mechanism *m);
	/* One barrier. Returns 0 or -errno. */
	int (*barrier)(const struct mechanism *m);
	/* Called once per process when done. */
	void (*teardown)(const struct mechanism *m);
};

extern const struct mechanism *const mechanisms[];
extern const size_t nr_mechanisms;

const struct mechanism *mech_find(const char *name);
/* Nonzero when m has every bit of all and none of none. */
int mech_has(const struct mechanism *m, unsigned all, unsigned none);
/* The flag's name in `mbbench list` ("process-wide", "ipi", ...). */
const char *mech_cap_name(unsigned cap);
/* Probe with the built-in probe; fills reason. 0 when available. */
int mech_probe(const struct mechanism *m, char *reason, size_t len);
/*
 * Probe, then set up (m->setup) once per process: what the experiments and
 * the work-done counting (bench/host/workdone.c) do before a barrier. 0, or -1
 * with the reason.
 */
int mech_prepare(const struct mechanism *m, char *reason, size_t len);
/* Comma-separated list of every name, for error messages. */
const char *mech_names(void);
/*
 * The names of the mechanisms with every bit of all and none of none, as a
 * --mechanism value ("a,b,c"), into buf; buf is returned.
 */
char *mech_names_with(unsigned all, unsigned none, char *buf, size_t len);

/*
 * The signal mechanism's wait for acknowledgements: 0 spins (default, what
 * `calls` times); otherwise the caller sleeps sleep_ns between checks.
 */
void mech_signal_ack_wait(uint64_t sleep_ns);

/* Mechanisms shared helpers (mech-membarrier.c). */
int sys_membarrier(int cmd, unsigned int flags, int cpu_id);
/*
 * A planted kernel regression (mbbench calibrate --at syscall): every
 * expedited barrier command of this process (GLOBAL_EXPEDITED, the
 * PRIVATE_EXPEDITED family, the seed's IPI commands) busy-waits ns after
 * membarrier(2) returns, as a patch to the barrier path would add its
 * cost: the measured barrier's calls and the delivery floor's alike.
 * Registration, QUERY and GLOBAL (a grace period) are left alone.
 */
void membarrier_plant(uint64_t ns);
uint64_t membarrier_planted_ns(void);
/* QUERY mask, cached; -errno when the syscall is missing. */
long membarrier_query(void);
/* The registration a barrier command needs first (0: none). */
int membarrier_register_cmd(int cmd);
/* Name of a single command bit, or NULL. */
const char *membarrier_cmd_name(int cmd);
/* Probe a membarrier command against QUERY; used by several mechanisms. */
int membarrier_probe_cmd(int cmd, const char *cmdname, const char *missing_hint,
			 char *reason, size_t len);

/*
 * The signal mechanisms' handler: installed for sig with SA_RESTART and an
 * empty mask. 0, or -1 with reason.
 */
int mech_signal_install(int sig, void (*handler)(int), char *reason, size_t len);
/* The signal handshake without the handler's fence (rcu torture tests only;
 * not in the registry). */
extern const struct mechanism mech_signal_nofence;

/* Acks received by team thread index from the signal mechanism (tests). */
unsigned long mech_signal_acks(int index);

#endif
