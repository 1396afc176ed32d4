/* SPDX-License-Identifier: MIT */
/*
 * What the other threads of a team do while barriers are issued. The seed
 * measured busy-looping threads (spin); blocked threads (sleep) show which
 * mechanisms still disturb threads that are not running.
 */
#ifndef MBBENCH_BEHAVIOUR_H
#define MBBENCH_BEHAVIOUR_H

#include <stdatomic.h>

enum behaviour { BEH_SPIN, BEH_SLEEP };

const char *behaviour_name(enum behaviour b);
int behaviour_parse(const char *s, enum behaviour *out);
/* Run until *stop becomes non-zero; stop_wake() releases sleepers. */
void behaviour_run(enum behaviour b, _Atomic int *stop);
void stop_wake(_Atomic int *stop);

#endif
