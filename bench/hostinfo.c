// SPDX-License-Identifier: MIT
/*
 * Host facts: kernel, boot command line, CPU model, topology, the membarrier
 * QUERY mask decoded, virtualization, frequency governor and privileges.
 * Virtualization matters most here: in a guest an IPI is a VM exit, which
 * makes every expedited barrier several times dearer than on bare metal.
 */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "hostinfo.h"
#include "mech.h"
#include "topo.h"
#include "util.h"

void hostinfo_add(struct hostinfo *h, const char *key, const char *val, const char *src)
{
	if (h->n >= HOSTINFO_MAX)
		return;
	h->key[h->n] = key;
	h->val[h->n] = xstrdup(val ? val : "");
	h->src[h->n] = src ? xstrdup(src) : NULL;
	h->n++;
}

static void add(struct hostinfo *h, const char *key, const char *val)
{
	hostinfo_add(h, key, val, NULL);
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			char *p = strchr(line, ':');

			if (p) {
				p += 1 + strspn(p + 1, " \t");
				p[strcspn(p, "\n")] = '\0';
				snprintf(buf, len, "%s", p);
			}
			break;
		}
	}
	fclose(f);
}

static void virtualization(char *buf, size_t len)
{
	char vendor[13] = "";

#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	__cpuid(1, a, b, c, d);
	if (c & (1u << 31)) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &c, 4);
		memcpy(vendor + 8, &d, 4);
		vendor[12] = '\0';
		snprintf(buf, len, "guest (hypervisor %s)", vendor[0] ? vendor : "unknown");
		return;
	}
	snprintf(buf, len, "none detected (bare metal)");
#else
	if (!read_line("/sys/hypervisor/type", vendor, sizeof(vendor)))
		snprintf(buf, len, "guest (%s)", vendor);
	else
		snprintf(buf, len, "unknown");
#endif
}

/* "0-1 (every online CPU)" or "1 (1 of 2 online: taskset or a cpuset)". */
static void cpus_allowed(char *buf, size_t len)
{
	cpu_set_t mask;
	size_t o = 0;
	int first = 1, n = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (sched_getaffinity(0, sizeof(mask), &mask)) {
		snprintf(buf, len, "unknown");
		return;
	}
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;

		if (!CPU_ISSET(c, &mask))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &mask))
			e++;
		n += e - c + 1;
		if (o < len)
			o += (size_t)(e > c ? snprintf(buf + o, len - o, "%s%d-%d", first ? "" : ",", c, e)
				      : snprintf(buf + o, len - o, "%s%d", first ? "" : ",", c));
		first = 0;
		c = e;
	}
	if (o < len) {
		if (n >= online)
			snprintf(buf + o, len - o, " (every online CPU)");
		else
			snprintf(buf + o, len - o, " (%d of %ld online: taskset or a cpuset; the topology is cut to these)",
				 n, online);
	}
}

static void membarrier_mask(char *buf, size_t len)
{
	long mask = membarrier_query();
	size_t used;

	if (mask < 0) {
		snprintf(buf, len, "unavailable (%s)", strerror((int)-mask));
		return;
	}
	used = (size_t)snprintf(buf, len, "0x%lx", mask);
	for (int bit = 0; bit < 31 && used < len; bit++) {
		const char *name;

		if (!(mask & (1L << bit)))
			continue;
		name = membarrier_cmd_name(1 << bit);
		used += (size_t)snprintf(buf + used, len - used, " %s",
					 name ? name : "?");
	}
}

static void privileges(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256], paranoid[32] = "?";
	unsigned long long capeff = 0;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "CapEff:", 7))
				capeff = strtoull(line + 7, NULL, 16);
		fclose(f);
	}
	read_line("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	snprintf(buf, len, "euid %d, CAP_SYS_NICE %s, CAP_PERFMON/SYS_ADMIN %s, perf_event_paranoid %s",
		 (int)geteuid(), capeff & (1ull << 23) ? "yes" : "no",
		 capeff & ((1ull << 38) | (1ull << 21)) ? "yes" : "no", paranoid);
}

void hostinfo_collect(struct hostinfo *h, hwloc_topology_t topo)
{
	struct utsname u;
	char buf[1024], host[256] = "unknown";

	memset(h, 0, sizeof(*h));
	gethostname(host, sizeof(host) - 1);
	add(h, "hostname", host);
	if (!uname(&u)) {
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release,
			 u.version, u.machine);
		add(h, "kernel", buf);
		add(h, "kernel_release", u.release);
		add(h, "machine", u.machine);
	}
	if (read_line("/proc/cmdline", buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "unreadable");
	add(h, "cmdline", buf);
	cpu_model(buf, sizeof(buf));
	add(h, "cpu_model", buf);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	add(h, "cpus_online", buf);
	cpus_allowed(buf, sizeof(buf));
	add(h, "cpus_allowed", buf);
	topo_summary(topo, buf, sizeof(buf));
	add(h, "topology", buf);
	membarrier_mask(buf, sizeof(buf));
	add(h, "membarrier_query", buf);
	virtualization(buf, sizeof(buf));
	add(h, "virtualization", buf);
	if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", buf,
		      sizeof(buf)))
		snprintf(buf, sizeof(buf), "none (no cpufreq)");
	add(h, "governor", buf);
	privileges(buf, sizeof(buf));
	add(h, "privileges", buf);
	add(h, "clock", "CLOCK_MONOTONIC");
	hostfacts_collect(h);
}

const char *hostinfo_get(const struct hostinfo *h, const char *key)
{
	for (int i = 0; i < h->n; i++)
		if (!strcmp(h->key[i], key))
			return h->val[i];
	return NULL;
}

void hostinfo_human(const struct hostinfo *h, FILE *f, const char *prefix)
{
	for (int i = 0; i < h->n; i++)
		fprintf(f, "%s%-22s %s%s%s%s\n", prefix, h->key[i], h->val[i],
			h->src[i] ? "  [" : "", h->src[i] ? h->src[i] : "", h->src[i] ? "]" : "");
}

void hostinfo_json(const struct hostinfo *h, struct json *j, const char *key)
{
	char skey[64];

	json_begin_object(j, key);
	for (int i = 0; i < h->n; i++)
		json_str(j, h->key[i], h->val[i]);
	json_end_object(j);
	/* Beside it: where each fact that is not self-evident came from. */
	snprintf(skey, sizeof(skey), "%s_sources", key);
	json_begin_object(j, skey);
	for (int i = 0; i < h->n; i++)
		if (h->src[i])
			json_str(j, h->key[i], h->src[i]);
	json_end_object(j);
}

void hostinfo_free(struct hostinfo *h)
{
	for (int i = 0; i < h->n; i++) {
		free(h->val[i]);
		free(h->src[i]);
	}
	h->n = 0;
}
