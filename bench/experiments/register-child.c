// SPDX-License-Identifier: MIT
/*
 * Registration timing in a fresh process: see register-child.h for why it
 * runs in bench/mbbench-fresh rather than in mbbench.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "pinned.h"
#include "register-child.h"
#include "util.h"

#ifndef MEMBARRIER_CMD_GET_REGISTRATIONS
#define MEMBARRIER_CMD_GET_REGISTRATIONS (1 << 9)
#endif

static _Atomic int stop_flag;

static void other_main(void *arg, int i)
{
	enum behaviour *b = arg;

	(void)i;
	behaviour_run(*b, &stop_flag);
}

/* The sample says why nothing was timed; the parent skips the row. */
__attribute__((noreturn)) static void send_failure(struct sample *s, int fd, int err)
{
	s->err = err;
	if (write(fd, s, sizeof(*s)) != (ssize_t)sizeof(*s))
		_exit(4);
	_exit(0);
}

static void *empty_main(void *arg)
{
	return arg;
}

static double create_cost(void)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < CREATE_SAMPLES; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, empty_main, NULL))
			return -1;
		pthread_join(t, NULL);
	}
	return (double)(now_ns() - t0) / CREATE_SAMPLES;
}

void register_child(hwloc_topology_t topo, const char *placement, enum behaviour beh,
		    const struct mechanism *m, int reg, int nother, int fd)
{
	struct sample s;
	struct pinned others;
	struct placement pl;
	char err[256];
	uint64_t t0;

	memset(&s, 0, sizeof(s));
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (placement_compute(topo, placement, nother + 1, &pl, err, sizeof(err)))
		_exit(3);
	if (topo_bind_self(topo, pl.pu_os[0])) {
		snprintf(s.why, sizeof(s.why), "cannot bind the caller to CPU %d: %s",
			 pl.pu_os[0], strerror(errno));
		send_failure(&s, fd, errno ? errno : EINVAL);
	}
	s.create_before_ns = create_cost();
	if (spawn_pinned(&others, topo, pl.pu_os + 1, nother, NULL, other_main, &beh,
			 s.why, sizeof(s.why)))
		send_failure(&s, fd, EINVAL);
	usleep(2000);	/* let them start running or block */
	{
		/* Refuse to time a registration that is already done. */
		long regs = membarrier_query() & MEMBARRIER_CMD_GET_REGISTRATIONS ?
				    sys_membarrier(MEMBARRIER_CMD_GET_REGISTRATIONS, 0, 0) : 0;

		if (regs > 0 && (regs & reg)) {
			snprintf(s.why, sizeof(s.why),
				 "the measuring process was already registered (0x%lx)", regs);
			send_failure(&s, fd, EALREADY);
		}
	}
	t0 = now_ns();
	if (sys_membarrier(reg, 0, 0) < 0) {
		s.err = errno;
		snprintf(s.why, sizeof(s.why), "MEMBARRIER_CMD_%s: %s",
			 membarrier_cmd_name(reg), strerror(errno));
	}
	s.reg_ns = (double)(now_ns() - t0);
	if (!s.err) {
		t0 = now_ns();
		if (m->barrier(m))
			s.err = EIO;
		s.first_ns = (double)(now_ns() - t0);
		t0 = now_ns();
		for (int i = 0; i < STEADY_CALLS && !s.err; i++)
			if (m->barrier(m))
				s.err = EIO;
		s.steady_ns = (double)(now_ns() - t0) / STEADY_CALLS;
		s.create_after_ns = create_cost();
		if (s.err && !s.why[0])
			snprintf(s.why, sizeof(s.why), "barrier failed after registration");
	}
	stop_wake(&stop_flag);
	pinned_join(&others);
	if (write(fd, &s, sizeof(s)) != (ssize_t)sizeof(s))
		_exit(4);
	_exit(0);
}

