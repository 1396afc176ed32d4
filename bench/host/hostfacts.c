// SPDX-License-Identifier: MIT
/*
 * Taking the host facts recorded with every result (kept by hostinfo.c).
 * The machine: kernel, boot command line, CPU model, topology, the
 * membarrier QUERY mask decoded, virtualization, frequency governor and
 * privileges. Virtualization matters most here: in a guest an IPI is a VM
 * exit, which makes every expedited barrier several times dearer than on
 * bare metal.
 *
 * And the host settings that change what a barrier costs and whom it
 * interrupts, each with where it was read, or "unknown":
 *  - rcu_expedited turns MEMBARRIER_CMD_GLOBAL (a synchronize_rcu()) into an
 *    expedited grace period: microseconds and IPIs instead of milliseconds
 *    and none; rcu_normal does the opposite to expedited grace periods;
 *  - nohz_full makes the kernel refuse MEMBARRIER_CMD_GLOBAL; isolated CPUs
 *    and the preemption model change who runs where and when;
 *  - HZ and the kernel options (where the config is readable);
 *  - CPU vulnerability mitigations (every syscall and IPI pays for them) and
 *    SMT; cpuidle (an idle CPU may be woken, or polled); RT throttling
 *    (sched_rt_runtime_us shows as a ~50 ms gap in a busy-poll victim);
 *  - the hypervisor, its paravirtual interface and how remote TLBs are
 *    flushed (guestfacts.c);
 *  - whether the kernel serializes expedited IPIs (membarrier_ipi_mutex);
 *  - the suite's own version, git commit, compiler and flags.
 * MBBENCH_SYSROOT, when set, is prepended to /sys and /proc paths so tests
 * can present a made-up host.
 */
#include "config.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hostinfo.h"
#include "mech.h"
#include "topo.h"
#include "util.h"

#ifndef MBB_GIT_COMMIT
#define MBB_GIT_COMMIT "unknown"
#endif
#ifndef MBB_CFLAGS
#define MBB_CFLAGS "unknown"
#endif

const char *host_path(const char *path, char *buf, size_t len)
{
	const char *root = getenv("MBBENCH_SYSROOT");

	snprintf(buf, len, "%s%s", root && *root ? root : "", path);
	return buf;
}

/* First line of a /sys or /proc file, or -1. */
static int sysread(const char *path, char *buf, size_t len)
{
	char p[512];
	FILE *f = fopen(host_path(path, p, sizeof(p)), "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		buf[0] = '\0';
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A one-line file as a fact: its content, or "unknown" and why. */
static void file_fact(struct hostinfo *h, const char *key, const char *path, const char *empty)
{
	char buf[512];

	if (sysread(path, buf, sizeof(buf)))
		hostinfo_add(h, key, "unknown", path);
	else
		hostinfo_add(h, key, buf[0] ? buf : empty, path);
}

/* The kernel config: /proc/config.gz (through gzip) or /boot/config-RELEASE. */
static FILE *open_config(char *src, size_t len)
{
	struct utsname u;
	char p[512], cmd[600];
	FILE *f;

	if (uname(&u))
		return NULL;
	snprintf(src, len, "/boot/config-%s", u.release);
	f = fopen(host_path(src, p, sizeof(p)), "r");
	if (f)
		return f;
	host_path("/proc/config.gz", p, sizeof(p));
	f = fopen(p, "r");
	if (!f)
		return NULL;
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", p);
	snprintf(src, len, "/proc/config.gz");
	return popen(cmd, "r");
}

static const char *const config_keys[] = {
	"CONFIG_HZ", "CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT",
	"CONFIG_PREEMPT_RT", "CONFIG_PREEMPT_DYNAMIC", "CONFIG_NO_HZ_FULL", "CONFIG_NO_HZ_IDLE",
	"CONFIG_MEMBARRIER", "CONFIG_RSEQ", "CONFIG_PREEMPT_RCU", "CONFIG_RCU_EXPERT",
	"CONFIG_RCU_LAZY", "CONFIG_PARAVIRT", "CONFIG_KVM_GUEST", "CONFIG_HYPERV",
	"CONFIG_CPU_MITIGATIONS",
};

static void kernel_config(struct hostinfo *h, char *preempt, size_t plen)
{
	char src[300], line[512], opts[1024] = "", hz[32] = "unknown";
	FILE *f = open_config(src, sizeof(src));
	int is_pipe = !strcmp(src, "/proc/config.gz");

	if (!f) {
		hostinfo_add(h, "kernel_config", "unknown", "no /boot/config-RELEASE or /proc/config.gz");
		hostinfo_add(h, "hz", "unknown", "kernel config not readable");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (size_t i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++) {
			size_t n = strlen(config_keys[i]);

			if (strncmp(line, config_keys[i], n) || line[n] != '=')
				continue;
			snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s",
				 opts[0] ? " " : "", line + 7);
			if (!strcmp(config_keys[i], "CONFIG_HZ"))
				snprintf(hz, sizeof(hz), "%s", line + n + 1);
			if (!preempt[0] && !strncmp(config_keys[i], "CONFIG_PREEMPT", 14) &&
			    strcmp(config_keys[i], "CONFIG_PREEMPT_RCU") &&
			    strcmp(config_keys[i], "CONFIG_PREEMPT_DYNAMIC") && !strcmp(line + n, "=y"))
				snprintf(preempt, plen, "%s", config_keys[i] + 7);
		}
	}
	if (is_pipe)
		pclose(f);
	else
		fclose(f);
	hostinfo_add(h, "kernel_config", opts[0] ? opts : "none of the options of interest", src);
	hostinfo_add(h, "hz", hz, src);
}

/* The preemption model: debugfs knows the dynamic one; else uname and config. */
static void preemption(struct hostinfo *h, const char *from_config)
{
	char buf[256];
	struct utsname u;

	if (!sysread("/sys/kernel/debug/sched/preempt", buf, sizeof(buf)) && buf[0]) {
		hostinfo_add(h, "preemption", buf, "/sys/kernel/debug/sched/preempt (current in parentheses)");
		return;
	}
	if (from_config[0]) {
		hostinfo_add(h, "preemption", from_config, "kernel config (boot-time preempt= may change a dynamic one)");
		return;
	}
	if (!uname(&u) && strstr(u.version, "PREEMPT")) {
		hostinfo_add(h, "preemption", strstr(u.version, "PREEMPT_RT") ? "rt" :
			     strstr(u.version, "PREEMPT_DYNAMIC") ? "dynamic" : "preempt",
			     "uname -v");
		return;
	}
	hostinfo_add(h, "preemption", "unknown", "no debugfs, config or PREEMPT in uname -v");
}

static void vulnerabilities(struct hostinfo *h)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char p[512], out[2048] = "", line[256];
	struct dirent **names;
	int n = scandir(host_path(dir, p, sizeof(p)), &names, NULL, alphasort);

	if (n < 0) {
		hostinfo_add(h, "vulnerabilities", "unknown", dir);
		return;
	}
	for (int i = 0; i < n; i++) {
		char file[700];

		if (names[i]->d_name[0] != '.') {
			snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
			if (!sysread(file, line, sizeof(line)))
				snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s: %s",
					 out[0] ? "; " : "", names[i]->d_name, line);
		}
		free(names[i]);
	}
	free(names);
	hostinfo_add(h, "vulnerabilities", out[0] ? out : "none listed", dir);
}

static void cpuidle(struct hostinfo *h)
{
	char drv[128], states[512] = "", name[64], path[128], out[700];

	if (sysread("/sys/devices/system/cpu/cpuidle/current_driver", drv, sizeof(drv)) ||
	    !strcmp(drv, "none")) {
		hostinfo_add(h, "cpuidle", "none (no cpuidle driver)", "/sys/devices/system/cpu/cpuidle");
		return;
	}
	for (int i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cpuidle/state%d/name", i);
		if (sysread(path, name, sizeof(name)))
			break;
		snprintf(states + strlen(states), sizeof(states) - strlen(states), "%s%s",
			 states[0] ? "," : "", name);
	}
	snprintf(out, sizeof(out), "%s (states %s)", drv, states[0] ? states : "none");
	hostinfo_add(h, "cpuidle", out, "/sys/devices/system/cpu/cpuidle, cpu0/cpuidle");
}

/*
 * The CPU as its family, model and stepping (x86) or implementer, part,
 * variant and revision (arm64), from /proc/cpuinfo's first CPU: what makes
 * two hosts' barrier costs comparable, where a hypervisor's model name
 * ("AMD EPYC", "Intel(R) Xeon(R) Processor") hides the generation.
 */
static void cpu_id(struct hostinfo *h)
{
	static const char *const keys[][2] = {
		{ "vendor_id", "" }, { "cpu family", "family" }, { "model", "model" }, { "stepping", "stepping" },
		{ "CPU implementer", "implementer" }, { "CPU part", "part" }, { "CPU variant", "variant" },
		{ "CPU revision", "revision" },
	};
	char p[512], line[512], out[256] = "";
	FILE *f = fopen(host_path("/proc/cpuinfo", p, sizeof(p)), "r");
	int seen[sizeof(keys) / sizeof(keys[0])] = { 0 };

	if (!f) {
		hostinfo_add(h, "cpu_id", "unknown", "/proc/cpuinfo unreadable");
		return;
	}
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {	/* the first CPU's block */
		char *colon = strchr(line, ':'), *v;
		size_t klen;

		if (!colon)
			continue;
		klen = (size_t)(colon - line);
		while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!seen[i] && strlen(keys[i][0]) == klen && !strncmp(line, keys[i][0], klen)) {
				seen[i] = 1;
				snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s%s%s",
					 out[0] ? " " : "", keys[i][1], keys[i][1][0] ? " " : "", v);
			}
	}
	fclose(f);
	hostinfo_add(h, "cpu_id", out[0] ? out : "unknown", "/proc/cpuinfo (the first CPU)");
}

/* membarrier_ipi_mutex (mainline 6.8, commit 944d5fe50f3f; stable kernels
 * backported it in 2024) serializes every expedited IPI in the system. */
static void ipi_serialization(struct hostinfo *h)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2) {
		hostinfo_add(h, "membarrier_ipi_serialized", "unknown", "kernel release unreadable");
		return;
	}
	if (major >= 7)
		hostinfo_add(h, "membarrier_ipi_serialized", "yes",
			     "kernel release >= 7.0: membarrier_ipi_mutex (6.8, commit 944d5fe50f3f) for all but the targeted commands (MEMBARRIER_CMD_FLAG_CPU), which take their target CPU's mutex");
	else if (major == 6 && minor >= 8)
		hostinfo_add(h, "membarrier_ipi_serialized", "yes",
			     "kernel release >= 6.8 (membarrier_ipi_mutex, commit 944d5fe50f3f)");
	else
		hostinfo_add(h, "membarrier_ipi_serialized", "unknown",
			     "kernel release < 6.8: yes if the 2024 stable backport is in (Debian's 6.1.192 has it)");
}

static void hostfacts_collect(struct hostinfo *h)
{
	char buf[256], preempt[64] = "";

	file_fact(h, "rcu_expedited", "/sys/kernel/rcu_expedited", "?");
	file_fact(h, "rcu_normal", "/sys/kernel/rcu_normal", "?");
	if (sysread("/sys/devices/system/cpu/nohz_full", buf, sizeof(buf)))
		hostinfo_add(h, "nohz_full", "none", "no /sys/devices/system/cpu/nohz_full: kernel without NO_HZ_FULL");
	else
		hostinfo_add(h, "nohz_full", buf[0] ? buf : "none", "/sys/devices/system/cpu/nohz_full");
	file_fact(h, "isolated", "/sys/devices/system/cpu/isolated", "none");
	kernel_config(h, preempt, sizeof(preempt));
	preemption(h, preempt);
	vulnerabilities(h);
	if (sysread("/sys/devices/system/cpu/smt/control", buf, sizeof(buf))) {
		hostinfo_add(h, "smt", "unknown", "/sys/devices/system/cpu/smt/control");
	} else {
		char active[16] = "?";

		sysread("/sys/devices/system/cpu/smt/active", active, sizeof(active));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (active %s)", active);
		hostinfo_add(h, "smt", buf, "/sys/devices/system/cpu/smt/{control,active}");
	}
	cpuidle(h);
	file_fact(h, "sched_rt_runtime_us", "/proc/sys/kernel/sched_rt_runtime_us", "?");
	cpu_id(h);
	guestfacts_collect(h);
	ipi_serialization(h);
	hostinfo_add(h, "suite_version", PACKAGE_VERSION, "configure.ac");
	hostinfo_add(h, "suite_commit", MBB_GIT_COMMIT, "git describe when ./configure ran (a later commit or edit built on it is not seen)");
#ifdef __clang__
	snprintf(buf, sizeof(buf), "clang %s", __clang_version__);
#else
	snprintf(buf, sizeof(buf), "gcc %s", __VERSION__);
#endif
	hostinfo_add(h, "compiler", buf, "__VERSION__");
	hostinfo_add(h, "cflags", MBB_CFLAGS, "configure");
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
	host_virtualization(buf, sizeof(buf));
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
