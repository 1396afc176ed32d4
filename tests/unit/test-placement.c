// SPDX-License-Identifier: MIT
/*
 * Placement is a pure function of the topology: print it for synthetic
 * topologies so the shell side can diff against golden files. With no
 * argument, TAP-checks each case against tests/golden/.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "tap.h"

static const char *const topologies[] = {
	"pack:2 core:4 pu:2",
	"node:2 core:8 pu:1",
	"pack:1 core:2 pu:1",
};
static const char *const policies[] = { "compact", "smt", "scatter", "3,1" };
static const int counts[] = { 1, 2, 4, 5 };

static char *render(const char *syn)
{
	hwloc_topology_t topo;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	setenv("MBBENCH_SYNTHETIC", syn, 1);
	if (topo_load(&topo, err, sizeof(err))) {
		fprintf(f, "load error: %s\n", err);
		fclose(f);
		return buf;
	}
	fprintf(f, "topology %s (%d PUs)\n", syn, topo_npus(topo));
	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			struct placement pl;

			if (placement_compute(topo, policies[p], counts[c], &pl, err,
					      sizeof(err))) {
				fprintf(f, "%s n=%d: error: %s\n", policies[p], counts[c], err);
				continue;
			}
			fprintf(f, "%s n=%d:%s", policies[p], counts[c],
				pl.oversubscribed ? " oversubscribed" : "");
			for (int i = 0; i < pl.n; i++)
				fprintf(f, " L%d/os%d", pl.pu_logical[i], pl.pu_os[i]);
			fputc('\n', f);
			placement_free(&pl);
		}
	}
	hwloc_topology_destroy(topo);
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");
	const size_t ntopo = sizeof(topologies) / sizeof(topologies[0]);

	if (argc > 1) {	/* print mode: regenerate a golden file by hand */
		char *s = render(argv[1]);

		fputs(s, stdout);
		free(s);
		return 0;
	}
	plan((int)ntopo + 5);
	for (size_t i = 0; i < ntopo; i++) {
		char path[1024], name[128], *got = render(topologies[i]), *want;

		snprintf(name, sizeof(name), "%s", topologies[i]);
		for (char *p = name; *p; p++)
			if (*p == ' ' || *p == ':')
				*p = '-';
		snprintf(path, sizeof(path), "%s/tests/golden/placement-%s.txt",
			 srcdir ? srcdir : ".", name);
		want = slurp(path);
		if (!ok(want && !strcmp(got, want), "placement on \"%s\" matches %s",
			topologies[i], path)) {
			diag("got:");
			fputs(got, stdout);
		}
		free(got);
		free(want);
	}
	{
		hwloc_topology_t topo;
		struct placement pl;
		char err[256];

		setenv("MBBENCH_SYNTHETIC", "pack:1 core:2 pu:1", 1);
		topo_load(&topo, err, sizeof(err));
		ok(placement_compute(topo, "0,7", 2, &pl, err, sizeof(err)) == -1 &&
			   strstr(err, "CPU 7") != NULL,
		   "an absent CPU is refused with its number (%s)", err);
		ok(placement_compute(topo, "0-", 2, &pl, err, sizeof(err)) == -1,
		   "a malformed CPU list is refused");
		hwloc_topology_destroy(topo);
	}
	{
		hwloc_topology_t topo;
		struct placement pl;
		char err[256];
		hwloc_obj_t a, b;

		setenv("MBBENCH_SYNTHETIC", "pack:2 core:4 pu:2", 1);
		topo_load(&topo, err, sizeof(err));
		placement_compute(topo, "compact", 2, &pl, err, sizeof(err));
		a = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)pl.pu_logical[0]);
		b = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)pl.pu_logical[1]);
		ok(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, a) !=
			   hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, b),
		   "compact T=2: the other thread is on another core than the caller");
		placement_free(&pl);
		placement_compute(topo, "smt", 2, &pl, err, sizeof(err));
		a = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)pl.pu_logical[0]);
		b = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)pl.pu_logical[1]);
		ok(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, a) ==
			   hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, b),
		   "smt T=2: the other thread is the caller's SMT sibling");
		placement_free(&pl);
		placement_compute(topo, "compact", 9, &pl, err, sizeof(err));
		ok(pl.pu_logical[7] == 14 && pl.pu_logical[8] == 1,
		   "compact T=9: the 8 cores first, then the caller's sibling (L%d, L%d)",
		   pl.pu_logical[7], pl.pu_logical[8]);
		placement_free(&pl);
		hwloc_topology_destroy(topo);
	}
	return done_testing();
}
