// SPDX-License-Identifier: MIT
/*
 * The liburcu-mb flavor: a full fence in every read_lock and read_unlock.
 */
#include "config.h"

#define _LGPL_SOURCE
#include <urcu/urcu-mb.h>

#include "rcu-urcu.h"

URCU_SCHEME(mb, "liburcu-mb", "liburcu urcu-mb: fences in the reader", NULL);
