#!/bin/sh
# SPDX-License-Identifier: MIT
# What a new experiment costs: a toy experiment is added to a scratch copy
# of the tree as docs/HACKING.md says ("A new experiment": its file
# bench/experiments/exp-toy.c, one row of bench/exp-registry.c, its test
# tests/experiments/toy.sh; its line in the README is prose). Then:
#  - ./bootstrap --lists takes the file and the test into files.am, so
#    Makefile.am is not edited;
#  - built against this build's archives, it is a subcommand with --help,
#    appears in `mbbench schema` with its CSV header and is planned by
#    `mbbench plan` by its flags;
#  - bench/man-entries gives it an entry in mbbench(1) with its options.
# Neither bench/harness/experiment.h, bench/mbbench.c nor bench/exp-schema.c is
# touched: the test fails if the experiment ever needs another file again.
. "${top_srcdir:-.}/tests/lib.sh"

[ -n "${MBB_BUILD_CC:-}" ] || {
	echo "1..0 # SKIP run it from make check (it needs the build's compiler and flags)"
	exit 77
}
[ -f bench/mbbench.o ] && [ -f bench/libmbb-bench.a ] || {
	echo "1..0 # SKIP bench/mbbench.o or the archives are not built here"
	exit 77
}
plan 10

SRC=${top_srcdir:-.}
S=$TMP/scratch
mkdir -p "$S"
# The folders ./bootstrap --lists reads, as they are in the source tree.
for d in lib topology workloads bench tests analysis plots; do
	cp -R "$SRC/$d" "$S/$d" || exit 1
done
cp "$SRC/bootstrap" "$S/" && (cd "$S" && sh ./bootstrap --lists) && cp "$S/files.am" "$S/files.am.orig" &&
	cp -R "$S/bench" "$S/bench.orig" || exit 1

# 1. The experiment's file.
cat >"$S/bench/experiments/exp-toy.c" <<'EOC'
// SPDX-License-Identifier: MIT
/* A toy experiment: ns per call of every fence-like mechanism. */
#include "config.h"

#include <time.h>

#include "experiment.h"
#include "results.h"
#include "util.h"

static const struct col toy_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "the barrier"),
	COL_COUNT("calls", COL_INT, COL_POS, "barriers issued"),
	COL_MEASURE("toy_ns", COL_NUM, "ns", LOWER, MEAN, COL_REQ, "mean time of one call"),
	COL_STATUS("status", COL_REQ, "`ok` or `skipped`"),
	COL_STATUS("skip_reason", 0, "why not"),
};

const struct table_schema toy_table = {
	.name = "toy", .experiment = "toy", .analysed = 1,
	.rows = "One row per mechanism.",
	.cols = toy_cols, .ncols = NCOLS(toy_cols),
};

static int toy_main(int argc, char **argv)
{
	struct exp_spec spec = {
		.name = "toy",
		.synopsis = "A toy: ns per call.",
		.common = CO_MECH | CO_FORMAT | CO_JSON | CO_OUTPUT,
		.def_mech = "fence,null",
	};
	struct opts o;
	struct table t;
	struct results res;

	opts_parse(argc, argv, &spec, &o);
	table_init(&t, toy_cols, NCOLS(toy_cols));
	results_begin(&res, &o, &t);
	for (int i = 0; i < o.nmechs; i++) {
		const struct mechanism *m = o.mechs[i];
		int row = table_add_row(&t), n = 1000;
		char reason[256];
		struct timespec a, b;

		table_set_str(&t, row, "mechanism", m->name);
		if (mech_probe(m, reason, sizeof(reason))) {
			row_skip(&t, row, reason);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int k = 0; k < n; k++)
			m->barrier(m);
		clock_gettime(CLOCK_MONOTONIC, &b);
		table_set_int(&t, row, "calls", n);
		table_set_num(&t, row, "toy_ns",
			      ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
		table_set_str(&t, row, "status", "ok");
	}
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return 0;
}

static const struct mech_pick toy_picks[] = { { .all = MC_FENCE_LIKE } };

static double toy_cost(const struct preset *p, const struct plan_host *h,
		       const struct mechanism *m)
{
	(void)p, (void)h, (void)m;
	return 0.1;
}

static void toy_options(FILE *f, const struct preset *p, const struct plan_host *h)
{
	(void)f, (void)p, (void)h;
}

const struct experiment exp_toy = {
	.tables = (const struct table_schema *const[]){ &toy_table, NULL },
	.name = "toy",
	.summary = "a toy experiment",
	.main = toy_main,
	.quick = { .repeat = 1 },
	.full = { .repeat = 1 },
	.picks = toy_picks,
	.npicks = NPICKS(toy_picks),
	.cost = toy_cost,
	.options = toy_options,
};
EOC

# 2. One row of the registry.
sed -i 's/^\tX(exp_litmus)\(.*\)$/&\n\tX(exp_toy)\1/' "$S/bench/exp-registry.c"
# 3. Its test.
printf '#!/bin/sh\n. "${top_srcdir:-.}/tests/lib.sh"\nplan 1\n"$MBBENCH" toy >/dev/null\nok $? toy runs\n' \
	>"$S/tests/experiments/toy.sh"
changed() { diff "$1" "$2" | grep -c '^[<>]'; }
r=$(changed "$S/bench.orig/exp-registry.c" "$S/bench/exp-registry.c")
[ "$r" = 1 ] && [ -z "$(diff -rq "$S/bench.orig" "$S/bench" | grep -v -e exp-registry.c -e 'experiments: exp-toy.c')" ]
ok $? "the registry changes by one line, and nothing else in bench/ ($r)"

(cd "$S" && sh ./bootstrap --lists) &&
	diff "$S/files.am.orig" "$S/files.am" | grep '^[<>]' >"$TMP/lists"
[ "$(sed 's/[[:space:]\\]//g' "$TMP/lists" | sort | paste -sd' ')" = \
	">bench/experiments/exp-toy.c >tests/experiments/toy.sh" ]
ok $? "./bootstrap --lists takes the toy and its test into files.am ($(paste -sd' ' "$TMP/lists" | tr -d '\\\t'))"

# Built against this build: the scratch registry replaces the archive's.
# shellcheck disable=SC2086
$MBB_BUILD_CC $MBB_BUILD_FLAGS -c "$S/bench/experiments/exp-toy.c" -o "$S/exp-toy.o" 2>"$TMP/cc" &&
	$MBB_BUILD_CC $MBB_BUILD_FLAGS -c "$S/bench/exp-registry.c" -o "$S/exp-registry.o" 2>>"$TMP/cc" &&
	$MBB_BUILD_CC $MBB_BUILD_FLAGS -o "$S/mbbench" bench/mbbench.o "$S/exp-registry.o" "$S/exp-toy.o" \
		$MBB_BUILD_LIBS 2>>"$TMP/cc"
rc=$?
ok $rc "the toy builds with the build's warnings as errors"
[ $rc -eq 0 ] || { sed 's/^/# /' "$TMP/cc" | head -n 20; }
T=$S/mbbench

"$T" --help 2>&1 | grep -q '^ *toy ' && "$T" toy --help 2>&1 | grep -q -- '--mechanism'
ok $? "mbbench --help lists toy, and toy --help its options"

"$T" toy --format csv >"$TMP/toy.csv" 2>"$TMP/err"
[ $? -eq 0 ] && [ "$(csv_cols "$TMP/toy.csv" mechanism status | paste -sd" ")" = "fence	ok null	ok" ]
ok $? "mbbench toy measures its fence-like mechanisms ($(csv_cols "$TMP/toy.csv" toy_ns | paste -sd" ") ns)"

"$T" schema --experiment toy --format json >"$TMP/schema.json" 2>"$TMP/err"
got=$("$PYTHON3" -c '
import json, sys
t = json.load(open(sys.argv[1]))["tables"]
print(" ".join(t[0]["key"]) + "|" + ",".join(c["name"] for c in t[0]["columns"]))' "$TMP/schema.json" 2>&1)
[ "$got" = "mechanism|$(head -n 1 "$TMP/toy.csv")" ]
ok $? "mbbench schema has the toy's table, its key and its CSV header ($got)"

"$T" schema --format json | "$PYTHON3" -c '
import json, sys
names = [t["name"] for t in json.load(sys.stdin)["tables"]]
sys.exit(names.index("toy") != names.index("litmus") + 1)'
ok $? "its table comes after litmus's, in the registry's order"

"$T" plan --quick --assume-available 2>/dev/null | grep '^toy ' | cut -d ' ' -f 2 | paste -sd, >"$TMP/plan"
[ "$(cat "$TMP/plan")" = "$("$MBBENCH" list --format csv | "$PYTHON3" -c '
import csv, sys
print(",".join(r["mechanism"] for r in csv.DictReader(sys.stdin) if r["fence_like"] == "1"))')" ]
ok $? "mbbench plan runs the toy for the fence-like mechanisms, by the flag ($(cat "$TMP/plan"))"

sh "$SRC/bench/man-entries" "$T" "$SRC/bench/mbbench.1.in" >"$TMP/page" 2>"$TMP/err" &&
	awk '/^\.B toy$/ { on = 1 } on && /^\.B \\-\\-mechanism/ { found = 1 } on && /^\.RE/ { exit } END { exit !found }' "$TMP/page" &&
	! grep -q '^\.B toy$' "${top_builddir:-.}/bench/mbbench.1"
ok $? "mbbench(1) made from that build has an entry for toy with its options; this build's has none"

"$MBBENCH" --help 2>&1 | grep -q '^ *toy '
[ $? -ne 0 ]
ok $? "the build's own mbbench has no toy (the scratch copy changed nothing here)"
