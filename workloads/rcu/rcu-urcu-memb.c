// SPDX-License-Identifier: MIT
/*
 * The liburcu-memb flavor (liburcu's default since 0.11): compiler barriers in
 * the reader when sys_membarrier is there, MEMBARRIER_CMD_PRIVATE_EXPEDITED in
 * synchronize_rcu. Its symbols live in liburcu.so itself.
 */
#include "config.h"

#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>

#include "rcu-urcu.h"

URCU_SCHEME(memb, "liburcu-memb", "liburcu urcu-memb: sys_membarrier in the writer", NULL,
	    { .lines = URCU_RS_LINES, .interrupts = 2, .interrupt = "membarrier-private-expedited", .why = "cmm_barrier only (sys_membarrier present); smp_mb_master: MEMBARRIER_CMD_PRIVATE_EXPEDITED before and after the wait" });
