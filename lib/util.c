// SPDX-License-Identifier: MIT
/* Errors, strict number parsing, atomic files and output path checks. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util.h"

const char *progname = "mbbench";
/* Set once an error line is out: the stdout check at exit stays silent. */
static int dying;

/* One line on stderr: "mbbench: <what><message>". */
__attribute__((format(printf, 2, 0)))
static void vsay(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	dying = 1;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

void fail(const char *fmt, ...)
{
	va_list ap;

	dying = 1;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	exit(1);
}

int stdout_failed(void)
{
	return fflush(stdout) || ferror(stdout);
}

static pid_t stdout_owner;

/* Output that never reached stdout (a full disk, a closed pipe) is an error. */
static void close_stdout(void)
{
	int bad;

	if (dying || getpid() != stdout_owner)
		return;
	errno = 0;
	bad = stdout_failed();
	if (fclose(stdout))
		bad = 1;
	if (bad) {
		fprintf(stderr, "%s: cannot write stdout: %s\n", progname,
			errno ? strerror(errno) : "a write failed");
		_exit(1);
	}
}

void check_stdout_at_exit(void)
{
	stdout_owner = getpid();
	atexit(close_stdout);
}

void fail_stdout(void)
{
	errno = 0;
	if (!stdout_failed())
		return;
	fail("cannot write stdout: %s", errno ? strerror(errno) : "a write failed");
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
		fail("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		fail("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fail("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fail("out of memory");
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

static int cmp_pair(const void *a, const void *b)
{
	const int *x = a, *y = b;

	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Keep each value of v[0..n) once, where it first appears; the new count. */
static int list_merge(int *v, int n)
{
	int *p = xmalloc((size_t)n * 2 * sizeof(*p)), *keep = xcalloc((size_t)n, sizeof(*keep)), k = 0;

	for (int i = 0; i < n; i++) {
		p[2 * i] = v[i];
		p[2 * i + 1] = i;
	}
	qsort(p, (size_t)n, 2 * sizeof(*p), cmp_pair);
	for (int i = 0; i < n; i++)
		if (!i || p[2 * i] != p[2 * i - 2])
			keep[p[2 * i + 1]] = 1;
	for (int i = 0; i < n; i++)
		if (keep[i])
			v[k++] = v[i];
	free(p);
	free(keep);
	return k;
}

static int int_list(const char *s, int min, int max, int **out, int *n, int merge)
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
	*out = v;
	*n = merge ? list_merge(v, cnt) : cnt;
	return 0;
bad:
	free(v);
	return -1;
}

int parse_int_list(const char *s, int min, int max, int **out, int *n)
{
	return int_list(s, min, max, out, n, 0);
}

int parse_int_set(const char *s, int min, int max, int **out, int *n)
{
	return int_list(s, min, max, out, n, 1);
}

void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int atomic_open(struct atomic_file *af, const char *path, int replace)
{
	size_t n = strlen(path) + 32;
	int fd;

	af->path = xstrdup(path);
	af->tmp = xmalloc(n);
	af->replace = replace;
	snprintf(af->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	/* A new file, never through a name that is already there. */
	fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	af->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!af->f) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(af->tmp);
		}
		free(af->path);
		free(af->tmp);
		errno = e;
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
	if (err && !errno)
		errno = EIO;
	return err ? -1 : 0;
}

/*
 * Only a regular file is ever replaced, and only when asked to: a device,
 * a FIFO, a socket or a directory keeps its name (EEXIST).
 */
static int rename_into(const char *tmp, const char *path, int replace)
{
	struct stat st;

	if (!replace) {
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE))
			return 0;
		if (errno != EINVAL && errno != ENOSYS)
			return -1;
		/* A file system without RENAME_NOREPLACE: a link fails the same way. */
		if (!link(tmp, path)) {
			unlink(tmp);
			return 0;
		}
		if (errno != EPERM && errno != EOPNOTSUPP)
			return -1;
	}
	if (!lstat(path, &st) && (!S_ISREG(st.st_mode) || !replace)) {
		errno = EEXIST;
		return -1;
	}
	return rename(tmp, path);
}

int atomic_rename(struct atomic_file *af)
{
	int err = rename_into(af->tmp, af->path, af->replace) ? -1 : 0;
	int e = errno;

	if (err)
		unlink(af->tmp);
	free(af->path);
	free(af->tmp);
	errno = e;
	return err;
}

int atomic_commit(struct atomic_file *af)
{
	int err = atomic_close(af);

	if (err) {
		int e = errno;

		unlink(af->tmp);
		free(af->path);
		free(af->tmp);
		errno = e;
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

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/*
 * The kernel's file systems that hold no files of ours: a write there fails
 * halfway (ENOENT from /proc), or worse succeeds (a directory made in a
 * cgroup file system is a cgroup). By statfs(2) f_type, from linux/magic.h.
 */
static const struct {
	long magic;
	const char *name;
} pseudo[] = {
	{ 0x9fa0, "proc" }, { 0x62656572, "sysfs" }, { 0x64626720, "debugfs" },
	{ 0x74726163, "tracefs" }, { 0x27e0eb, "cgroup" }, { 0x63677270, "cgroup2" },
	{ 0x73636673, "securityfs" }, { 0x6165676c, "pstore" }, { (long)0xcafe4a11, "bpf" },
	{ 0x62656570, "configfs" }, { 0x1cd1, "devpts" }, { (long)0xde5e81e4, "efivarfs" },
	{ 0x42494e4d, "binfmt_misc" }, { 0x65735543, "fusectl" }, { 0x19800202, "mqueue" },
	{ 0x6e736673, "nsfs" }, { (long)0xf97cff8c, "selinuxfs" },
};

const char *pseudo_fs(const char *path)
{
	static char where[64];
	char *p = path[0] == '/' ? xstrdup(path) : NULL, *real = NULL, *slash;
	struct statfs sf;
	const char *top[] = { "/proc", "/sys", "/dev" };

	if (!p) {
		char *cwd = getcwd(NULL, 0);

		if (!cwd)
			return NULL;
		p = path_join(cwd, path);
		free(cwd);
	}
	/* The nearest part of the path that exists, its links resolved. */
	while (!(real = realpath(p, NULL)) && (slash = strrchr(p, '/')) && slash != p)
		*slash = '\0';
	if (!real)
		real = xstrdup("/");
	free(p);
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		size_t n = strlen(top[i]);

		if (!strncmp(real, top[i], n) && (!real[n] || real[n] == '/') &&
		    strncmp(real, "/dev/shm", 8)) {
			free(real);
			return top[i];
		}
	}
	if (!statfs(real, &sf))
		for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
			if ((long)sf.f_type == pseudo[i].magic) {
				snprintf(where, sizeof(where), "a %s file system", pseudo[i].name);
				free(real);
				return where;
			}
	free(real);
	return NULL;
}

int fault_point(const char *name)
{
	const char *f = getenv("MBBENCH_FAULT");

	return f && !strcmp(f, name);
}

void fault_late_start(int i, int n, const _Atomic int *stop)
{
	struct timespec ts = { 0, 1000000 };

	if (n < 2 || i != n - 1 || !fault_point("late-start"))
		return;
	while (!atomic_load(stop))
		nanosleep(&ts, NULL);
}
