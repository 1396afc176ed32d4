/* SPDX-License-Identifier: MIT */
/* contend's serialization factor (contend-factor.c). */
#ifndef MBBENCH_CONTEND_H
#define MBBENCH_CONTEND_H

#include "output.h"

/*
 * Fill serialization_factor, its CI and serialization_skip_reason of every
 * processes-mode row of a contend table: aggregate rate at C over that at
 * C = 1 of the same mechanism. npus: the CPUs of the host.
 */
void contend_serialization(struct table *t, int npus);

#endif
