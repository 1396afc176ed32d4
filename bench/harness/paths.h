/* SPDX-License-Identifier: MIT */
/*
 * Where mbbench's installed pieces are. A helper (mbbench-fresh, and the
 * mbbench-sweep, -plot, -report, -compare, -vm behind `mbbench NAME`) is
 * looked for next to the running executable first, which is the build
 * tree's layout, then in $MBBENCH_LIBEXECDIR if set, else in the configured
 * PKGLIBEXECDIR (config.h, so a new prefix rebuilds this).
 */
#ifndef MBBENCH_PATHS_H
#define MBBENCH_PATHS_H

#include <stddef.h>

/* Absolute path of the running executable, or NULL. */
const char *self_exe(void);

/*
 * Find helper NAME (e.g. "mbbench-fresh"). Returns its path (static
 * storage) or NULL; either way `looked` gets the places tried, for the
 * error message.
 */
const char *helper_find(const char *name, char *looked, size_t len);

/* helper_find(), or one line naming the places looked in and exit 1. */
const char *helper_require(const char *name);

#endif
