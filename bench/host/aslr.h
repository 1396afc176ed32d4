/* SPDX-License-Identifier: MIT */
/* Address-space randomization for the sweep's points (aslr.c). */
#ifndef MBBENCH_ASLR_H
#define MBBENCH_ASLR_H

/*
 * Prints "norand PREFIX" (what each point runs under; empty where layouts
 * vary) and "aslr STATE", and a "note" line where off cannot be had; off:
 * --aslr off was asked for.
 */
void print_aslr(int off);

#endif
