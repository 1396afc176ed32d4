// SPDX-License-Identifier: MIT
/* spin: user-space busy loop on the stop flag; sleep: blocked in a futex. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "barrier.h"
#include "behaviour.h"

const char *behaviour_name(enum behaviour b)
{
	return b == BEH_SLEEP ? "sleep" : "spin";
}

int behaviour_parse(const char *s, enum behaviour *out)
{
	if (!strcmp(s, "spin"))
		*out = BEH_SPIN;
	else if (!strcmp(s, "sleep"))
		*out = BEH_SLEEP;
	else
		return -1;
	return 0;
}

void behaviour_run(enum behaviour b, _Atomic int *stop)
{
	if (b == BEH_SPIN) {
		/* Stays in user space: the seed's busy-looping threads. */
		while (!atomic_load_explicit(stop, memory_order_relaxed))
			cpu_relax();
		return;
	}
	/* Blocked; a signal handler may run and return EINTR: wait again. */
	while (!atomic_load(stop))
		syscall(SYS_futex, (int *)stop, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

void stop_wake(_Atomic int *stop)
{
	atomic_store(stop, 1);
	syscall(SYS_futex, (int *)stop, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
