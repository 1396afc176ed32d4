#!/bin/sh
# SPDX-License-Identifier: MIT
# A table no section of report renders (a new experiment's) is in report.md
# all the same, laid out from results/schema.json: its key, its measures
# with their CIs, its status and reason (analysis/rpt_generic.py). The
# analysis is copied beside a schema that has one more table, toy, as
# `mbbench schema` prints a new experiment's, and run from there (report
# reads the schema of its own data directory). A table whose figure is in
# the folder is shown by the Figures section instead.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
src=${top_srcdir:-.}
ref=$src/results/reference/vm-quick-20261203T141826Z
need_reference "$ref"
plan 6

# A data directory with the toy's table in its schema.
D=$TMP/data
# The files only: a tree that has run (make bench) also has __pycache__/.
mkdir -p "$D/analysis" "$D/results" && find "$src/analysis" -maxdepth 1 -type f -exec cp {} "$D/analysis/" \; &&
	cp "$src/results/seed-2010.csv" "$D/results/" && ln -s "$(cd "$src/results/reference" && pwd)" "$D/results/reference" &&
	"$PY" - "$src/results/schema.json" "$D/results/schema.json" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
def col(name, role, type_="number", unit="", test=None, of=None, ci=None, least=None, required=False):
    return {"name": name, "type": type_, "role": role, "unit": unit, "better": "lower" if test else None,
            "test": test, "of": of, "ci": ci, "min": least, "required": required, "setting": False,
            "description": name}
toy = {"name": "toy", "experiment": "toy", "analysed": True, "rows": "One row per toy mechanism.",
       "notes": "", "key": ["mechanism", "threads"], "control": None,
       "columns": [col("mechanism", "key", "text", required=True), col("threads", "key", "integer", least=1),
                   col("calls", "count", "integer", least=0),
                   col("toy_ns", "measure", unit="ns", test="mean", least=0),
                   col("toy_ns_ci95", "ci", unit="ns", of="toy_ns", ci="half-width", least=0),
                   col("toy_rate", "measure", unit="1/s", least=0),
                   col("repeats", "count", "integer", least=1),
                   col("status", "status", "text", required=True), col("skip_reason", "status", "text")]}
schema["tables"].append(toy)
json.dump(schema, open(sys.argv[2], "w"), indent=1)
PY
ok $? "a data directory whose schema has the toy's table"

report() { "$PY" -S "$D/analysis/report" "$@"; }
cp -R "$ref" "$TMP/run" && mkdir "$TMP/without" "$TMP/with" "$TMP/ref"
report "$TMP/run" --output "$TMP/without/report.md" 2>"$TMP/err" &&
	"$MBBENCH" report "$ref" --output "$TMP/ref/report.md" 2>>"$TMP/err" &&
	cmp -s "$TMP/without/report.md" "$TMP/ref/report.md" &&
	cmp -s "$TMP/without/appendix.md" "$TMP/ref/appendix.md" && ! grep -q '^## toy' "$TMP/without/report.md"
ok $? "without toy.csv the report is the one mbbench report writes, with no toy section ($(head -c 200 "$TMP/err"))"

cat >"$TMP/run/toy.csv" <<'EOF'
mechanism,threads,calls,toy_ns,toy_ns_ci95,toy_rate,repeats,status,skip_reason
fence,2,1000,21500,2400,46500,10,ok,
null,2,1000,12.5,0.31,80000000,10,ok,
wide,2,,,,,,skipped,the toy needs 64 CPUs
EOF
report "$TMP/run" --output "$TMP/with/report.md" 2>"$TMP/err"
rc=$?
sed -n '/^## toy$/,/^## /p' "$TMP/with/report.md" >"$TMP/toy"
[ $rc -eq 0 ] && grep -qx '| mechanism | toy_ns | toy_rate (1/s) | status |' "$TMP/toy" &&
	grep -qx '| fence | 21.5 ± 2.4 µs | 46 k | ok |' "$TMP/toy" &&
	grep -qx '| null | 12.5 ± 0.3 ns | 80 M | ok |' "$TMP/toy" &&
	grep -q '^One row per toy mechanism\. Every row: threads 2\. .*2 of 3 rows measured' "$TMP/toy"
ok $? "toy.csv has a section from the schema: key, measures with their CIs and units, status (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/err"
sed 's/^/# /' "$TMP/toy"

grep -q '^- the toy needs 64 CPUs: wide; in toy (1 row)$' "$TMP/with/report.md" && ! grep -q '| wide |' "$TMP/toy"
ok $? "its skipped row is under Skipped measurements, with its reason, not in its table"

# The rest of the report is as without it; the section comes before the skipped points.
"$PY" - "$TMP/without/report.md" "$TMP/with/report.md" <<'PY'
import sys
a, b = (open(p).read().split("\n") for p in sys.argv[1:])
i = b.index("## toy")
j = next(k for k in range(i + 1, len(b)) if b[k].startswith("## "))
assert b[j] == "## Skipped measurements", b[j]
rest = b[:i] + b[j:]
skipped = [l for l in rest if l not in a]
assert skipped == ["- the toy needs 64 CPUs: wide; in toy (1 row)"], skipped
assert [l for l in rest if l != skipped[0]] == a
PY
ok $? "the rest of the report is unchanged; the toy's section comes before the skipped points"

# vmscale has no section of its own: its figure shows it; without the
# figure, the generic section does.
cp -R "$src/results/reference/vm-scale-20261203T100650Z" "$TMP/scale"
report "$TMP/scale" --output "$TMP/scale1.md" 2>"$TMP/err" && ! grep -q '^## vmscale' "$TMP/scale1.md" &&
	grep -q '^!\[vmscale\](plots/vmscale.png)$' "$TMP/scale1.md" &&
	rm "$TMP/scale/plots/vmscale.png" && report "$TMP/scale" --output "$TMP/scale2.md" 2>>"$TMP/err" &&
	grep -q '^## vmscale$' "$TMP/scale2.md" &&
	grep -q '^| 2 | 1 | membarrier-private-expedited | +1.0 (no CI) |' "$TMP/scale2.md"
ok $? "vmscale: drawn, no section; its figure gone, a section from the schema ($(head -c 200 "$TMP/err"))"

done_testing
