// SPDX-License-Identifier: MIT
/*
 * The liburcu-mb flavor: a full fence in every read_lock and read_unlock.
 */
#include "config.h"

#define _LGPL_SOURCE
#include <urcu/urcu-mb.h>

#include "rcu-urcu.h"

URCU_SCHEME(mb, "liburcu-mb", "liburcu urcu-mb: fences in the reader", NULL,
	    { .mfence = 2, .mfence_idle = 1, .lines = URCU_RS_LINES,
	      .why = "read_lock: cmm_smp_mb after the counter store (stores pending); read_unlock: cmm_smp_mb before it (none pending) and after it (one), then a load of the futex word" });
