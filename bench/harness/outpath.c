// SPDX-License-Identifier: MIT
/* Output paths of the command line: refused up front (exit 2), or made. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outpath.h"
#include "strbuf.h"
#include "util.h"

static char *parent_dir(const char *path)
{
	char *p = xstrdup(path), *slash;

	/* Strip trailing slashes, then the last component. */
	for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = '\0';
	slash = strrchr(p, '/');
	if (!slash) {
		free(p);
		return xstrdup(".");
	}
	if (slash == p)
		slash[1] = '\0';
	else
		*slash = '\0';
	return p;
}

/*
 * access(W_OK) says yes to root on any directory, even in /proc or on a
 * read-only mount; creating (and removing) a probe file is the real test.
 */
static int dir_writable(const char *dir)
{
	char *probe = path_join(dir, ".mbbench-probe.XXXXXX");
	int fd = mkstemp(probe);

	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	/* Out of descriptors, memory or space is the host's fault, not the path's. */
	if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == EIO ||
		       errno == ENOSPC || errno == EDQUOT))
		fail("cannot create a file in %s: %s", dir, strerror(errno));
	free(probe);
	return fd >= 0;
}

/*
 * A name the file system cannot hold is refused before anything runs:
 * `extra` is what mbbench appends (a file name in a folder, ".tmp.PID"),
 * `last` the part of it that lengthens the last name of the path.
 */
static void check_name_length(const char *opt, const char *path, size_t extra, size_t last)
{
	const char *p = path;
	size_t len = strlen(path), n = 0;

	if (len + extra >= PATH_MAX)
		die("%s: the path is %zu characters long (at most %zu here): choose a shorter one", opt, len,
			  (size_t)PATH_MAX - 1 - extra);
	while (*p) {
		n = strcspn(p, "/");
		if (n > NAME_MAX)
			die("%s: a name in the path is %zu characters long (at most %d): choose a shorter one",
				  opt, n, NAME_MAX);
		p += n + (p[n] == '/');
	}
	/* n: the last name (0 after a trailing slash). */
	if (n && n + last > NAME_MAX)
		die("%s: the last name in the path is %zu characters long (at most %zu, to leave room for the temporary name): choose a shorter one",
			  opt, n, (size_t)NAME_MAX - last);
}

/* A path on a pseudo-filesystem is bad input, named before any write. */
static void check_pseudo(const char *opt, const char *path)
{
	const char *fs = pseudo_fs(path);

	if (fs)
		die("%s %s is in %s, which holds no results (choose a path on a disk, e.g. under results/)",
			  opt, path, fs);
}

static void check_parent(const char *opt, const char *path)
{
	char *dir;
	struct stat st;

	dir = parent_dir(path);
	if (!stat(dir, &st) && !S_ISDIR(st.st_mode))
		die("%s %s: %s is a file, not a directory (choose another path)",
			  opt, path, dir);
	if (stat(dir, &st))
		die("%s %s: directory %s does not exist (create it first)",
			  opt, path, dir);
	if (!dir_writable(dir))
		die("%s %s: directory %s is not writable (choose another path)",
			  opt, path, dir);
	free(dir);
}

/*
 * A symbolic link is followed once, here, and the rest of the run uses
 * what it names; a link to nothing is refused.
 */
static char *resolve_link(const char *opt, const char *path, int want_dir)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return xstrdup(path);
	if (stat(path, &st))
		die("%s %s: a symbolic link to nothing (give an existing %s or a new name)",
			  opt, path, want_dir ? "folder" : "file");
	/* Not what can be written to: the caller refuses it by its type. */
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return xstrdup(path);
	real = realpath(path, NULL);
	if (!real)
		die("%s %s: cannot resolve the symbolic link: %s", opt, path,
			  strerror(errno));
	return real;
}

/* Room for ".tmp.PID" after a name. */
#define TMP_SUFFIX 16

static void refuse_existing(const char *opt, const char *given, const char *path,
			    const struct stat *st, int force)
{
	if (S_ISDIR(st->st_mode))
		die("%s %s: is a directory (give a file name)", opt, given);
	if (!S_ISREG(st->st_mode))
		die("%s %s: exists and is not a regular file (mbbench writes only regular files; give a new name)",
			  opt, given);
	if (!force && strcmp(given, path))
		die("%s %s: its target %s exists (give --force to replace it, or a new name)",
			  opt, given, path);
	if (!force)
		die("%s %s: the file exists (give --force to replace it, or a new name)",
			  opt, given);
}

char *check_output_file(const char *opt, const char *path, int force)
{
	struct stat st;
	char *real;

	if (!*path)
		die("%s needs a file name", opt);
	check_name_length(opt, path, TMP_SUFFIX, TMP_SUFFIX);
	check_pseudo(opt, path);
	real = resolve_link(opt, path, 0);
	if (strcmp(real, path))
		check_name_length(opt, real, TMP_SUFFIX, TMP_SUFFIX);
	if (!stat(real, &st))
		refuse_existing(opt, path, real, &st, force);
	check_parent(opt, real);
	return real;
}

/*
 * What a run writes into its folder: PREFIX.csv, PREFIX.json and
 * PREFIX-NAME.csv. Any of them there already is refused, unless it is a
 * regular file and force is given.
 */
static void check_dir_files(const char *opt, const char *given, const char *dir,
			    const char *prefix, int force)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t pl = strlen(prefix);

	if (!d)
		die("%s %s: cannot read the directory: %s", opt, given, strerror(errno));
	while ((e = readdir(d))) {
		const char *n = e->d_name, *dot = strrchr(n, '.');
		struct stat st;
		char *p;

		if (strncmp(n, prefix, pl) || !dot ||
		    (strcmp(dot, ".csv") && strcmp(dot, ".json")))
			continue;
		if (!(n[pl] == '.' && dot == n + pl) && !(n[pl] == '-' && !strcmp(dot, ".csv")))
			continue;
		p = path_join(dir, n);
		if (!lstat(p, &st)) {
			if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode))
				die("%s %s: %s exists and is not a regular file (give a new folder)",
					  opt, given, p);
			if (!force)
				die("%s %s: %s exists (give --force to replace it, or a new folder)",
					  opt, given, p);
		}
		free(p);
	}
	closedir(d);
}

char *check_output_dir(const char *opt, const char *path, int force, const char *prefix)
{
	struct stat st;
	/* The longest name written inside: PREFIX-NAME.json.tmp.PID */
	size_t inside = strlen(prefix) + 48;
	char *real;

	if (!*path)
		die("%s needs a directory name", opt);
	check_name_length(opt, path, inside, 0);
	check_pseudo(opt, path);
	real = resolve_link(opt, path, 1);
	if (strcmp(real, path))
		check_name_length(opt, real, inside, 0);
	if (!stat(real, &st)) {
		if (!S_ISDIR(st.st_mode))
			die("%s %s: exists and is not a directory", opt, path);
		if (!dir_writable(real))
			die("%s %s: directory is not writable (choose another path)",
				  opt, path);
		check_dir_files(opt, path, real, prefix, force);
		return real;
	}
	check_parent(opt, real);
	return real;
}

int make_output_dir(const char *path)
{
	if (!mkdir(path, 0777))
		return 1;
	if (errno != EEXIST)
		fail("cannot create %s: %s", path, strerror(errno));
	return 0;
}

/*
 * The lock of a run's --output folder: flock(2) on the folder itself, once
 * it is checked. A second run into the folder while the first lives is
 * refused (exit 2) instead of measuring for nothing and losing its files
 * at the rename. The lock is the open folder, so it leaves no file and
 * ends with the process, whatever ends it (SIGKILL too). At exit the
 * folder goes if this run made it and wrote nothing into it.
 */
static char *made_dir;
static pid_t lock_pid;

static void unlock_output_dir(void)
{
	if (getpid() != lock_pid || !made_dir)	/* a forked child's exit */
		return;
	rmdir(made_dir);	/* only when empty */
	free(made_dir);
	made_dir = NULL;
}

void lock_output_dir(const char *opt, const char *dir, const char *prefix)
{
	int fd;

	lock_pid = getpid();
	if (!mkdir(dir, 0777))
		made_dir = xstrdup(dir);
	else if (errno != EEXIST)
		fail("cannot create %s: %s", dir, strerror(errno));
	atexit(unlock_output_dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fail("cannot open %s: %s", dir, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			die("%s %s: another mbbench run is writing there: wait for it, or choose another folder (mbbench %s)",
			    opt, dir, prefix);
		/* A kernel without file locking (CONFIG_FILE_LOCKING=n, the
		 * small guest kernels of kernel-patch/) or a filesystem without
		 * it: the run goes on unguarded, as before the lock. */
		if (errno != ENOSYS && errno != EOPNOTSUPP && errno != ENOLCK && errno != EINVAL)
			fail("cannot lock %s: %s", dir, strerror(errno));
		close(fd);
		return;
	}
	/* fd stays open: the lock lasts as long as this process. */
}

/*
 * A path of the sweep's command line, absolute (from the physical current
 * directory) with no trailing '/', and short enough for every file the
 * sweep writes in it: each name at most NAME_MAX with ".incomplete", the
 * whole at most PATH_MAX less room.
 */
static char *sweep_path(const char *opt, const char *arg, size_t room)
{
	char *abs, *cwd;
	size_t n;

	for (const char *c = arg; *c; c++)
		if (iscntrl((unsigned char)*c))
			die("%s: the name has a control character (choose another)", opt);
	if (arg[0] == '/') {
		abs = xstrdup(arg);
	} else {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			fail("cannot read the current directory");
		abs = xasprintf("%s/%s", cwd, arg);
		free(cwd);
	}
	for (n = strlen(abs); n && abs[n - 1] == '/'; n--)
		abs[n - 1] = '\0';
	for (const char *c = abs;; c += strcspn(c, "/") + 1) {
		size_t k = strcspn(c, "/");

		if (n + room > 4096 || k + (c[k] ? 0 : 11) > 255)
			die("%s is too long a path for the files the sweep writes in it (a name at most 244 characters, a path at most %zu): choose a shorter one",
			    opt, 4096 - room);
		if (!c[k])
			break;
	}
	return abs;
}

static int dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	while (d && (e = readdir(d)))
		empty &= !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return empty;
}

/*
 * `mbbench sweep`'s --output DIR: the results folder itself, new or empty (a link to a folder
 * is that folder; a link to nothing is refused), its parent the root.
 * --out-root DIR: where the sweep names its folder <host>-<UTC stamp>, a
 * directory or not there yet (default results/runs). Checked before
 * anything is made: the sweep makes the folder from the paths printed.
 */
void check_sweep_folder(const char *output, const char *root, char **out, char **out_root)
{
	struct stat st;
	char *path, *real, *base;

	*out = NULL;
	if (output && root)
		die("--output and --out-root: choose one (--output names the folder itself)");
	if (!output) {
		*out_root = root ? sweep_path("--out-root", root, 400) : xstrdup("results/runs");
		check_pseudo(root ? "--out-root" : "the default --out-root", *out_root);
		if (**out_root && !stat(*out_root, &st) && !S_ISDIR(st.st_mode))
			die("--out-root %s is not a directory", *out_root);
	} else {
		path = sweep_path("--output", output, 270);
		check_pseudo("--output", path);
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
			die("--output %s: name the folder itself (not /, . or ..)", output);
		if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
			if (stat(path, &st))
				die("--output %s is a symbolic link to nothing (give a new name or the folder itself)",
				    output);
			if (!S_ISDIR(st.st_mode))
				die("--output %s exists and is not an empty directory (choose a new name)", output);
			real = realpath(path, NULL);
			if (!real)
				die("--output %s: cannot resolve the link", output);
			free(path);
			path = sweep_path("--output", real, 270);
			free(real);
		}
		if (!stat(path, &st) && !(S_ISDIR(st.st_mode) && dir_empty(path)))
			die("--output %s exists and is not an empty directory (choose a new name)", path);
		*out = path;
		*out_root = xstrdup(path);
		*strrchr(*out_root, '/') = '\0';
	}
	if (!**out_root) {
		free(*out_root);
		*out_root = xstrdup("/");
	}
}

/* mkdir -p: 0 when path is a directory, made or there already. */
static int make_dirs(const char *path)
{
	char *p = xstrdup(path);
	struct stat st;
	int rc = 0;

	for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST)
			rc = -1;
		if (!s)
			break;
		*s = '/';
	}
	rc = rc || stat(p, &st) || !S_ISDIR(st.st_mode) ? -1 : 0;
	free(p);
	return rc;
}

char *make_sweep_folder(const char *out, const char *root)
{
	struct stat st;
	char host[256] = "", stamp[32], *base, *final, *inc;
	time_t now = time(NULL);
	size_t n;

	if (make_dirs(root))
		die("cannot create %s (choose --out-root or --output)", root);
	if (access(root, W_OK))
		die("cannot write to %s (choose --out-root or --output)", root);
	if (out) {
		inc = xasprintf("%s.incomplete", out);
		if (mkdir(inc, 0777)) {
			if (!lstat(inc, &st))
				die("cannot create %s (another sweep is writing there, or choose another --output)",
				    inc);
			fail("cannot create %s: %s", inc, strerror(errno));
		}
		rmdir(out);	/* the empty folder given: the .incomplete is it until renamed */
		free(inc);
		return xstrdup(out);
	}
	gethostname(host, sizeof(host) - 1);
	host[64] = '\0';
	for (n = 0; host[n]; n++)
		if (!isalnum((unsigned char)host[n]) && !strchr("._-", host[n]))
			host[n] = '_';
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
	base = xasprintf("%s/%s-%s", root, *host ? host : "host", stamp);
	final = xstrdup(base);
	for (int k = 1;; k++) {
		inc = xasprintf("%s.incomplete", final);
		if (stat(final, &st) && !mkdir(inc, 0777))
			break;
		free(inc);
		if (access(root, W_OK))
			die("cannot write to %s (choose --out-root or --output)", root);
		if (k > 100)
			fail("cannot create a folder in %s (a full disk?)", root);
		free(final);
		final = xasprintf("%s-%d", base, k);
	}
	free(inc);
	free(base);
	return final;
}
