// SPDX-License-Identifier: MIT
/*
 * The timing, pinning and /proc/stat helpers doctor's probes share.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "doctor.h"
#include "util.h"

void doctor_say(char *buf, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= DOCTOR_EVIDENCE - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, DOCTOR_EVIDENCE - l, fmt, ap);
	va_end(ap);
}

double doctor_now_s(void)
{
	return (double)now_ns() / 1e9;
}

void doctor_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int doctor_pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

int doctor_idle_ticks(uint64_t *out, int ncpus)
{
	return doctor_stat_ticks(out, NULL, ncpus);
}

int doctor_stat_ticks(uint64_t *idle, uint64_t *total, int ncpus)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	memset(idle, 0, sizeof(*idle) * (size_t)ncpus);
	if (total)
		memset(total, 0, sizeof(*total) * (size_t)ncpus);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[7] = { 0 };
		int cpu;

		/* user nice system idle iowait irq softirq */
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6]) >= 6 && cpu >= 0 && cpu < ncpus) {
			idle[cpu] = v[3] + v[4];
			if (total)
				total[cpu] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6];
			n++;
		}
	}
	fclose(f);
	return n ? 0 : -1;
}

int doctor_pick(int *a, int *b, int ncpus)
{
	cpu_set_t set;
	uint64_t *i0 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	uint64_t *i1 = xcalloc((size_t)ncpus, sizeof(uint64_t));
	int n = 0, best = -1, second = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		goto out;
	doctor_idle_ticks(i0, ncpus);
	doctor_sleep_ms(50);
	doctor_idle_ticks(i1, ncpus);
	for (int c = 0; c < ncpus && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		n++;
		if (best < 0 || i1[c] - i0[c] > i1[best] - i0[best]) {
			second = best;
			best = c;
		} else if (second < 0 || i1[c] - i0[c] > i1[second] - i0[second]) {
			second = c;
		}
	}
	*b = best;
	*a = second;
out:
	free(i0);
	free(i1);
	return n >= 2 ? 0 : -1;
}
