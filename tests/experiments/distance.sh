#!/bin/sh
# SPDX-License-Identifier: MIT
# A quick distance run: every level is a row per mechanism, measured ones
# name both CPUs and give a positive finite ns/call with a CI, the others
# are skipped with a reason; on a 2-CPU host with one package and no SMT
# the core level is the one measured; a taskset mask of one CPU leaves no
# pair; --output writes distance.csv and its JSON.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON3:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
plan 5
"$MBBENCH" distance --keep-degraded --mechanism membarrier-private-expedited,signal,null \
	--duration 20ms --repeat 2 --format csv --output "$TMP/out" >"$TMP/d.csv" 2>"$TMP/err"
ok $? "distance over three mechanisms ran"
"$PY" - "$TMP/d.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
levels = ["smt", "core", "l3", "numa", "package"]
assert [(r["mechanism"], r["level"]) for r in rows] == \
    [(m, l) for m in ("membarrier-private-expedited", "signal", "null") for l in levels], rows
for r in rows:
    if r["status"] == "ok":
        assert r["caller_cpu"] != r["spinner_cpu"] and r["caller_logical"] != r["spinner_logical"], r
        v, ci = float(r["ns_per_call"]), float(r["ns_per_call_ci95"])
        assert math.isfinite(v) and v > 0 and math.isfinite(ci) and ci >= 0, r
        assert r["repeats"] == "2", r
    else:
        assert r["status"] == "skipped" and r["skip_reason"] and r["ns_per_call"] == "", r
PY
ok $? "one row per mechanism and level; measured rows name two CPUs and a positive ns/call"
[ -s "$TMP/out/distance.csv" ] && [ -s "$TMP/out/distance.json" ] && cmp -s "$TMP/d.csv" "$TMP/out/distance.csv"
ok $? "--output writes distance.csv (the CSV printed) and distance.json"

# This host's shape, from the topology line of mbbench points.
topo=$("$MBBENCH" points | head -n 1)
case $topo in
"# topology: 1 package, 2 cores, 2 PUs, "*)
	"$PY" - "$TMP/d.csv" <<'PY'
import csv, sys
rows = {r["level"]: r for r in csv.DictReader(open(sys.argv[1])) if r["mechanism"] == "null"}
assert rows["core"]["status"] == "ok", rows["core"]
assert rows["smt"]["skip_reason"].startswith("no SMT on this host"), rows["smt"]
assert rows["package"]["skip_reason"] == "one package", rows["package"]
for l in ("l3", "numa"):
    assert rows[l]["status"] == "skipped" and rows[l]["skip_reason"], rows[l]
PY
	ok $? "2 cores, one package, no SMT: core measured, the other levels skipped with reasons" ;;
*)
	skip "not a 2-core host without SMT ($topo)" ;;
esac

if command -v taskset >/dev/null 2>&1 && [ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ]; then
	taskset -c 0 "$MBBENCH" distance --keep-degraded --mechanism null --duration 10ms --format csv >"$TMP/one.csv" 2>/dev/null &&
		"$PY" - "$TMP/one.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 5 and all(r["status"] == "skipped" for r in rows), rows
assert any("affinity mask" in r["skip_reason"] for r in rows), rows
PY
	ok $? "a one-CPU affinity mask: every level skipped, the host's levels for the mask's reason"
else
	skip "needs taskset and two CPUs"
fi
