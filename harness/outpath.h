/* SPDX-License-Identifier: MIT */
/*
 * The command line's output paths (--output, --json): checked before any
 * measurement and refused with one line and exit 2, the folder made when
 * the results are written. bench/'s, not lib/'s: these end the program,
 * which a library leaves to its caller.
 */
#ifndef MBBENCH_OUTPATH_H
#define MBBENCH_OUTPATH_H

/*
 * Validate output destinations before any measurement, so bad paths fail
 * fast with exit 2 and nothing is created: a name too long for the file
 * system (with the temporary name's suffix), a symbolic link to nothing, a
 * path that is not a regular file (a file) or a directory (a folder), and
 * without force a file already there (for a folder: PREFIX.csv,
 * PREFIX.json or PREFIX-*.csv in it). A symbolic link is resolved once:
 * the path to write to is returned (malloc'd).
 */
char *check_output_file(const char *opt, const char *path, int force);
char *check_output_dir(const char *opt, const char *path, int force, const char *prefix);
/*
 * Make the checked --output folder if needed and lock it (flock) for this
 * run: a second run into it while this one lives is bad input; at exit the
 * folder goes if it stayed empty.
 */
void lock_output_dir(const char *opt, const char *dir, const char *prefix);
/* Create the directory (its parent exists): 1 if made, 0 if it was there; fail() on failure. */
int make_output_dir(const char *path);

#endif
