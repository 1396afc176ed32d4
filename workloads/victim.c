// SPDX-License-Identifier: MIT
/*
 * The victims of the disturb experiment. foreign-rt is the oslat method: a
 * SCHED_FIFO busy-poll reading the clock and recording every gap in its own
 * loop; an IPI, or anything else taking the CPU, shows as a long gap.
 * foreign-sleep is the cyclictest method: sleep to an absolute deadline and
 * record how late the wake-up was. foreign-spin is a plain busy loop that
 * private membarrier commands must not reach.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "barrier.h"
#include "strbuf.h"
#include "util.h"
#include "victim.h"

static const char *const role_str[NR_ROLES] = {
	[ROLE_IDLE] = "idle",
	[ROLE_SELF_SPIN] = "self-spin",
	[ROLE_SELF_SLEEP] = "self-sleep",
	[ROLE_FOREIGN_SPIN] = "foreign-spin",
	[ROLE_FOREIGN_RT] = "foreign-rt",
	[ROLE_FOREIGN_SLEEP] = "foreign-sleep",
};

const char *role_name(enum role r)
{
	return r < NR_ROLES ? role_str[r] : "?";
}

int role_parse(const char *s, enum role *out)
{
	for (int i = 0; i < NR_ROLES; i++)
		if (!strcmp(s, role_str[i])) {
			*out = (enum role)i;
			return 0;
		}
	return -1;
}

int role_is_foreign(enum role r)
{
	return r == ROLE_FOREIGN_SPIN || r == ROLE_FOREIGN_RT || r == ROLE_FOREIGN_SLEEP;
}

const char *role_names(void)
{
	/* Built once, as long as the roles need, and kept. */
	static struct strbuf b = STRBUF_INIT;

	if (!b.s)
		for (int i = 0; i < NR_ROLES; i++)
			strbuf_addf(&b, "%s%s", i ? ", " : "", role_str[i]);
	return strbuf_str(&b);
}

struct victim_shared *victim_shared_new(void)
{
	struct victim_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (sh == MAP_FAILED)
		return NULL;
	for (int p = 0; p < NR_VPH; p++) {
		sh->h[p].b = sh->buckets[p];
		hist_reset(&sh->h[p]);
	}
	atomic_store(&sh->phase, VPH_WARMUP);
	return sh;
}

void victim_shared_free(struct victim_shared *sh)
{
	if (sh)
		munmap(sh, sizeof(*sh));
}

/* Runs in the child: busy-poll at RT priority, every loop gap recorded. */
static void run_rt(struct victim_shared *sh)
{
	uint64_t prev = now_ns();

	for (;;) {
		uint64_t t = now_ns();
		int ph = atomic_load_explicit(&sh->phase, memory_order_relaxed);

		if (ph >= VPH_STOP)
			return;
		if (ph != VPH_WARMUP)
			hist_add(&sh->h[ph], t - prev);
		prev = t;
	}
}

/* Runs in the child: periodic absolute sleeps, wake-up lateness recorded. */
static void run_sleep(struct victim_shared *sh)
{
	uint64_t next = now_ns() + VICTIM_SLEEP_PERIOD_NS;

	for (;;) {
		struct timespec ts = {
			.tv_sec = (time_t)(next / 1000000000ull),
			.tv_nsec = (long)(next % 1000000000ull),
		};
		uint64_t t;
		int ph;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		t = now_ns();
		ph = atomic_load(&sh->phase);
		if (ph >= VPH_STOP)
			return;
		if (ph != VPH_WARMUP)
			hist_add(&sh->h[ph], t > next ? t - next : 0);
		next += VICTIM_SLEEP_PERIOD_NS;
		if (next < t)	/* missed periods: do not burst */
			next = t + VICTIM_SLEEP_PERIOD_NS;
	}
}

static void run_spin(struct victim_shared *sh)
{
	while (atomic_load_explicit(&sh->phase, memory_order_relaxed) < VPH_STOP)
		cpu_relax();
}

/* Common child setup: group, death signal, pin, bounds. 0 or -errno. */
static int child_common(pid_t pgid, pid_t parent, int cpu, double bound_s)
{
	cpu_set_t set;
	struct rlimit rl;
	unsigned int secs = (unsigned int)bound_s + 1;

	setpgid(0, pgid);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* the parent died before the prctl */
		_exit(1);
	prctl(PR_SET_NAME, "mbbench-victim");
	/* A victim that outlives its run is a bug; the alarm ends it anyway. */
	signal(SIGALRM, SIG_DFL);
	alarm(secs);
	/* CPU time at RT priority without blocking, in us: the kernel's bound. */
	rl.rlim_cur = rl.rlim_max = (rlim_t)secs * 1000000;
	setrlimit(RLIMIT_RTTIME, &rl);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	return 0;
}

static void group_add(struct victim_group *g, pid_t pid, enum role role, int cpu,
		      struct victim_shared *sh)
{
	/* Both sides call setpgid: whichever runs first, the group is right. */
	setpgid(pid, g->pgid ? g->pgid : pid);
	if (!g->pgid)
		g->pgid = pid;
	g->v = xrealloc(g->v, sizeof(*g->v) * (size_t)(g->nv + 1));
	g->v[g->nv].role = role;
	g->v[g->nv].cpu = cpu;
	g->v[g->nv].pid = pid;
	g->v[g->nv].sh = sh;
	g->nv++;
}

int victim_start(struct victim_group *g, enum role role, int cpu, int rt_prio,
		 double bound_s, char *reason, size_t len)
{
	struct victim_shared *sh = victim_shared_new();
	int ready[2];
	pid_t parent = getpid(), pid;
	char buf[256];
	ssize_t n;

	if (!sh) {
		snprintf(reason, len, "mmap: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ready, O_CLOEXEC)) {
		snprintf(reason, len, "pipe: %s", strerror(errno));
		victim_shared_free(sh);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(reason, len, "fork: %s", strerror(errno));
		close(ready[0]);
		close(ready[1]);
		victim_shared_free(sh);
		return -1;
	}
	if (pid == 0) {
		struct sched_param sp = { .sched_priority = rt_prio };
		int e;

		close(ready[0]);
		e = child_common(g->pgid, parent, cpu, bound_s);
		if (e) {
			snprintf(buf, sizeof(buf), "cannot pin the victim to CPU %d: %s",
				 cpu, strerror(-e));
			if (write(ready[1], buf, strlen(buf)) < 0)
				_exit(1);
			_exit(1);
		}
		strcpy(sh->policy, "SCHED_OTHER");
		if (role == ROLE_FOREIGN_RT || role == ROLE_FOREIGN_SLEEP) {
			e = sched_setscheduler(0, SCHED_FIFO, &sp) ? errno : 0;
			if (!e)
				snprintf(sh->policy, sizeof(sh->policy), "SCHED_FIFO/%d", rt_prio);
			if (e && role == ROLE_FOREIGN_RT) {
				if (e == EPERM)
					snprintf(buf, sizeof(buf), "SCHED_FIFO needs root or CAP_SYS_NICE (or RLIMIT_RTPRIO >= %d)", rt_prio);
				else
					snprintf(buf, sizeof(buf), "sched_setscheduler SCHED_FIFO: %s", strerror(e));
				if (write(ready[1], buf, strlen(buf)) < 0)
					_exit(1);
				_exit(0);
			}
		}
		if (write(ready[1], "", 1) < 0)
			_exit(1);
		close(ready[1]);
		if (role == ROLE_FOREIGN_RT)
			run_rt(sh);
		else if (role == ROLE_FOREIGN_SLEEP)
			run_sleep(sh);
		else
			run_spin(sh);
		_exit(0);
	}
	close(ready[1]);
	group_add(g, pid, role, cpu, sh);
	n = read(ready[0], buf, sizeof(buf) - 1);
	close(ready[0]);
	if (n == 1 && buf[0] == '\0')
		return 0;
	buf[n > 0 ? n : 0] = '\0';
	snprintf(reason, len, "%s", n > 0 ? buf : "the victim process exited at start");
	victim_wait(pid, 1.0);
	g->v[g->nv - 1].pid = -1;
	return -1;
}

pid_t victim_exec(struct victim_group *g, char *const argv[], int cpu,
		  double bound_s, const char *log_path, char *reason, size_t len)
{
	pid_t parent = getpid(), pid;
	int ex[2];
	ssize_t n;
	int e = 0;

	if (pipe2(ex, O_CLOEXEC)) {
		snprintf(reason, len, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(reason, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd;

		close(ex[0]);
		e = -child_common(g->pgid, parent, cpu, bound_s);
		fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (!e && fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
			/* alarm, RLIMIT_RTTIME and the death signal survive exec. */
			execvp(argv[0], argv);
		}
		e = e ? e : errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(ex[1]);
	group_add(g, pid, ROLE_IDLE, cpu, NULL);
	n = read(ex[0], &e, sizeof(e));
	close(ex[0]);
	if (n == (ssize_t)sizeof(e)) {
		snprintf(reason, len, "cannot run %s: %s", argv[0], strerror(e));
		victim_wait(pid, 1.0);
		g->v[g->nv - 1].pid = -1;
		return -1;
	}
	return pid;
}

void victim_phase(struct victim_group *g, int phase)
{
	for (int i = 0; i < g->nv; i++)
		if (g->v[i].sh)
			atomic_store(&g->v[i].sh->phase, phase);
}

uint64_t victim_runtime_ns(pid_t pid)
{
	char path[64];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

int victim_wait(pid_t pid, double timeout_s)
{
	uint64_t end = now_ns() + (uint64_t)(timeout_s * 1e9);
	int st = 0;

	if (pid <= 0)
		return -1;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ns() >= end) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		usleep(2000);
	}
}

void victim_stop_all(struct victim_group *g)
{
	victim_phase(g, VPH_STOP);
	for (int i = 0; i < g->nv; i++)
		if (g->v[i].pid > 0) {
			victim_wait(g->v[i].pid, 1.0);
			g->v[i].pid = -1;
		}
	/* Anything left in the group (a tool's own threads or children). */
	if (g->pgid > 0)
		kill(-g->pgid, SIGKILL);
}

struct watchdog {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int cancelled;
	uint64_t deadline;
	struct victim_group *g;
};

static void *watchdog_main(void *arg)
{
	struct watchdog *w = arg;
	struct timespec ts;
	int fired = 0;

	/* The condition variable uses CLOCK_MONOTONIC (see watchdog_arm). */
	ts.tv_sec = (time_t)(w->deadline / 1000000000ull);
	ts.tv_nsec = (long)(w->deadline % 1000000000ull);
	pthread_mutex_lock(&w->mu);
	while (!w->cancelled && !fired)
		if (pthread_cond_timedwait(&w->cv, &w->mu, &ts) == ETIMEDOUT)
			fired = !w->cancelled;
	pthread_mutex_unlock(&w->mu);
	if (fired && w->g->pgid > 0) {
		kill(-w->g->pgid, SIGKILL);
		fprintf(stderr, "%s: watchdog: victims overstayed the run and were killed\n",
			progname);
	}
	return NULL;
}

struct watchdog *watchdog_arm(struct victim_group *g, double deadline_s, char *err, size_t len)
{
	struct watchdog *w = xcalloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int e;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w->mu, NULL);
	w->g = g;
	w->deadline = now_ns() + (uint64_t)(deadline_s * 1e9);
	e = pthread_create(&w->th, NULL, watchdog_main, w);
	if (e) {	/* pthread_create returns its error; errno is not set */
		snprintf(err, len, "cannot start the victims' watchdog thread: %s", strerror(e));
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

void watchdog_cancel(struct watchdog *w)
{
	pthread_mutex_lock(&w->mu);
	w->cancelled = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
