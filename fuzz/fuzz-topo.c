// SPDX-License-Identifier: MIT
/*
 * Topology loading and placement (topology/topo.c): MBBENCH_SYNTHETIC read
 * by topo_load, then placement_compute with a policy: compact, smt, scatter or
 * an explicit CPU list. Input: the synthetic description, a newline, the
 * policy, a newline, then one byte each for the thread count and the
 * range given to placement_cpus_str. Every thread must land on a PU of the
 * topology, in the listed order for a CPU list.
 */
#include "config.h"

#include "fuzz.h"
#include "synthetic.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), *policy, *rest, err[256] = "";
	hwloc_topology_t topo;
	struct placement pl = { 0 };
	int n, first, count, *cpus = NULL, ncpus = 0;

	policy = fuzz_line(s);
	rest = fuzz_line(policy);
	if (synthetic_load(s, &topo)) {
		free(s);
		return 0;
	}
	n = 1 + (rest[0] ? (unsigned char)rest[0] : 0) % 256;
	first = rest[0] && rest[1] ? (unsigned char)rest[1] % (n + 1) : 0;
	count = rest[0] && rest[1] && rest[2] ? (unsigned char)rest[2] : n;

	FUZZ_CHECK(topo_npus(topo) >= 1);
	if (!placement_compute(topo, policy, n, &pl, err, sizeof(err))) {
		int over = 0;
		char *str;

		if (strcmp(policy, "compact") && strcmp(policy, "smt") && strcmp(policy, "scatter"))
			FUZZ_CHECK(!parse_int_list(policy, 0, 1 << 20, &cpus, &ncpus));
		FUZZ_CHECK(pl.n == n);
		for (int i = 0; i < n; i++) {
			hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)pl.pu_os[i]);

			FUZZ_CHECK(pu && (int)pu->logical_index == pl.pu_logical[i]);
			if (cpus)
				FUZZ_CHECK(pl.pu_os[i] == cpus[i % ncpus]);
			for (int j = 0; j < i; j++)
				over |= pl.pu_os[i] == pl.pu_os[j];
		}
		FUZZ_CHECK(over == pl.oversubscribed);
		str = placement_cpus_str(&pl, first, count);
		FUZZ_CHECK(strlen(str) < (size_t)count * 8 + 2);
		free(str);
		placement_check_affinity(&pl, err, sizeof(err));
		placement_free(&pl);
		free(cpus);
	} else {
		FUZZ_CHECK(err[0]);
		FUZZ_CHECK(!pl.pu_logical && !pl.pu_os);
	}
	topo_summary(topo, err, sizeof(err));
	hwloc_topology_destroy(topo);
	free(s);
	return 0;
}
