// SPDX-License-Identifier: MIT
/*
 * The liburcu-signal flavor: compiler barriers in the reader; synchronize_rcu
 * signals every registered reader (SIGUSR1) and waits for each to fence.
 */
#include "config.h"

#define _LGPL_SOURCE
#include <urcu/urcu-signal.h>

#include "rcu-urcu.h"

URCU_SCHEME(signal, "liburcu-signal", "liburcu urcu-signal: the writer signals the readers", NULL,
	    { .lines = URCU_RS_LINES, .interrupts = 2, .interrupt = "signal", .why = "cmm_barrier only; smp_mb_master signals every reader before and after the wait" });
