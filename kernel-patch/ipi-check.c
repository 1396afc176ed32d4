// SPDX-License-Identifier: GPL-2.0
/*
 * ipi-check: which CPUs does each membarrier command interrupt?
 *
 * The seed designs differ in one observable way: which CPUs receive a
 * function-call IPI per barrier. This program places work on four CPUs,
 *
 *	CPU 0	the caller, issuing barriers
 *	CPU 1	a thread of the caller's process, spinning in user space
 *	CPU 2	nothing (idle)
 *	CPU 3	a forked process (another mm), spinning in user space
 *
 * then issues a few hundred barriers of each command and reads the CAL row
 * of /proc/interrupts before and after. It prints, per command and per CPU,
 * the received IPIs per barrier after subtracting the background rate
 * measured first over a quiet period with the same placement: one ROUND
 * line per round, and IPI lines with the median over the rounds (three by
 * default), so that one round in which the spinning thread was not on its
 * CPU (an overloaded TCG host can hold a vCPU in a kernel thread for
 * milliseconds) does not decide the result.
 *
 * CAL also counts the IPIs of remote wakeups (the scheduler's wakelist),
 * and an idle CPU is where unbound kernel threads such as RCU's grace-period
 * thread go: without care, seed-v5-sched "raises" IPIs on the idle CPU that
 * come from waking that thread, not from the barrier. So every task that
 * may move is first moved to the caller's CPU, as one would for a realtime
 * measurement, and the baseline is taken with the caller busy, as it is
 * while it issues barriers. The expected
 * pattern (seed-v1-ipi-all: CPUs 1, 2, 3; seed-v5-expedited and
 * PRIVATE_EXPEDITED: CPU 1; seed-v5-sched: none) is judged by the caller
 * of this program (kernel-patch/check-kernel), not here.
 *
 * It also prints the MEMBARRIER_CMD_QUERY mask and which seed commands it
 * reports. It is meant to run in the patched kernel's VM, statically
 * linked, as the only busy program on the machine.
 *
 * Why a second IPI counter beside bench/host/ipicount.c (which mbbench disturb
 * uses): this one is built by make-initramfs with plain `gcc -static` and
 * no configure, hwloc or project library (it takes only the seed commands'
 * numbers from workloads/mechanisms/seed-membarrier.h), so it runs in any test guest,
 * also when no static mbbench could be built. It counts one thing, the
 * CAL row, with the placement and the noise removal the kernel checks
 * need, and check-kernel's verdict on which CPUs each seed command
 * interrupts (tests 8-11) rests on it alone, not on ipicount.c's
 * tracepoints, csd attribution or fallbacks. It is an independent
 * measurement of the same pattern that disturb measures in the guests
 * (bench/vm), not a check of ipicount.c: nothing compares the two
 * automatically, so a disagreement shows only to whoever reads both.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After <linux/membarrier.h>: a patched uapi header has the same names. */
#include "../workloads/mechanisms/seed-membarrier.h"

#define MAX_CPUS 64
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { CPU_CALLER, CPU_THREAD, CPU_IDLE, CPU_FOREIGN, NR_ROLES };

struct command {
	const char *name;	/* mbbench mechanism name */
	int cmd;
	int register_cmd;	/* 0: no registration needed */
	int sched;		/* slow (grace period): fewer barriers */
};

static const struct command commands[] = {
	{ "seed-v1-ipi-all", MEMBARRIER_CMD_SEED_V1_IPI_ALL, 0, 0 },
	{ "seed-v5-expedited", MEMBARRIER_CMD_SEED_V5_EXPEDITED, 0, 0 },
	{ "membarrier-private-expedited", MEMBARRIER_CMD_PRIVATE_EXPEDITED,
	  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0 },
	{ "seed-v5-sched", MEMBARRIER_CMD_SEED_V5_SCHED, 0, 1 },
};

#define NR_COMMANDS ARRAY_SIZE(commands)
#define MAX_ROUNDS 15

/* Barriers per round, rounds per command: set by the options. */
static long barriers = 300, sched_barriers = 30;
static int rounds = 3;

static const struct command *const seed_commands[] = {
	&commands[0], &commands[1], &commands[3],
};

static int stop_spinning;

static int membarrier(int cmd, unsigned int flags, int cpu_id)
{
	return syscall(__NR_membarrier, cmd, flags, cpu_id);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "ipi-check: cannot pin to CPU %d: %s\n", cpu,
			strerror(errno));
		exit(1);
	}
}

/*
 * Read the function call IPI row of /proc/interrupts (CAL on x86, the row
 * named "Function call interrupts" elsewhere) into cal[cpu]. The header names the
 * CPU of each column ("CPU0 CPU1 ..."), so offline CPUs cannot shift them.
 * Returns the number of columns read, 0 on failure.
 */
static int read_cal(unsigned long long cal[MAX_CPUS])
{
	int col_cpu[MAX_CPUS], ncols = 0, found = 0;
	char line[4096], *p, *end;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	for (p = strstr(line, "CPU"); p && ncols < MAX_CPUS;
	     p = strstr(p, "CPU")) {
		p += 3;
		col_cpu[ncols++] = (int)strtol(p, &end, 10);
		p = end;
	}
	memset(cal, 0, sizeof(unsigned long long) * MAX_CPUS);
	while (fgets(line, sizeof(line), f)) {
		int i;

		p = line + strspn(line, " ");
		/* x86's CAL, or the row another architecture names so
		 * (arm64: "IPI1: ... Function call interrupts"). */
		if (strncmp(p, "CAL:", 4) &&
		    !strstr(p, "Function call interrupts"))
			continue;
		p = strchr(p, ':');
		if (!p)
			continue;
		p++;
		for (i = 0; i < ncols; i++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (col_cpu[i] >= 0 && col_cpu[i] < MAX_CPUS)
				cal[col_cpu[i]] = v;
			p = end;
		}
		found = i == ncols;
		break;
	}
	fclose(f);
	return found ? ncols : 0;
}

static void *spin_thread(void *arg)
{
	pin_self(*(int *)arg);
	while (!__atomic_load_n(&stop_spinning, __ATOMIC_RELAXED))
		;
	return NULL;
}

static pid_t start_foreign_spinner(int cpu)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("ipi-check: fork");
		exit(1);
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_self(cpu);
		for (;;)
			;
	}
	return pid;
}

/* Tasks moved by move_other_tasks(), with their affinity, to restore. */
#define MAX_MOVED 4096
static struct moved_task {
	pid_t tid;
	cpu_set_t mask;
} moved_tasks[MAX_MOVED];
static int nr_moved;

/*
 * Move every other task that allows it to @cpu, so that the other CPUs run
 * only what this program puts there (per-CPU kernel threads refuse, which
 * is fine: they do not wake up remotely). Returns the number moved.
 */
static int move_other_tasks(int cpu)
{
	char path[64], *end;
	struct moved_task *mt;
	struct dirent *de;
	cpu_set_t set;
	DIR *dir, *tdir;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		/* Threads too: affinity is per task. */
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		tdir = opendir(path);
		if (!tdir)
			continue;
		while ((de = readdir(tdir))) {
			long tid = strtol(de->d_name, &end, 10);

			if (*end || tid <= 0 || nr_moved == MAX_MOVED)
				continue;
			mt = &moved_tasks[nr_moved];
			if (sched_getaffinity(tid, sizeof(mt->mask), &mt->mask))
				continue;
			if (!sched_setaffinity(tid, sizeof(set), &set)) {
				mt->tid = tid;
				nr_moved++;
			}
		}
		closedir(tdir);
	}
	closedir(dir);
	return nr_moved;
}

/* Give the moved tasks (those still alive) their affinity back. */
static void restore_other_tasks(void)
{
	int i;

	for (i = 0; i < nr_moved; i++)
		sched_setaffinity(moved_tasks[i].tid,
				  sizeof(moved_tasks[i].mask),
				  &moved_tasks[i].mask);
}

/* Keep the caller's CPU busy in user space, as during a barrier loop. */
static double busy_for(long ms)
{
	double t0 = now_s(), t;

	do
		t = now_s();
	while (t - t0 < ms / 1e3);
	return t - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * One round of one command: @n barriers between two reads of CAL. Stores
 * the IPIs per barrier of each CPU, background subtracted, in @per[] and
 * prints them on one ROUND line. Returns -1 if a call failed.
 */
static int measure(const struct command *cm, int round, int ncpus,
		   const double *base_rate, double *per)
{
	unsigned long long before[MAX_CPUS], after[MAX_CPUS];
	long n = cm->sched ? sched_barriers : barriers, j;
	double t0, elapsed;
	int i;

	read_cal(before);
	t0 = now_s();
	for (j = 0; j < n; j++) {
		if (membarrier(cm->cmd, 0, 0)) {
			printf("ERROR cmd=%s call %ld: %s\n", cm->name, j,
			       strerror(errno));
			return -1;
		}
	}
	elapsed = now_s() - t0;
	read_cal(after);
	printf("ROUND cmd=%s round=%d barriers=%ld us_per_call=%.1f", cm->name,
	       round, n, elapsed * 1e6 / n);
	for (i = 0; i < ncpus && i < MAX_CPUS; i++) {
		per[i] = (after[i] - before[i] - base_rate[i] * elapsed) / n;
		printf(" cpu%d=%.3f", i, per[i]);
	}
	printf("\n");
	fflush(stdout);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ipi-check [--barriers N] [--sched-barriers N] [--rounds R]\n"
		"                 [--quiet-ms MS] [--query-only]\n"
		"Needs CPUs 0-3 online. Prints QUERY, BASELINE, ROUND lines and\n"
		"IPI lines with the median over the rounds.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "barriers", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "query-only", no_argument, NULL, 'q' },
		{ "quiet-ms", required_argument, NULL, 'w' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "sched-barriers", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	static const int role_cpu[NR_ROLES] = { 0, 1, 2, 3 };
	unsigned long long before[MAX_CPUS], after[MAX_CPUS];
	double base_rate[MAX_CPUS], elapsed;
	double per_barrier[NR_COMMANDS][MAX_ROUNDS][MAX_CPUS];
	int query_only = 0, mask, ncpus, c, i, r, rc;
	int usable[NR_COMMANDS];
	long quiet_ms = 1000;
	struct timespec quiet;
	pthread_t thread;
	size_t k;
	pid_t child;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		long v = 0;

		if (c == 'n' || c == 's' || c == 'w' || c == 'r') {
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 ||
			    v > (c == 'r' ? MAX_ROUNDS : 10000000)) {
				fprintf(stderr,
					"ipi-check: bad number '%s' for --%s\n",
					optarg,
					c == 'n' ? "barriers" :
					c == 's' ? "sched-barriers" :
					c == 'r' ? "rounds" : "quiet-ms");
				return 2;
			}
		}
		switch (c) {
		case 'n':
			barriers = v;
			break;
		case 's':
			sched_barriers = v;
			break;
		case 'w':
			quiet_ms = v;
			break;
		case 'r':
			rounds = v;
			break;
		case 'q':
			query_only = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	mask = membarrier(MEMBARRIER_CMD_QUERY, 0, 0);
	if (mask < 0) {
		printf("QUERY error=%s\n", strerror(errno));
		return 1;
	}
	printf("QUERY mask=0x%x\n", mask);
	for (k = 0; k < ARRAY_SIZE(seed_commands); k++)
		printf("QUERY %s=%s\n", seed_commands[k]->name,
		       mask & seed_commands[k]->cmd ? "yes" : "no");
	if (query_only)
		return 0;

	ncpus = read_cal(before);
	if (ncpus < NR_ROLES) {
		fprintf(stderr,
			"ipi-check: needs 4 online CPUs and a function call IPI row in /proc/interrupts (CAL, or \"Function call interrupts\"; found %d columns)\n",
			ncpus);
		return 2;
	}

	pin_self(role_cpu[CPU_CALLER]);
	printf("SETUP moved %d tasks to CPU %d\n",
	       move_other_tasks(role_cpu[CPU_CALLER]), role_cpu[CPU_CALLER]);
	child = start_foreign_spinner(role_cpu[CPU_FOREIGN]);
	rc = pthread_create(&thread, NULL, spin_thread, (void *)&role_cpu[CPU_THREAD]);
	if (rc) {	/* pthread_create returns its error; errno is not set */
		fprintf(stderr, "ipi-check: pthread_create: %s\n", strerror(rc));
		kill(child, SIGKILL);
		restore_other_tasks();
		return 1;
	}
	/* Let the spinners reach their CPUs and fork's COW faults settle. */
	quiet.tv_sec = 0;
	quiet.tv_nsec = 200 * 1000000L;
	nanosleep(&quiet, NULL);

	/* Background IPIs over a quiet period with the same placement. */
	read_cal(before);
	elapsed = busy_for(quiet_ms);
	read_cal(after);
	for (i = 0; i < ncpus && i < MAX_CPUS; i++) {
		base_rate[i] = (after[i] - before[i]) / elapsed;
		printf("BASELINE cpu=%d cal=%llu seconds=%.3f cal_per_s=%.2f\n",
		       i, after[i] - before[i], elapsed, base_rate[i]);
	}

	for (k = 0; k < ARRAY_SIZE(commands); k++) {
		const struct command *cm = &commands[k];

		usable[k] = 0;
		if (!(mask & cm->cmd)) {
			printf("SKIP cmd=%s reason=not in QUERY mask\n",
			       cm->name);
			continue;
		}
		if (cm->register_cmd && membarrier(cm->register_cmd, 0, 0)) {
			printf("ERROR cmd=%s register: %s\n", cm->name,
			       strerror(errno));
			continue;
		}
		usable[k] = 1;
	}
	/* Rounds interleave the commands, so a slow spell hits only one. */
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < ARRAY_SIZE(commands); k++) {
			if (usable[k] &&
			    measure(&commands[k], r, ncpus, base_rate,
				    per_barrier[k][r]))
				usable[k] = 0;
		}
	}
	for (k = 0; k < ARRAY_SIZE(commands); k++) {
		if (!usable[k])
			continue;
		for (i = 0; i < ncpus && i < MAX_CPUS; i++) {
			double v[MAX_ROUNDS];

			for (r = 0; r < rounds; r++)
				v[r] = per_barrier[k][r][i];
			printf("IPI cmd=%s cpu=%d rounds=%d per_barrier=%.3f\n",
			       commands[k].name, i, rounds, median(v, rounds));
		}
	}

	__atomic_store_n(&stop_spinning, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	restore_other_tasks();
	printf("DONE\n");
	return 0;
}
