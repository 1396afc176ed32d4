// SPDX-License-Identifier: MIT
/*
 * schema: every table mbbench and its helpers write, column by column: its
 * role (key, measure, ci, count, status, info), type, unit, which way is
 * better, how compare tests it, which measure a CI bounds, and what it
 * means. The column arrays of the exp-*.c files are the one definition;
 * results/SCHEMA.md and results/schema.json are this command's output
 * (tests/harness/schema.sh holds them equal), and the Python readers take every
 * column list from schema.json.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "strbuf.h"
#include "util.h"

/* Written by bench/vm (analysis/mbtool.py vm-aggregate) from the guests'
 * disturb points: defined here so that C owns every column. */
static const struct col vmscale_cols[] = {
	COL_KEY("smp", COL_INT, "", COL_REQ | COL_POS, "vCPUs of the guest"),
	COL_KEY("k", COL_INT, "", COL_REQ, "vCPUs running the caller's threads"),
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_COUNT("barriers", COL_INT, 0, "barriers issued in the storm"),
	COL_MEASURE("ipis_per_barrier_total", COL_NUM, "1/barrier", NONE, DIFF, COL_REQ | COL_SIGNED,
		    "IPIs per barrier summed over all CPUs (more is neither better nor worse: a kernel fix may add them)"),
	COL_CI95("ipis_per_barrier_total_ci95", "ipis_per_barrier_total", "1/barrier", 0,
		 "95% CI half-width of `ipis_per_barrier_total` over the guest's processes (`replicates`)"),
	COL_MEASURE("ipis_per_barrier_self", COL_NUM, "1/barrier", NONE, NONE, COL_SIGNED,
		    "IPIs per barrier on the CPUs running the caller's threads"),
	COL_MEASURE("ipis_per_barrier_idle", COL_NUM, "1/barrier", NONE, NONE, COL_SIGNED,
		    "IPIs per barrier on idle CPUs"),
	COL_INFO("expected_v1", COL_INT, "", 0, "what the seed's v1 design sends: N - 1"),
	COL_INFO("expected_v5", COL_INT, "", 0, "what the seed's v5 design sends: k"),
	COL_INFO("replicates", COL_INT, "", 0,
		 "processes the row's figures come from (`mbbench vm --replicates`, default 3)"),
	COL_STATUS("status", COL_REQ, "`ok` or `skipped`"),
	COL_STATUS("skip_reason", 0, "why a skipped row could not be measured (e.g. the guest failed)"),
};

static const struct col isolation_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY("cpu", COL_INT, "", 0, "the guest's CPU"),
	COL_KEY("isolated", COL_STR, "", 0, "`yes` when the CPU is in the guest's isolcpus/nohz_full set, else `no`"),
	COL_KEY("role", COL_STR, "", 0, "the disturb role on that CPU"),
	COL_COUNT("barriers", COL_INT, 0, "barriers issued in the storm"),
	COL_MEASURE("ipis_per_barrier", COL_NUM, "1/barrier", LOWER, NONE, COL_SIGNED,
		    "IPIs per barrier on that CPU, as in disturb.csv"),
	COL_CI95("ipis_per_barrier_ci95", "ipis_per_barrier", "1/barrier", 0,
		 "95% CI half-width over the guest's processes (`replicates`; with one, over its slices as in disturb.csv)"),
	COL_INFO("replicates", COL_INT, "", 0, "processes the row's figures come from"),
	COL_STATUS("status", COL_REQ, "`ok` or `skipped`"),
	COL_STATUS("skip_reason", 0, "why a skipped row could not be measured"),
};

static const struct col semantics_cols[] = {
	COL_KEY("arch", COL_STR, "", COL_REQ, "the guest's architecture: `x86_64` or `arm64`"),
	COL_KEY("kernel_build", COL_STR, "", COL_REQ,
		"the guest's kernel: `stock` (Debian's own of that architecture), `fixed` or `unfixed` (the 6.1 of kernel-patch/ with the seed series, with or without the GLOBAL_EXPEDITED fix, built for that architecture)"),
	COL_INFO("kernel", COL_STR, "", 0, "the guest's kernel release"),
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY("role", COL_STR, "", COL_REQ,
		"the kind of CPU, a disturb role: `self-spin` (running a thread of the caller's process), `self-sleep` (where such a thread sleeps), `idle`, `foreign-spin`, `foreign-rt`, `foreign-sleep` (another process)"),
	COL_INFO("cpu", COL_INT, "", 0, "the guest's CPU of the role"),
	COL_COUNT("barriers", COL_INT, 0, "barriers issued in the storms, over the processes"),
	COL_MEASURE("ipis_per_barrier", COL_NUM, "1/barrier", NONE, NONE, COL_SIGNED,
		    "function-call IPIs per barrier that CPU received (the storm's less the baseline's), as in disturb.csv"),
	COL_CI95("ipis_per_barrier_ci95", "ipis_per_barrier", "1/barrier", 0,
		 "95% CI half-width over the guest's processes (`replicates`)"),
	COL_MEASURE("tlb_per_barrier", COL_NUM, "1/barrier", NONE, NONE, COL_SIGNED,
		    "TLB-shootdown IPIs per barrier (x86's TLB row); empty where there is none to count"),
	COL_INFO("tlb_note", COL_STR, "", 0, "why `tlb_per_barrier` is empty (arm64: no TLB-shootdown IPIs, broadcast TLBI)"),
	COL_MEASURE("signals_per_barrier", COL_NUM, "1/barrier", NONE, NONE, 0, "signals delivered per barrier (the signal mechanism)"),
	COL_INFO("oncpu_fraction", COL_NUM, "", 0, "the share of the storm the role's thread was on its CPU"),
	COL_INFO("replicates", COL_INT, "", 0, "processes the row's figures come from (`mbbench vm semantics --replicates`)"),
	COL_STATUS("status", COL_REQ, "`ok` or `skipped`"),
	COL_STATUS("skip_reason", 0, "why a skipped row could not be measured (the mechanism is absent there, the guest failed)"),
};

static const struct table_schema semantics_table = {
	.name = "semantics", .experiment = "vm semantics",
	.rows = "One row per (architecture, kernel, mechanism, kind of CPU), from the disturb storms of `mbbench vm semantics`: each architecture's guest on Debian's stock kernel and on the patched 6.1 (`--kernels`); `semantics.md` lays them side by side with each guest's doctor probes.",
	.cols = semantics_cols, .ncols = NCOLS(semantics_cols),
};

static const struct table_schema vmscale_table = {
	.name = "vmscale", .experiment = "vm scale", .analysed = 1,
	.rows = "One row per (smp, k, mechanism), from `mbbench vm scale`. With `--kernels`, each kernel's folder has one, `ab.csv` puts `ipis_per_barrier_total_<kernel>` side by side and `compare.md` holds `mbbench compare` of the first kernel against each other one.",
	.cols = vmscale_cols, .ncols = NCOLS(vmscale_cols),
};

static const struct table_schema isolation_table = {
	.name = "isolation", .experiment = "vm isolation",
	.rows = "One row per storm row of the isolation guest's disturb run (`mbbench vm isolation`).",
	.cols = isolation_cols, .ncols = NCOLS(isolation_cols),
};

/*
 * Every table: those of each experiment (its `tables`), in the registry's
 * order, which is the order report and compare go through a results folder,
 * then the vm helper's.
 */
static const struct table_schema **tables;
static size_t ntables;

static void collect_tables(void)
{
	static const struct table_schema *const vm[] = { &vmscale_table, &isolation_table, &semantics_table };
	size_t cap = sizeof(vm) / sizeof(vm[0]);

	for (size_t i = 0; i < nr_experiments; i++)
		for (size_t k = 0; experiments[i]->tables && experiments[i]->tables[k]; k++)
			cap++;
	tables = xcalloc(cap, sizeof(*tables));
	for (size_t i = 0; i < nr_experiments; i++)
		for (size_t k = 0; experiments[i]->tables && experiments[i]->tables[k]; k++)
			tables[ntables++] = experiments[i]->tables[k];
	for (size_t i = 0; i < sizeof(vm) / sizeof(vm[0]); i++)
		tables[ntables++] = vm[i];
}

static const char *const role_names[] = {
	[ROLE_INFO] = "info", [ROLE_KEY] = "key", [ROLE_MEASURE] = "measure",
	[ROLE_CI] = "ci", [ROLE_COUNT] = "count", [ROLE_STATUS] = "status",
};
static const char *const better_names[] = {
	[BETTER_NONE] = "none", [BETTER_LOWER] = "lower", [BETTER_HIGHER] = "higher",
};
static const char *const test_names[] = {
	[TEST_NONE] = NULL, [TEST_MEAN] = "mean", [TEST_PCT] = "percentile",
	[TEST_DIFF] = "difference", [TEST_RATE] = "rate",
};
static const char *const ci_names[] = {
	[CI_HALF] = "half-width", [CI_LO] = "lower", [CI_HI] = "upper",
};
static const char *const type_names[] = {
	[COL_STR] = "text", [COL_INT] = "integer", [COL_NUM] = "number",
};

static void print_json(const struct table_schema *const *ts, size_t n)
{
	struct json j;

	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	json_int(&j, "format_version", 1);
	json_str(&j, "tool", "mbbench schema");
	json_begin_array(&j, "tables");
	for (size_t i = 0; i < n; i++) {
		const struct table_schema *t = ts[i];

		json_begin_object(&j, NULL);
		json_str(&j, "name", t->name);
		json_str(&j, "experiment", t->experiment);
		json_bool(&j, "analysed", t->analysed);
		json_str(&j, "rows", t->rows);
		json_str(&j, "notes", t->notes);
		json_begin_array(&j, "key");
		for (int c = 0; c < t->ncols; c++)
			if (t->cols[c].role == ROLE_KEY)
				json_str(&j, NULL, t->cols[c].name);
		json_end_array(&j);
		if (t->control) {
			json_begin_object(&j, "control");
			json_str(&j, "column", t->control);
			json_str(&j, "value", t->control_value);
			json_end_object(&j);
		} else {
			json_null(&j, "control");
		}
		json_begin_array(&j, "columns");
		for (int c = 0; c < t->ncols; c++) {
			const struct col *k = &t->cols[c];
			int measure = k->role == ROLE_MEASURE, ci = k->role == ROLE_CI;

			json_begin_object(&j, NULL);
			json_str(&j, "name", k->name);
			json_str(&j, "type", type_names[k->type]);
			json_str(&j, "role", role_names[k->role]);
			json_str(&j, "unit", k->unit);
			json_str(&j, "better", measure ? better_names[k->better] : NULL);
			json_str(&j, "test", measure ? test_names[k->test] : NULL);
			json_str(&j, "of", ci ? k->of : NULL);
			json_str(&j, "ci", ci ? ci_names[k->ci] : NULL);
			if (k->type == COL_STR)
				json_null(&j, "min");
			else if (k->flags & COL_SIGNED)
				json_null(&j, "min");
			else
				json_int(&j, "min", k->flags & COL_POS ? 1 : 0);
			json_bool(&j, "required", !!(k->flags & COL_REQ));
			json_bool(&j, "setting", !!(k->flags & COL_SETTING));
			if (k->values) {
				char v[512];

				json_begin_array(&j, "values");
				for (const char *q = k->values;; q += strcspn(q, "|") + 1) {
					snprintf(v, sizeof(v), "%.*s", (int)strcspn(q, "|"), q);
					json_str(&j, NULL, v);
					if (!q[strcspn(q, "|")])
						break;
				}
				json_end_array(&j);
			} else {
				json_null(&j, "values");
			}
			json_str(&j, "description", k->desc);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
}

/* A Markdown table cell: a | would end it. */
static void md_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s == '\n' ? ' ' : *s);
	}
}

static void print_md(const struct table_schema *const *ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct table_schema *t = ts[i];
		const char *sep = "";

		printf("%s## %s.csv\n\n%s\n\nPoint key:", i ? "\n" : "", t->name, t->rows);
		for (int c = 0; c < t->ncols; c++)
			if (t->cols[c].role == ROLE_KEY) {
				printf("%s `%s`", sep, t->cols[c].name);
				sep = ",";
			}
		printf(".%s\n\n| column | role | type | unit | meaning |\n|---|---|---|---|---|\n",
		       t->analysed ? " A CSV without a *required* column is refused by report, compare and plot." : "");
		for (int c = 0; c < t->ncols; c++) {
			const struct col *k = &t->cols[c];

			printf("| `%s` | ", k->name);
			if (k->role == ROLE_MEASURE) {
				printf("measure");
				if (k->better != BETTER_NONE)
					printf(", %s is better", better_names[k->better]);
				if (k->test != TEST_NONE)
					printf(", compared as a %s", test_names[k->test]);
			} else if (k->role == ROLE_CI) {
				printf("ci: %s of `%s`", k->ci == CI_HALF ? "95% CI half-width" :
				       k->ci == CI_LO ? "lower end of the 95% interval" :
				       "upper end of the 95% interval", k->of);
			} else {
				printf("%s%s", role_names[k->role],
				       k->flags & COL_SETTING ? " (a setting of the run)" : "");
			}
			if (t->analysed && (k->flags & COL_REQ))
				printf(", *required*");
			printf(" | %s%s | %s | ", type_names[k->type],
			       k->type == COL_STR ? "" : k->flags & COL_SIGNED ? ", signed" :
			       k->flags & COL_POS ? ", >= 1" : ", >= 0", k->unit);
			md_text(k->desc);
			printf(" |\n");
		}
		if (t->control)
			printf("\nControls: rows whose `%s` is `%s`.\n", t->control, t->control_value);
		if (t->notes) {
			printf("\n");
			md_text(t->notes);
			printf("\n");
		}
	}
}

static int exp_schema_main(int argc, char **argv)
{
	static const char *const formats[] = { "json", "md", NULL };
	int format = 0;
	const char *only = NULL;
	const struct exp_opt own[] = {
		OPT_CHOICE("format", "json|md", "json (default): results/schema.json; md: the\n"
			   "column tables of results/SCHEMA.md", &format, formats, "(use json or md)"),
		OPT_STRING("experiment", "NAME", "only the tables NAME writes (or the table NAME)", &only),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "schema",
		.synopsis = "Every result table's columns: role, type, unit, direction, CI pairs, meaning.",
		.opts = own,
	};
	const struct table_schema **sel;
	size_t n = 0;
	struct opts o;

	opts_parse(argc, argv, &spec, &o);
	collect_tables();
	sel = xcalloc(ntables, sizeof(*sel));
	for (size_t i = 0; i < ntables; i++)
		if (!only || !strcmp(only, tables[i]->name) || !strcmp(only, tables[i]->experiment))
			sel[n++] = tables[i];
	if (!n) {
		struct strbuf names = STRBUF_INIT;

		for (size_t i = 0; i < ntables; i++)
			strbuf_addf(&names, "%s%s", i ? ", " : "", tables[i]->name);
		die("unknown --experiment '%s' (valid: %s)", only, strbuf_str(&names));
	}
	if (format == 0)
		print_json(sel, n);
	else
		print_md(sel, n);
	free(sel);
	opts_free(&o);
	return 0;
}

const struct experiment exp_schema = {
	.name = "schema",
	.summary = "every result table's columns, units and keys (measures nothing)",
	.main = exp_schema_main,
};
