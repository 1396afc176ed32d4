// SPDX-License-Identifier: MIT
/*
 * list: every mechanism, available here or the reason it is not.
 * info: the host facts recorded with every result.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results.h"
#include "schema.h"
#include "util.h"

static const struct col list_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name"),
	{ .name = "available", .type = COL_INT, .role = ROLE_STATUS, .unit = "",
	  .desc = "1 when it can run here, else 0" },
	COL_STATUS("reason", 0, "why not; empty when available"),
	COL_INFO("summary", COL_STR, "", 0, "what it does"),
};

const struct table_schema list_table = {
	.name = "list", .experiment = "list",
	.rows = "One row per mechanism (`mbbench list --format csv`).",
	.cols = list_cols, .ncols = NCOLS(list_cols),
};

/* rcu_expedited=1 turns MEMBARRIER_CMD_GLOBAL into an expedited grace period. */
static int rcu_expedited_here(void)
{
	char p[512], v[8] = "";
	FILE *f = fopen(host_path("/sys/kernel/rcu_expedited", p, sizeof(p)), "r");

	if (!f)
		return 0;
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	return v[0] == '1';
}

int exp_list_main(int argc, char **argv)
{
	struct exp_spec spec = {
		.name = "list",
		.synopsis = "Every mechanism: available on this host, or why not.",
		.common = CO_FORMAT | CO_JSON,
	};
	struct opts o;
	struct table t;
	struct results res;

	opts_parse(argc, argv, &spec, &o);
	table_init(&t, list_cols, (int)(sizeof(list_cols) / sizeof(list_cols[0])));
	results_begin(&res, &o, &t);
	for (size_t i = 0; i < nr_mechanisms; i++) {
		const struct mechanism *m = mechanisms[i];
		char reason[256];
		int r = table_add_row(&t), ok = !mech_probe(m, reason, sizeof(reason));

		table_set_str(&t, r, "mechanism", m->name);
		table_set_int(&t, r, "available", ok);
		table_set_str(&t, r, "reason", ok ? NULL : reason);
		table_set_str(&t, r, "summary", m->summary);
		if (ok && !strcmp(m->name, "membarrier-global") && rcu_expedited_here())
			table_set_str(&t, r, "summary",
				      "GLOBAL: expedited on this host (rcu_expedited=1): IPIs to every CPU running a task, microseconds, not a grace period");
	}
	if (o.format == FMT_HUMAN) {
		/* A list reads better as a list than as a data table. */
		for (int r = 0; r < t.nrows; r++) {
			const char *why = table_get(&t, r, "reason");

			printf("%-40s %s\n", table_get(&t, r, "mechanism"),
			       why ? "unavailable" : "available");
			printf("    %s\n", table_get(&t, r, "summary"));
			if (why)
				printf("    reason: %s\n", why);
		}
		res.files_only = 1;
	}
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return 0;
}

static const struct col info_cols[] = {
	COL_KEY("key", COL_STR, "", COL_REQ, "a host fact (see the JSON envelope's `host`)"),
	COL_INFO("value", COL_STR, "", 0, "its value; `unknown` when it could not be read"),
};

const struct table_schema info_table = {
	.name = "info", .experiment = "info",
	.rows = "One row per host fact (`mbbench info --format csv`).",
	.cols = info_cols, .ncols = NCOLS(info_cols),
};

int exp_info_main(int argc, char **argv)
{
	struct exp_spec spec = {
		.name = "info",
		.synopsis = "Host facts: kernel, command line, CPU, topology, membarrier commands, virtualization, privileges.",
		.common = CO_FORMAT | CO_JSON,
	};
	struct opts o;
	struct table t;
	struct results res;
	struct hostinfo h;

	opts_parse(argc, argv, &spec, &o);
	table_init(&t, info_cols, 2);
	hostinfo_collect(&h, o.topo);
	for (int i = 0; i < h.n; i++) {
		int r = table_add_row(&t);

		table_set_str(&t, r, "key", h.key[i]);
		table_set_str(&t, r, "value", h.val[i]);
	}
	results_begin(&res, &o, &t);
	if (o.format == FMT_HUMAN) {
		hostinfo_human(&h, stdout, "");
		res.files_only = 1;
	}
	results_emit(&res);
	hostinfo_free(&h);
	table_free(&t);
	opts_free(&o);
	return 0;
}
