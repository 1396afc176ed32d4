#!/bin/sh
# SPDX-License-Identifier: MIT
# CSV and JSON written by real (short) runs parse back, with the documented
# columns, units in their names, and the versioned envelope.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 8

"$MBBENCH" calls --keep-degraded --mechanism null,fence --threads 1,2 --iterations 20000 --repeat 2 \
	--format csv --output "$TMP/run" --json "$TMP/calls.json" >"$TMP/calls.csv" 2>"$TMP/err"
ok $? "calls run with --output and --json"

"$PY" - "$TMP/calls.csv" "$TMP/run/calls.csv" <<'PY'
import csv, math, sys
want = ["mechanism", "threads", "ns_per_call", "ns_per_call_ci95", "calls_per_s", "cv", "status", "skip_reason"]
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    assert len(rows) == 4, (path, len(rows))
    for c in want:
        assert c in rows[0], (path, c)
    for r in rows:
        assert r["status"] == "ok", r
        v = float(r["ns_per_call"])
        assert math.isfinite(v) and v > 0, r
        c = float(r["calls_per_s"])
        assert math.isfinite(c) and c > 0, r
        # the same figure as a rate: the mean cost's, not the mean of rates
        assert abs(c * v / 1e9 - 1) < 1e-3, (c, v)
        assert float(r["ns_per_call_ci95"]) >= 0 and int(r["repeats"]) == 2, r
PY
ok $? "stdout CSV and the folder's calls.csv parse, 4 rows, positive finite ns_per_call"

"$PY" - "$TMP/calls.json" "$TMP/run/calls.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    assert d["format_version"] == 1 and d["tool"] == "mbbench", d.keys()
    assert d["experiment"] == "calls"
    for k in ("cmdline", "start", "end", "host", "params", "points", "derived"):
        assert k in d, k
    for k in ("kernel", "cmdline", "cpu_model", "topology", "membarrier_query", "virtualization", "privileges"):
        assert k in d["host"], k
    assert len(d["points"]) == 4
    assert isinstance(d["points"][0]["ns_per_call"], float)
    assert "harness_overhead_ratio" in d["derived"]
PY
ok $? "JSON envelope parses with host facts, params, points and derived values"

ls "$TMP/run" | grep -q tmp
[ $? -ne 0 ]
ok $? "no temporary files left in the results folder"

"$MBBENCH" latency --keep-degraded --mechanism null,fence --threads 2 --iterations 5000 --format csv \
	--output "$TMP/run" >"$TMP/lat.csv" 2>"$TMP/err"
"$PY" - "$TMP/lat.csv" "$TMP/run/latency-histogram.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["mechanism"] for r in rows] == ["null", "fence"], rows
for r in rows:
    p = [float(r[k]) for k in ("min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")]
    assert p == sorted(p), p
    assert int(r["samples"]) == 5000
h = list(csv.DictReader(open(sys.argv[2])))
for m in ("null", "fence"):
    hm = [x for x in h if x["mechanism"] == m]
    assert sum(int(x["count"]) for x in hm) == 5000
    assert abs(float(hm[-1]["cumulative_fraction"]) - 1) < 1e-9
PY
ok $? "latency CSV percentiles are ordered; histogram counts add up to the samples"

# Percentile CIs come from the batches (--repeat); one batch has none.
"$MBBENCH" latency --keep-degraded --mechanism null --threads 2 --iterations 2000 --repeat 4 --format csv >"$TMP/latr.csv" 2>/dev/null &&
	"$MBBENCH" latency --keep-degraded --mechanism null --threads 2 --iterations 2000 --format csv >"$TMP/lat1.csv" 2>/dev/null &&
	"$PY" - "$TMP/latr.csv" "$TMP/lat1.csv" <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
assert r["repeats"] == "4" and int(r["samples"]) == 8000, r
for k in ("p50_ns_ci95", "p90_ns_ci95", "p99_ns_ci95", "p999_ns_ci95"):
    assert float(r[k]) >= 0, (k, r[k])
one = list(csv.DictReader(open(sys.argv[2])))[0]
assert one["repeats"] == "1" and one["p50_ns_ci95"] == "" and one["p999_ns_ci95"] == "", one
PY
ok $? "latency: 4 batches give every percentile a CI; one batch leaves the CI cells empty"

"$MBBENCH" list --format csv >"$TMP/list.csv"
"$PY" - "$TMP/list.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
names = [r["mechanism"] for r in rows]
assert "membarrier-private-expedited" in names and "seed-v5-expedited" in names and "null" in names
for r in rows:
    assert r["available"] in ("0", "1")
    assert (r["available"] == "0") == bool(r["reason"]), r
PY
ok $? "list CSV: every unavailable mechanism carries a reason"

"$MBBENCH" info --json "$TMP/info.json" >/dev/null && "$PY" -c "
import json,sys; d=json.load(open(sys.argv[1])); assert d['experiment']=='info' and d['points']" "$TMP/info.json"
ok $? "info --json writes a parsable envelope"
done_testing
