// SPDX-License-Identifier: MIT
/*
 * The liburcu-qsbr flavor: no read-side cost; readers announce a quiescent
 * state every RCU_QS_EVERY reads, the same rate as our qsbr scheme.
 */
#include "config.h"

#define _LGPL_SOURCE
#include <urcu/urcu-qsbr.h>

#include "rcu-urcu.h"

static void qsbr_qs(void *a)
{
	(void)a;
	urcu_qsbr_quiescent_state();
}

URCU_SCHEME(qsbr, "liburcu-qsbr", "liburcu urcu-qsbr: quiescent states, no read-side cost", qsbr_qs,
	    { .mfence = 2.0 / RCU_QS_EVERY, .lines = 4,
	      .why = "no read-side instruction; quiescent_state every 1024 reads: two cmm_smp_mb; a grace period waits for one (the pointer, the object, the gp word, the reader's counter)" });
