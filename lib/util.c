// SPDX-License-Identifier: MIT
/* Errors, strict number parsing, atomic files and output path checks. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const char *progname = "mbbench";

/* One line on stderr: "mbbench: <what><message>". */
__attribute__((format(printf, 2, 0)))
static void vsay(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	exit(1);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	/* Accept k/M suffixes: "10M" iterations reads better than 10000000. */
	if (!errno && end != s) {
		unsigned long long mul = 1;

		if (*end == 'k' || *end == 'K')
			mul = 1000, end++;
		else if (*end == 'M')
			mul = 1000000, end++;
		else if (*end == 'G')
			mul = 1000000000, end++;
		if (v > ULLONG_MAX / mul)
			return -1;
		v *= mul;
	}
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double min, double max, double *out)
{
	char *end;
	double v, mul = 1;

	if (!s || !*s || *s == ' ')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -1;
	if (!strcmp(end, "ms"))
		mul = 1e-3;
	else if (!strcmp(end, "s") || !*end)
		mul = 1;
	else if (!strcmp(end, "m"))
		mul = 60;
	else
		return -1;
	v *= mul;
	if (!isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_one_int(const char *s, const char *e, int min, int max, int *out)
{
	long v = 0;

	if (s == e)
		return -1;
	for (const char *p = s; p < e; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX / 10)
			return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* A value the list holds twice, in *dup; 0 when each is there once. */
static int list_has_dup(const int *v, int n, int *dup)
{
	int *s = xmalloc((size_t)n * sizeof(*s)), found = 0;

	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_int);
	for (int i = 1; i < n && !found; i++)
		if (s[i] == s[i - 1]) {
			*dup = s[i];
			found = 1;
		}
	free(s);
	return found;
}

static int int_list(const char *s, int min, int max, int **out, int *n, int *dup)
{
	int *v = NULL, cnt = 0, cap = 0;

	if (!s || !*s)
		return -1;
	while (*s) {
		const char *comma = strchr(s, ',');
		const char *end = comma ? comma : s + strlen(s);
		const char *dash = memchr(s, '-', (size_t)(end - s));
		int lo, hi;

		if (dash) {
			if (parse_one_int(s, dash, min, max, &lo) ||
			    parse_one_int(dash + 1, end, min, max, &hi) || hi < lo)
				goto bad;
		} else {
			if (parse_one_int(s, end, min, max, &lo))
				goto bad;
			hi = lo;
		}
		for (int i = lo; i <= hi; i++) {
			if (cnt == cap) {
				cap = cap ? cap * 2 : 16;
				if (cap > 1 << 20)
					goto bad;
				v = xrealloc(v, (size_t)cap * sizeof(*v));
			}
			v[cnt++] = i;
		}
		if (!comma)
			break;
		s = comma + 1;
		if (!*s)
			goto bad;
	}
	if (dup && list_has_dup(v, cnt, dup)) {
		free(v);
		return -2;
	}
	*out = v;
	*n = cnt;
	return 0;
bad:
	free(v);
	return -1;
}

int parse_int_list(const char *s, int min, int max, int **out, int *n)
{
	return int_list(s, min, max, out, n, NULL);
}

int parse_int_set(const char *s, int min, int max, int **out, int *n, int *dup)
{
	return int_list(s, min, max, out, n, dup);
}

void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int atomic_open(struct atomic_file *af, const char *path)
{
	size_t n = strlen(path) + 32;

	af->path = xstrdup(path);
	af->tmp = xmalloc(n);
	snprintf(af->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	af->f = fopen(af->tmp, "w");
	if (!af->f) {
		free(af->path);
		free(af->tmp);
		return -1;
	}
	return 0;
}

int atomic_close(struct atomic_file *af)
{
	int err = ferror(af->f);

	if (fflush(af->f) || fsync(fileno(af->f)))
		err = 1;
	if (fclose(af->f))
		err = 1;
	af->f = NULL;
	return err ? -1 : 0;
}

int atomic_rename(struct atomic_file *af)
{
	int err = rename(af->tmp, af->path) ? -1 : 0;

	if (err)
		unlink(af->tmp);
	free(af->path);
	free(af->tmp);
	return err;
}

int atomic_commit(struct atomic_file *af)
{
	int err = atomic_close(af);

	if (err) {
		unlink(af->tmp);
		free(af->path);
		free(af->tmp);
		return -1;
	}
	return atomic_rename(af);
}

void atomic_abort(struct atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	unlink(af->tmp);
	free(af->path);
	free(af->tmp);
}

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
	free(probe);
	return fd >= 0;
}

/* A name the file system cannot hold is refused before anything runs. */
static void check_name_length(const char *opt, const char *path)
{
	const char *p = path;

	if (strlen(path) >= 4000)
		die_usage("%s: the path is %zu characters long (at most 4000)", opt, strlen(path));
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n > 255)
			die_usage("%s: a name in the path is %zu characters long (at most 255)", opt, n);
		p += n + (p[n] == '/');
	}
}

static void check_parent(const char *opt, const char *path)
{
	char *dir;
	struct stat st;

	check_name_length(opt, path);
	dir = parent_dir(path);

	if (!stat(dir, &st) && !S_ISDIR(st.st_mode))
		die_usage("%s %s: %s is a file, not a directory (choose another path)",
			  opt, path, dir);
	if (stat(dir, &st))
		die_usage("%s %s: directory %s does not exist (create it first)",
			  opt, path, dir);
	if (!dir_writable(dir))
		die_usage("%s %s: directory %s is not writable (choose another path)",
			  opt, path, dir);
	free(dir);
}

void check_output_file(const char *opt, const char *path)
{
	struct stat st;

	if (!*path)
		die_usage("%s needs a file name", opt);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		die_usage("%s %s: is a directory (give a file name)", opt, path);
	check_parent(opt, path);
}

void check_output_dir(const char *opt, const char *path)
{
	struct stat st;

	if (!*path)
		die_usage("%s needs a directory name", opt);
	if (!stat(path, &st)) {
		if (!S_ISDIR(st.st_mode))
			die_usage("%s %s: exists and is not a directory", opt, path);
		if (!dir_writable(path))
			die_usage("%s %s: directory is not writable (choose another path)",
				  opt, path);
		return;
	}
	check_parent(opt, path);
}

void make_output_dir(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST)
		die("cannot create %s: %s", path, strerror(errno));
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}
