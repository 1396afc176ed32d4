// SPDX-License-Identifier: MIT
/*
 * The liburcu-signal flavor: compiler barriers in the reader; synchronize_rcu
 * signals every registered reader (SIGUSR1) and waits for each to fence.
 */
#include "config.h"

#define _LGPL_SOURCE
#include <urcu/urcu-signal.h>

#include "rcu-urcu.h"

URCU_SCHEME(signal, "liburcu-signal", "liburcu urcu-signal: the writer signals the readers", NULL);
