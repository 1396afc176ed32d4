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
/*
 * The folder of `mbbench sweep` (through `mbbench plan`): --output DIR, or
 * --out-root DIR (NULL: results/runs), checked; *out is the folder (NULL
 * without --output) and *out_root where it goes, both malloc'd.
 */
void check_sweep_folder(const char *output, const char *root, char **out, char **out_root);
/*
 * Make the sweep's folder FINAL.incomplete, out_root made first: mkdir is
 * the lock between sweeps started together, each gets its own folder.
 * FINAL is out (an empty folder given there is removed: the .incomplete is
 * it until renamed), or without it out_root/<host>-<UTC stamp>, the host's
 * name in letters, digits, '.', '_' and '-', then -1, -2... (malloc'd).
 */
char *make_sweep_folder(const char *out, const char *out_root);

#endif
