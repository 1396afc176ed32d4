// SPDX-License-Identifier: GPL-2.0
/*
 * ctxsw: the cost of a context switch between two threads of one process.
 *
 * The GLOBAL_EXPEDITED fix (fixes/0001) drops the prev_mm == next_mm early
 * return of membarrier_switch_mm(), so a switch to a user task whose mm is
 * already the active one now loads next_mm->membarrier_state and compares
 * it with rq->membarrier_state. The switches that take that path are those
 * between threads of one process on one CPU, which is what this measures,
 * like `perf bench sched pipe -T`: two threads pinned to the same CPU play
 * ping-pong over two pipes, so every round trip is two voluntary switches
 * from one thread of the process to the other.
 *
 * The process does not register for any membarrier command: the added load
 * and compare run on every such switch whatever the registration (the
 * store after the compare happens only on the first switch after a
 * registration changes the mm's state), so a registered variant would run
 * the same code.
 *
 * Prints one REPEAT line per repeat (ns per switch), after one warm-up
 * repeat that is not counted, and a RESULT line with the mean and its 95%
 * confidence interval (Student's t, repeats - 1 degrees of freedom). A
 * repeat whose threads switched fewer than twice per round trip (getrusage,
 * voluntary and involuntary) or left the CPU is reported as an ERROR and
 * the exit status is 1: its time would not be a switch time.
 *
 * Under QEMU TCG the times are those of an emulated CPU sharing the host
 * with the other vCPUs: they show whether a change costs something large,
 * not what it costs on hardware.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPEATS 1000

struct side {
	int rd, wr;		/* this thread reads rd and writes wr */
	int cpu;
	long loops;
	int first;		/* writes before it reads */
	long nsw;		/* switches away from it during the loop */
	int cpu_after;		/* sched_getcpu() after the loop */
	int error;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Switches away from this thread, voluntary (it blocked) or not (preempted). */
static long nswitches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void *ping(void *arg)
{
	struct side *s = arg;
	long i, n0;
	char c = 0;

	if (pin(s->cpu)) {
		s->error = errno;
		close(s->wr);	/* the other thread reads EOF and stops */
		return NULL;
	}
	n0 = nswitches();
	for (i = 0; i < s->loops; i++) {
		if (s->first && write(s->wr, &c, 1) != 1)
			break;
		if (read(s->rd, &c, 1) != 1)
			break;
		if (!s->first && write(s->wr, &c, 1) != 1)
			break;
	}
	if (i < s->loops) {
		s->error = errno ? errno : EIO;
		close(s->wr);
	}
	s->nsw = nswitches() - n0;
	s->cpu_after = sched_getcpu();
	return NULL;
}

/* One repeat: the ns per switch, or a negative value when it is invalid. */
static double repeat(int cpu, long loops, double *per_trip)
{
	int ab[2], ba[2];
	struct side a, b;
	pthread_t ta, tb;
	double t0, t1;

	if (pipe(ab) || pipe(ba)) {
		fprintf(stderr, "ctxsw: pipe: %s\n", strerror(errno));
		exit(1);
	}
	a = (struct side){ .rd = ba[0], .wr = ab[1], .cpu = cpu, .loops = loops, .first = 1 };
	b = (struct side){ .rd = ab[0], .wr = ba[1], .cpu = cpu, .loops = loops, .first = 0 };
	t0 = now_ns();
	if (pthread_create(&tb, NULL, ping, &b) || pthread_create(&ta, NULL, ping, &a)) {
		fprintf(stderr, "ctxsw: pthread_create failed\n");
		exit(1);
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	t1 = now_ns();
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	*per_trip = (double)(a.nsw + b.nsw) / loops;
	if (a.error || b.error) {
		printf("ERROR thread: %s\n", strerror(a.error ? a.error : b.error));
		return -1;
	}
	if (a.cpu_after != cpu || b.cpu_after != cpu) {
		printf("ERROR threads ended on CPUs %d and %d, not %d\n",
		       a.cpu_after, b.cpu_after, cpu);
		return -1;
	}
	/*
	 * On one CPU a round trip cannot take fewer than two switches, one
	 * each way (the waker is either preempted by the wakee or blocks in
	 * its next read). Fewer means the threads ran on two CPUs.
	 */
	if (*per_trip < 1.9) {
		printf("ERROR %.3f switches per round trip: the threads did not take turns on one CPU\n",
		       *per_trip);
		return -1;
	}
	return (t1 - t0) / (2.0 * loops);
}

/* Two-sided 95% quantile of Student's t with df degrees of freedom. */
static double t95(int df)
{
	static const double t[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};

	if (df < 1)
		return NAN;
	if (df <= 30)
		return t[df];
	if (df <= 40)
		return 2.021;
	if (df <= 60)
		return 2.000;
	if (df <= 120)
		return 1.980;
	return 1.960;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ctxsw [--loops N] [--repeats R] [--cpu C]\n"
		"  --loops N    round trips (two switches each) per repeat (default 10000)\n"
		"  --repeats R  repeats after one warm-up, 2..%d (default 10)\n"
		"  --cpu C      the CPU both threads are pinned to (default 1, or 0 on one CPU)\n",
		MAX_REPEATS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double ns[MAX_REPEATS], v, sum = 0, ss = 0, mean, sd, ci;
	long loops = 10000;
	int repeats = 10, cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	int o, i, bad = 0;
	char *end;

	while ((o = getopt_long(argc, argv, "l:r:c:h", opts, NULL)) != -1) {
		errno = 0;
		switch (o) {
		case 'l':
			loops = strtol(optarg, &end, 10);
			if (*end || errno || loops < 1) {
				fprintf(stderr, "ctxsw: --loops %s: give a count >= 1\n", optarg);
				return 2;
			}
			break;
		case 'r':
			repeats = strtol(optarg, &end, 10);
			if (*end || errno || repeats < 2 || repeats > MAX_REPEATS) {
				fprintf(stderr, "ctxsw: --repeats %s: give 2..%d\n", optarg, MAX_REPEATS);
				return 2;
			}
			break;
		case 'c':
			cpu = strtol(optarg, &end, 10);
			if (*end || errno || cpu < 0 || cpu >= CPU_SETSIZE) {
				fprintf(stderr, "ctxsw: --cpu %s: give a CPU number\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (pin(cpu)) {
		fprintf(stderr, "ctxsw: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return 2;
	}
	printf("SETUP cpu=%d loops=%ld repeats=%d (two threads of one process, pipe ping-pong, not registered for membarrier)\n",
	       cpu, loops, repeats);
	repeat(cpu, loops, &v);		/* warm-up */
	for (i = 0; i < repeats; i++) {
		ns[i] = repeat(cpu, loops, &v);
		if (ns[i] < 0) {
			bad++;
			continue;
		}
		printf("REPEAT %d ns_per_switch=%.1f switches_per_round_trip=%.3f\n", i + 1, ns[i], v);
		sum += ns[i];
	}
	if (bad) {
		printf("RESULT invalid: %d of %d repeats failed\n", bad, repeats);
		return 1;
	}
	mean = sum / repeats;
	for (i = 0; i < repeats; i++)
		ss += (ns[i] - mean) * (ns[i] - mean);
	sd = sqrt(ss / (repeats - 1));
	ci = t95(repeats - 1) * sd / sqrt(repeats);
	printf("RESULT n=%d mean=%.1f sd=%.1f ci95=%.1f ns_per_switch\n", repeats, mean, sd, ci);
	return 0;
}
