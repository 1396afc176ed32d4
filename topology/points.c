// SPDX-License-Identifier: MIT
/*
 * Thread counts from the topology: a curve of barrier cost against T is
 * shaped by where the T-th thread lands (another core, the caller's SMT
 * sibling, another L3, another package or NUMA node), so those counts are
 * the points, with a power-of-two ladder between them instead of every T:
 * 13 points on a 256-PU host rather than 257.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "points.h"
#include "util.h"

/* The object of this type whose cpuset holds OS CPU pu_os, or NULL. */
static hwloc_obj_t domain_of(hwloc_topology_t topo, hwloc_obj_type_t type, int pu_os)
{
	int n = hwloc_get_nbobjs_by_type(topo, type);

	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);

		if (o->cpuset && hwloc_bitmap_isset(o->cpuset, (unsigned)pu_os))
			return o;
	}
	return NULL;
}

static void add(struct tpoint **v, int *n, int t, unsigned why)
{
	for (int i = 0; i < *n; i++)
		if ((*v)[i].t == t) {
			(*v)[i].why |= why;
			return;
		}
	*v = xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
	(*v)[*n].t = t;
	(*v)[*n].why = why;
	(*n)++;
}

static int by_t(const void *a, const void *b)
{
	return ((const struct tpoint *)a)->t - ((const struct tpoint *)b)->t;
}

/* Does some thread of the team (besides the caller) sit outside / inside d? */
static int any_outside(hwloc_obj_t d, const struct placement *pl)
{
	for (int i = 1; i < pl->n; i++)
		if (!hwloc_bitmap_isset(d->cpuset, (unsigned)pl->pu_os[i]))
			return 1;
	return 0;
}

static int sibling_inside(hwloc_obj_t core, const struct placement *pl)
{
	for (int i = 1; i < pl->n; i++)
		if (pl->pu_os[i] != pl->pu_os[0] &&
		    hwloc_bitmap_isset(core->cpuset, (unsigned)pl->pu_os[i]))
			return 1;
	return 0;
}

/*
 * Each T is placed on its own: hwloc_distrib (scatter) does not give T + 1
 * threads the placement of T plus one, so the first T to reach a boundary
 * is found by placing every T, not by reading one placement of N threads.
 */
int topo_thread_points(hwloc_topology_t topo, const char *policy, int max_t,
		       int oversub, struct tpoint **out, char *err, size_t len)
{
	static const struct {
		hwloc_obj_type_t type;
		unsigned full, other;
	} levels[] = {
		{ HWLOC_OBJ_CORE, 0, TP_OTHER_CORE },
		{ HWLOC_OBJ_L3CACHE, TP_L3_FULL, TP_OTHER_L3 },
		{ HWLOC_OBJ_NUMANODE, TP_NUMA_FULL, TP_OTHER_NUMA },
		{ HWLOC_OBJ_PACKAGE, TP_PACKAGE_FULL, TP_OTHER_PACKAGE },
	};
	enum { NLEVELS = sizeof(levels) / sizeof(levels[0]) };
	int npus = topo_npus(topo), n = 0, left[NLEVELS] = { 0 }, sib = 0;
	struct tpoint *v = NULL;

	for (int t = 1; t <= npus; t++) {
		struct placement pl;
		int open = !sib;

		for (int l = 0; l < NLEVELS; l++)
			open |= !left[l] && hwloc_get_nbobjs_by_type(topo, levels[l].type) >= 2;
		/* Every boundary is found: larger teams cannot add a point. */
		if (!open)
			break;

		if (placement_compute(topo, policy, t, &pl, err, len)) {
			free(v);
			return -1;
		}
		for (int l = 0; l < NLEVELS; l++) {
			hwloc_obj_t d = domain_of(topo, levels[l].type, pl.pu_os[0]);

			if (left[l] || !d || hwloc_get_nbobjs_by_type(topo, levels[l].type) < 2)
				continue;
			if (any_outside(d, &pl)) {
				left[l] = t;
				if (t > 2 && levels[l].full)
					add(&v, &n, t - 1, levels[l].full);
				add(&v, &n, t, levels[l].other);
			}
		}
		if (!sib) {
			hwloc_obj_t core = domain_of(topo, HWLOC_OBJ_CORE, pl.pu_os[0]);

			if (core && sibling_inside(core, &pl)) {
				sib = t;
				add(&v, &n, t, TP_SMT);
			}
		}
		placement_free(&pl);
	}
	add(&v, &n, 1, TP_ALONE);
	if (npus > 1 && !hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE))
		add(&v, &n, 2, TP_OTHER_CORE);
	add(&v, &n, npus, TP_ALL);
	for (int t = 1; t <= max_t; t *= 2)
		add(&v, &n, t, TP_LADDER);
	if (oversub)
		add(&v, &n, npus + 1, TP_OVERSUB);
	qsort(v, (size_t)n, sizeof(*v), by_t);
	*out = v;
	return n;
}

int topo_caller_points(hwloc_topology_t topo, const char *policy,
		       struct tpoint **out, char *err, size_t len)
{
	int npus = topo_npus(topo);
	int n = topo_thread_points(topo, policy, 2 * npus, 1, out, err, len);

	if (n < 0)
		return n;
	add(out, &n, 2 * npus, TP_TWICE);
	qsort(*out, (size_t)n, sizeof(**out), by_t);
	return n;
}

void topo_point_why(unsigned why, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ TP_ALONE, "caller alone" },
		{ TP_OTHER_CORE, "another core" },
		{ TP_SMT, "caller's SMT sibling" },
		{ TP_L3_FULL, "caller's L3 filled" },
		{ TP_OTHER_L3, "another L3" },
		{ TP_NUMA_FULL, "caller's NUMA node filled" },
		{ TP_OTHER_NUMA, "another NUMA node" },
		{ TP_PACKAGE_FULL, "caller's package filled" },
		{ TP_OTHER_PACKAGE, "another package" },
		{ TP_ALL, "all PUs" },
		{ TP_OVERSUB, "oversubscribed" },
		{ TP_TWICE, "twice the PUs" },
		{ TP_LADDER, "power of two" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((why & names[i].bit) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "; " : "", names[i].name);
}

char *topo_points_str(const struct tpoint *p, int n)
{
	size_t cap = (size_t)n * 12 + 2, used = 0;
	char *s = xmalloc(cap);

	s[0] = '\0';
	for (int i = 0; i < n; i++)
		used += (size_t)snprintf(s + used, cap - used, "%s%d", i ? "," : "", p[i].t);
	return s;
}

void placement_relations(hwloc_topology_t topo, const struct placement *p,
			 int first, int count, struct relations *r)
{
	int c = p->pu_os[0];
	hwloc_obj_t core = domain_of(topo, HWLOC_OBJ_CORE, c);
	hwloc_obj_t l3 = domain_of(topo, HWLOC_OBJ_L3CACHE, c);
	hwloc_obj_t pk = domain_of(topo, HWLOC_OBJ_PACKAGE, c);
	hwloc_obj_t nn = domain_of(topo, HWLOC_OBJ_NUMANODE, c);

	r->same_core = core ? 0 : -1;
	r->same_l3 = l3 ? 0 : -1;
	r->same_package = pk ? 0 : -1;
	r->same_numa = nn ? 0 : -1;
	r->remote = 0;
	for (int i = first; i < first + count && i < p->n; i++) {
		unsigned cpu = (unsigned)p->pu_os[i];
		int in_pk = pk && hwloc_bitmap_isset(pk->cpuset, cpu);
		int in_nn = nn && hwloc_bitmap_isset(nn->cpuset, cpu);
		/* A level the topology lacks does not make a thread remote. */
		int away = (pk && !in_pk) || (nn && !in_nn);

		if (i == 0)
			continue;
		if (core && (hwloc_bitmap_isset(core->cpuset, cpu)))
			r->same_core++;
		if (l3 && hwloc_bitmap_isset(l3->cpuset, cpu))
			r->same_l3++;
		if (in_pk)
			r->same_package++;
		if (in_nn)
			r->same_numa++;
		if (away)
			r->remote++;
	}
}

char *placement_logical_str(const struct placement *p, int first, int count)
{
	size_t cap = (size_t)count * 8 + 2, used = 0;
	char *s = xmalloc(cap);

	s[0] = '\0';
	for (int i = first; i < first + count && i < p->n; i++)
		used += (size_t)snprintf(s + used, cap - used, "%s%d",
					 i > first ? ";" : "", p->pu_logical[i]);
	return s;
}

static const char *const dist_names[DL_COUNT] = { "smt", "core", "l3", "numa", "package" };

const char *dist_level_name(int level)
{
	return level >= 0 && level < DL_COUNT ? dist_names[level] : "?";
}

int dist_level_parse(const char *name)
{
	for (int l = 0; l < DL_COUNT; l++)
		if (!strcmp(name, dist_names[l]))
			return l;
	return -1;
}

/* The domains of each PU (by logical index), looked up once. */
struct pu_domains {
	int npus, shared_l3;
	hwloc_obj_t *pu, *core, *l3, *numa, *pack;
};

static void domains_load(hwloc_topology_t topo, struct pu_domains *d)
{
	int nl3 = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_L3CACHE);
	int have_cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0;

	d->npus = topo_npus(topo);
	d->pu = xcalloc((size_t)d->npus, sizeof(hwloc_obj_t));
	d->core = xcalloc((size_t)d->npus, sizeof(hwloc_obj_t));
	d->l3 = xcalloc((size_t)d->npus, sizeof(hwloc_obj_t));
	d->numa = xcalloc((size_t)d->npus, sizeof(hwloc_obj_t));
	d->pack = xcalloc((size_t)d->npus, sizeof(hwloc_obj_t));
	d->shared_l3 = 0;
	for (int i = 0; i < nl3; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, (unsigned)i);
		int inside = have_cores ?
			hwloc_get_nbobjs_inside_cpuset_by_type(topo, o->cpuset, HWLOC_OBJ_CORE) :
			hwloc_get_nbobjs_inside_cpuset_by_type(topo, o->cpuset, HWLOC_OBJ_PU);

		if (inside > 1)
			d->shared_l3 = 1;
	}
	for (int i = 0; i < d->npus; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		int os = (int)pu->os_index;

		d->pu[i] = pu;
		/* Without Core objects each PU is its own core. */
		d->core[i] = have_cores ? domain_of(topo, HWLOC_OBJ_CORE, os) : pu;
		d->l3[i] = d->shared_l3 ? domain_of(topo, HWLOC_OBJ_L3CACHE, os) : NULL;
		d->numa[i] = domain_of(topo, HWLOC_OBJ_NUMANODE, os);
		d->pack[i] = domain_of(topo, HWLOC_OBJ_PACKAGE, os);
	}
}

static void domains_free(struct pu_domains *d)
{
	free(d->pu);
	free(d->core);
	free(d->l3);
	free(d->numa);
	free(d->pack);
}

/* The level of PUs a and b (logical indexes, a != b): the outermost domain they do not share. */
static int pair_level(const struct pu_domains *d, int a, int b)
{
	if (d->pack[a] != d->pack[b])
		return DL_PACKAGE;
	if (d->numa[a] != d->numa[b])
		return DL_NUMA;
	if (d->l3[a] != d->l3[b])
		return DL_L3;
	if (d->core[a] != d->core[b])
		return DL_CORE;
	return DL_SMT;
}

/* The first pair at each level; found[l] 0 when there is none. */
static void first_pairs(hwloc_topology_t topo, int found[DL_COUNT], int caller[DL_COUNT],
			int spinner[DL_COUNT])
{
	struct pu_domains d;
	int left = DL_COUNT;

	domains_load(topo, &d);
	for (int l = 0; l < DL_COUNT; l++)
		found[l] = 0;
	for (int c = 0; c < d.npus && left; c++)
		for (int s = 0; s < d.npus && left; s++) {
			int l;

			if (s == c)
				continue;
			l = pair_level(&d, c, s);
			if (found[l])
				continue;
			found[l] = 1;
			caller[l] = c;
			spinner[l] = s;
			left--;
		}
	domains_free(&d);
}

/* Why the whole host has no pair at level l. */
static void level_missing(hwloc_topology_t whole, int l, char *buf, size_t len)
{
	int npack = hwloc_get_nbobjs_by_type(whole, HWLOC_OBJ_PACKAGE);
	int nnuma = hwloc_get_nbobjs_by_type(whole, HWLOC_OBJ_NUMANODE);
	int ncores = hwloc_get_nbobjs_by_type(whole, HWLOC_OBJ_CORE);
	int nl3 = hwloc_get_nbobjs_by_type(whole, HWLOC_OBJ_L3CACHE);
	struct pu_domains d;

	domains_load(whole, &d);
	switch (l) {
	case DL_SMT:
		snprintf(buf, len, "no SMT on this host: each core has one PU");
		break;
	case DL_CORE:
		if (ncores <= 1 && d.npus <= 1)
			snprintf(buf, len, "one core on this host");
		else
			snprintf(buf, len, "no two cores share %s on this host",
				 d.shared_l3 ? "an L3" : "a NUMA node");
		break;
	case DL_L3:
		if (!nl3)
			snprintf(buf, len, "no L3 cache in this host's topology");
		else if (!d.shared_l3)
			snprintf(buf, len, "each L3 holds one core: no L3 is shared by cores");
		else
			snprintf(buf, len, "one L3 per NUMA node and package on this host");
		break;
	case DL_NUMA:
		snprintf(buf, len, nnuma <= 1 ? "one NUMA node" : "one NUMA node per package");
		break;
	default:
		snprintf(buf, len, npack <= 1 ? "one package" : "no two packages hold PUs");
		break;
	}
	domains_free(&d);
}

void distance_pairs(hwloc_topology_t topo, hwloc_topology_t whole,
		    struct dist_pair out[DL_COUNT])
{
	int found[DL_COUNT], caller[DL_COUNT], spinner[DL_COUNT];
	int wfound[DL_COUNT], wc[DL_COUNT], ws[DL_COUNT];

	first_pairs(topo, found, caller, spinner);
	first_pairs(whole ? whole : topo, wfound, wc, ws);
	for (int l = 0; l < DL_COUNT; l++) {
		struct dist_pair *p = &out[l];

		p->caller_os = p->spinner_os = p->caller_logical = p->spinner_logical = -1;
		p->reason[0] = '\0';
		if (found[l]) {
			hwloc_obj_t c = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)caller[l]);
			hwloc_obj_t s = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)spinner[l]);

			p->caller_os = (int)c->os_index;
			p->spinner_os = (int)s->os_index;
			p->caller_logical = caller[l];
			p->spinner_logical = spinner[l];
		} else if (wfound[l]) {
			snprintf(p->reason, sizeof(p->reason),
				 "the affinity mask leaves no CPU pair at this level (widen it with taskset)");
		} else {
			level_missing(whole ? whole : topo, l, p->reason, sizeof(p->reason));
		}
	}
}
