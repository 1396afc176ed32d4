// SPDX-License-Identifier: MIT
/* hwloc discovery, compact/smt/scatter/explicit placement, and binding. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "util.h"

/*
 * Bounds on a synthetic description before hwloc sees it: hwloc sizes its
 * bitmaps by the largest OS index and builds every object, so
 * "pu:2(indexes=0,4294967295)" or "pack:1000 core:1000 pu:100" would take
 * half a minute and gigabytes before the first line of output. Linux's
 * largest NR_CPUS is 8192; a description of more PUs than that plans a host
 * that cannot exist.
 */
#define SYNTHETIC_MAX_INDEX 8191
#define SYNTHETIC_MAX_PUS 8192

/*
 * A number as hwloc may read it: "0x8672" is hex to strtoul(.., 0) but
 * "00015428" is decimal to hwloc, so the larger reading counts; overflow
 * reads as ULLONG_MAX.
 */
static unsigned long long synthetic_number(const char *p, const char **end)
{
	unsigned long long v, v10;
	char *e, *e10;

	errno = 0;
	v = strtoull(p, &e, 0);
	if (errno)
		v = ULLONG_MAX;
	errno = 0;
	v10 = strtoull(p, &e10, 10);
	if (errno)
		v10 = ULLONG_MAX;
	*end = e10 > e ? e10 : e;
	return v10 > v ? v10 : v;
}

int topo_synthetic_check(const char *syn, unsigned long long max_pus,
			 unsigned long long max_index, const char **at)
{
	unsigned long long pus = 1;
	int depth = 0, in_indexes = 0;

	for (const char *p = syn; *p; p++) {
		unsigned long long v;
		const char *q;

		if (*p == '(' || *p == ')') {
			/* A ')' without its '(' is text to hwloc, not a level up. */
			depth += *p == '(' ? 1 : depth > 0 ? -1 : 0;
			in_indexes = 0;
			continue;
		}
		if (depth > 0 && !strncmp(p, "indexes=", 8)) {
			in_indexes = 1;
			p += 7;
			continue;
		}
		if (isspace((unsigned char)*p))
			in_indexes = 0;
		if (!isdigit((unsigned char)*p) || (p > syn && isalnum((unsigned char)p[-1])))
			continue;
		v = synthetic_number(p, &q);
		*at = p;
		if (depth > 0 && in_indexes && v > max_index)
			return 2;
		/*
		 * An arity: after a type's ':' at any depth (in case the
		 * parentheses are not what hwloc makes of them), and any other
		 * number outside parentheses but a value after '=' or '.':
		 * hwloc reads "()24949" as 24949 PUs.
		 */
		if ((p > syn && p[-1] == ':') ||
		    (depth == 0 && (p == syn || !strchr("=.", p[-1])))) {
			if (v > max_pus)
				return 1;
			pus *= v ? v : 1;
			if (pus > max_pus)
				return 1;
		}
		p = q - 1;
	}
	return 0;
}

static int load(hwloc_topology_t *topo, int cut, char *err, size_t len)
{
	const char *var = "MBBENCH_SYNTHETIC", *syn = getenv(var);
	const char *xml = getenv("HWLOC_XMLFILE");

	if (!syn) {
		var = "HWLOC_SYNTHETIC";
		syn = getenv(var);
	}
	if (syn) {
		const char *at = syn;
		int bad = topo_synthetic_check(syn, SYNTHETIC_MAX_PUS, SYNTHETIC_MAX_INDEX, &at);

		if (bad == 2) {
			int w = (int)strspn(at, "0123456789abcdefxABCDEFX");

			snprintf(err, len, "%s: OS index %.*s in indexes= is above %d, Linux's largest CPU number (give smaller indexes)",
				 var, w < 20 ? w : 20, at, SYNTHETIC_MAX_INDEX);
			return -2;
		}
		if (bad) {
			snprintf(err, len, "%s='%.100s' describes more than %d PUs, Linux's largest CPU count (give smaller arities)",
				 var, syn, SYNTHETIC_MAX_PUS);
			return -2;
		}
	}
	if (hwloc_topology_init(topo)) {
		snprintf(err, len, "hwloc_topology_init: %s", strerror(errno));
		return -1;
	}
	/* A topology named in the environment is input: a bad one is exit 2. */
	if (syn && hwloc_topology_set_synthetic(*topo, syn)) {
		snprintf(err, len, "%s='%.100s' is not a synthetic hwloc topology (e.g. \"pack:2 core:4 pu:2\"; or unset it)",
			 var, syn);
		hwloc_topology_destroy(*topo);
		return -2;
	}
	if (!syn && xml && *xml && hwloc_topology_set_xml(*topo, xml)) {
		snprintf(err, len, "HWLOC_XMLFILE=%.200s cannot be read as an hwloc XML topology (give one written by lstopo, or unset it)",
			 xml);
		hwloc_topology_destroy(*topo);
		return -2;
	}
	if (hwloc_topology_load(*topo)) {
		int bad_xml = !syn && xml && *xml;

		if (bad_xml)
			snprintf(err, len, "HWLOC_XMLFILE=%.200s cannot be read as an hwloc XML topology (give one written by lstopo, or unset it)",
				 xml);
		else
			snprintf(err, len, "hwloc_topology_load: %s", strerror(errno));
		hwloc_topology_destroy(*topo);
		return bad_xml ? -2 : -1;
	}
	/*
	 * The host's own topology is cut to this process's affinity mask
	 * (taskset, a cpuset): compact, scatter and the CPU count then use
	 * only CPUs the threads may run on, keeping their OS numbers.
	 */
	if (cut && !syn && !(xml && *xml)) {
		cpu_set_t mask;
		hwloc_bitmap_t allowed;
		hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(*topo);

		if (sched_getaffinity(0, sizeof(mask), &mask))
			return 0;
		allowed = topo_bitmap();
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &mask))
				hwloc_bitmap_set(allowed, (unsigned)c);
		hwloc_bitmap_and(allowed, allowed, all);
		if (!hwloc_bitmap_iszero(allowed) && !hwloc_bitmap_isequal(allowed, all) &&
		    hwloc_topology_restrict(*topo, allowed, 0)) {
			snprintf(err, len, "hwloc_topology_restrict to the affinity mask: %s",
				 strerror(errno));
			hwloc_bitmap_free(allowed);
			hwloc_topology_destroy(*topo);
			return -1;
		}
		hwloc_bitmap_free(allowed);
	}
	return 0;
}

int topo_load(hwloc_topology_t *topo, char *err, size_t len)
{
	return load(topo, 1, err, len);
}

int topo_load_whole(hwloc_topology_t *topo, char *err, size_t len)
{
	return load(topo, 0, err, len);
}

int topo_npus(hwloc_topology_t topo)
{
	return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
}

static void placement_alloc(struct placement *p, int n)
{
	p->n = n;
	p->pu_logical = xcalloc((size_t)n, sizeof(int));
	p->pu_os = xcalloc((size_t)n, sizeof(int));
	p->oversubscribed = 0;
}

/* Linear in the team: the sweep's points place every T up to the PU count. */
static void mark_oversubscribed(struct placement *p)
{
	hwloc_bitmap_t seen = topo_bitmap();

	for (int i = 0; i < p->n && !p->oversubscribed; i++) {
		if (hwloc_bitmap_isset(seen, (unsigned)p->pu_os[i]))
			p->oversubscribed = 1;
		hwloc_bitmap_set(seen, (unsigned)p->pu_os[i]);
	}
	hwloc_bitmap_free(seen);
}

const char *topo_where(hwloc_topology_t topo, int a, int b)
{
	hwloc_obj_t pa, pb, ka, kb;

	if (a == b)
		return "caller";
	pa = hwloc_get_pu_obj_by_os_index(topo, (unsigned)a);
	pb = hwloc_get_pu_obj_by_os_index(topo, (unsigned)b);
	if (!pa || !pb)
		return "local";
	ka = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pa);
	kb = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pb);
	if (ka && kb && ka != kb)
		return "remote";
	if (pa->nodeset && pb->nodeset && !hwloc_bitmap_isequal(pa->nodeset, pb->nodeset))
		return "remote";
	return "local";
}

int placement_distinct_cpus(const struct placement *p)
{
	int n = 0;

	for (int i = 0; i < p->n; i++) {
		int seen = 0;

		for (int j = 0; j < i && !seen; j++)
			seen = p->pu_os[j] == p->pu_os[i];
		n += !seen;
	}
	return n;
}

/*
 * compact: one thread per core first, cores in logical order, then the
 * second PU of each core, and so on: T = 2 puts the other thread on another
 * core, not on the caller's SMT sibling. smt: PUs in logical order, so the
 * siblings of a core fill before the next core.
 *
 * A PU's rank in its core (0 for the first, 1 for its first SMT sibling, ...;
 * 0 without cores) comes from one walk in logical order, where the PUs of a
 * core are consecutive: linear, since the sweep places every T up to the PU
 * count.
 */
static int place_compact(hwloc_topology_t topo, int n, struct placement *p,
			 int by_core)
{
	int npus = topo_npus(topo), k = 0, maxrank = 0;
	hwloc_obj_t *order = xcalloc((size_t)npus, sizeof(*order));
	hwloc_obj_t *pus = xcalloc((size_t)npus, sizeof(*pus)), last = NULL;
	int *rank = xcalloc((size_t)npus, sizeof(*rank));

	for (int i = 0; i < npus; i++) {
		hwloc_obj_t core;

		pus[i] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pus[i]);
		rank[i] = core && core == last ? rank[i - 1] + 1 : 0;
		last = core;
		if (rank[i] > maxrank)
			maxrank = rank[i];
	}
	for (int r = 0; r <= (by_core ? maxrank : 0); r++)
		for (int i = 0; i < npus; i++)
			if (!by_core || rank[i] == r)
				order[k++] = pus[i];
	free(pus);
	free(rank);
	for (int i = 0; i < n; i++) {
		hwloc_obj_t pu = order[i % npus];

		p->pu_logical[i] = (int)pu->logical_index;
		p->pu_os[i] = (int)pu->os_index;
	}
	free(order);
	return 0;
}

static int place_scatter(hwloc_topology_t topo, int n, struct placement *p,
			 char *err, size_t len)
{
	hwloc_obj_t root = hwloc_get_root_obj(topo);
	/* hwloc_distrib allocates each set itself. */
	hwloc_bitmap_t *sets = xcalloc((size_t)n, sizeof(*sets));
	int ret = 0;

	if (hwloc_distrib(topo, &root, 1, sets, (unsigned)n, INT_MAX, 0)) {
		snprintf(err, len, "hwloc_distrib failed");
		ret = -1;
	}
	for (int i = 0; i < n && !ret; i++) {
		hwloc_obj_t pu;

		hwloc_bitmap_singlify(sets[i]);
		pu = hwloc_get_pu_obj_by_os_index(topo,
						  (unsigned)hwloc_bitmap_first(sets[i]));
		if (!pu) {
			snprintf(err, len, "hwloc_distrib gave an empty set");
			ret = -1;
			break;
		}
		p->pu_logical[i] = (int)pu->logical_index;
		p->pu_os[i] = (int)pu->os_index;
	}
	for (int i = 0; i < n; i++)
		if (sets[i])
			hwloc_bitmap_free(sets[i]);
	free(sets);
	return ret;
}

static int place_list(hwloc_topology_t topo, const char *list, int n,
		      struct placement *p, char *err, size_t len)
{
	int *cpus, ncpus;

	if (parse_int_list(list, 0, 1 << 20, &cpus, &ncpus)) {
		snprintf(err, len,
			 "bad --placement '%s' (use compact, smt, scatter or a CPU list like 0,2-3)",
			 list);
		return -1;
	}
	for (int i = 0; i < ncpus; i++) {
		if (!hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpus[i])) {
			snprintf(err, len,
				 "CPU %d is not present or not allowed here (see `mbbench info` for the CPUs)",
				 cpus[i]);
			free(cpus);
			return -1;
		}
	}
	for (int i = 0; i < n; i++) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo,
							      (unsigned)cpus[i % ncpus]);

		p->pu_logical[i] = (int)pu->logical_index;
		p->pu_os[i] = (int)pu->os_index;
	}
	free(cpus);
	return 0;
}

int placement_compute(hwloc_topology_t topo, const char *policy, int n,
		      struct placement *out, char *err, size_t len)
{
	int ret;

	if (n < 1) {
		snprintf(err, len, "placement needs at least one thread");
		return -1;
	}
	placement_alloc(out, n);
	if (!strcmp(policy, "compact"))
		ret = place_compact(topo, n, out, 1);
	else if (!strcmp(policy, "smt"))
		ret = place_compact(topo, n, out, 0);
	else if (!strcmp(policy, "scatter"))
		ret = place_scatter(topo, n, out, err, len);
	else
		ret = place_list(topo, policy, n, out, err, len);
	if (ret) {
		placement_free(out);
		return ret;
	}
	mark_oversubscribed(out);
	return 0;
}

void placement_free(struct placement *p)
{
	free(p->pu_logical);
	free(p->pu_os);
	p->pu_logical = p->pu_os = NULL;
	p->n = 0;
}

char *placement_cpus_str(const struct placement *p, int first, int count)
{
	size_t cap = (size_t)count * 8 + 2, used = 0;
	char *s = xmalloc(cap);

	s[0] = '\0';
	for (int i = first; i < first + count && i < p->n; i++)
		used += (size_t)snprintf(s + used, cap - used, "%s%d",
					 i > first ? ";" : "", p->pu_os[i]);
	return s;
}

int placement_check_affinity(const struct placement *p, char *err, size_t len)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;	/* cannot tell; binding will report */
	for (int i = 0; i < p->n; i++) {
		if (p->pu_os[i] >= CPU_SETSIZE || !CPU_ISSET(p->pu_os[i], &set)) {
			snprintf(err, len,
				 "CPU %d is outside this process's affinity mask (place the threads inside it with --placement, or widen it with taskset)",
				 p->pu_os[i]);
			return -1;
		}
	}
	return 0;
}

hwloc_bitmap_t topo_bitmap(void)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();

	if (!b)
		fail("out of memory");
	return b;
}

/*
 * In a starting thread, with no allocation where the CPU fits a cpu_set_t:
 * hwloc's Linux binding allocates and writes its mask unchecked, which a
 * thread short of memory (prlimit --as) turned into a crash. Beyond
 * CPU_SETSIZE, and for a topology that is not this machine's (a synthetic
 * one binds nothing), hwloc; out of memory there is ENOMEM, not a NULL
 * bitmap.
 */
int topo_bind_self(hwloc_topology_t topo, int pu_os)
{
	hwloc_bitmap_t set;
	int ret;

	if (pu_os >= 0 && pu_os < CPU_SETSIZE && hwloc_topology_is_thissystem(topo)) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(pu_os, &one);
		return sched_setaffinity(0, sizeof(one), &one);	/* 0: this thread */
	}
	set = hwloc_bitmap_alloc();
	if (!set || hwloc_bitmap_only(set, (unsigned)pu_os) < 0) {
		hwloc_bitmap_free(set);
		errno = ENOMEM;
		return -1;
	}
	ret = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
	if (ret && errno == ENOSYS)
		ret = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(set);
	return ret;
}

void topo_summary(hwloc_topology_t topo, char *buf, size_t len)
{
	int pk = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	int co = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	int pu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

	snprintf(buf, len, "%d package%s, %d core%s, %d PU%s, %d NUMA node%s",
		 pk, pk == 1 ? "" : "s", co, co == 1 ? "" : "s", pu,
		 pu == 1 ? "" : "s", nn, nn == 1 ? "" : "s");
}
