// SPDX-License-Identifier: MIT
/*
 * mbbench-fresh: run by `mbbench register` as
 *   mbbench-fresh FD MECHANISM OTHER_THREADS PLACEMENT BEHAVIOUR
 * to time a membarrier registration in a process image that nothing has
 * registered yet (it does not link liburcu, whose memb flavor registers
 * PRIVATE_EXPEDITED from a constructor). Writes one struct sample to FD.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "register-child.h"
#include "util.h"

int main(int argc, char **argv)
{
	hwloc_topology_t topo;
	const struct mechanism *m;
	enum behaviour beh;
	uint64_t fd, nother;
	char err[256];
	int reg;

	progname = "mbbench-fresh";
	if (argc != 6 || parse_u64(argv[1], 0, 1024, &fd) ||
	    !(m = mech_find(argv[2])) || parse_u64(argv[3], 0, 4095, &nother) ||
	    behaviour_parse(argv[5], &beh))
		die("internal helper of mbbench register; not for direct use");
	reg = membarrier_register_cmd(m->membarrier_cmd);
	if (!reg)
		die("%s needs no registration", m->name);
	if (topo_load(&topo, err, sizeof(err)))
		fail("%s", err);
	register_child(topo, argv[4], beh, m, reg, (int)nother, (int)fd);
}
