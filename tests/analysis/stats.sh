#!/bin/sh
# SPDX-License-Identifier: MIT
# The statistics of the analysis (analysis/mbstats.py): every distribution
# and test from scipy.stats, none written by hand, and one line naming the
# package where it is missing; the rank test on the processes' values; a
# proportion's Wilson interval; a bootstrap interval where Student's t would
# run below 0; latency percentiles pooled from the processes' histograms;
# the smallest change a comparison could have detected; and a regression
# whose median and mean disagree never called better.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 12
src=${top_srcdir:-.}
export MBB_ANALYSIS="$src/analysis"

# No special function written by hand is left in the analysis.
hand=$(grep -lE '_ibeta|_betacf|lgamma|Lentz|continued fraction' "$src"/analysis/*.py "$src/analysis/compare" \
	"$src/analysis/report" "$src/analysis/advise" 2>/dev/null)
[ -z "$hand" ] && grep -q "^ *import scipy.stats" "$src/analysis/mbstats.py"
ok $? "no hand-written special function in the analysis; scipy.stats is imported in mbstats.py (${hand:-none})"

# Without scipy: one line naming the package, exit 1, no traceback.
mkdir -p "$TMP/noscipy/scipy"
echo 'raise ModuleNotFoundError("No module named scipy", name="scipy")' >"$TMP/noscipy/scipy/__init__.py"
mkdir -p "$TMP/empty"
echo '{"format_version": 1, "tool": "mbbench sweep", "points": []}' >"$TMP/empty/run.json"
PYTHONPATH="$TMP/noscipy" "$MBBENCH" compare "$TMP/empty" "$TMP/empty" >/dev/null 2>"$TMP/e1"
r1=$?
PYTHONPATH="$TMP/noscipy" "$MBBENCH" report "$TMP/empty" --output "$TMP/r.md" 2>"$TMP/e2"
r2=$?
[ $r1 -eq 1 ] && [ $r2 -eq 1 ] && [ "$(cat "$TMP/e1" "$TMP/e2" | wc -l)" -eq 2 ] &&
	grep -qx 'compare: python3-scipy not found: apt-get install python3-scipy' "$TMP/e1" &&
	grep -qx 'report: python3-scipy not found: apt-get install python3-scipy' "$TMP/e2"
ok $? "without scipy: compare exit $r1, report exit $r2, one line each ($(cat "$TMP/e1"))"

# The merge of a point's processes.
"$PY" - <<'PY'
import os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
from mbmerge import merge_replicates
from mbstats import wilson

# Wilson: 0 events in 1000 trials is [0, 3.84/1003.84], never below 0;
# merged litmus rows take it over all their processes' trials.
lo, hi = wilson(0, 1000)
assert lo == 0 and abs(hi - 0.0038268) < 1e-6, (lo, hi)
lit = lambda trials: {"pairing": "fence-both", "expect": "forbidden", "trials": str(trials), "r1_0_r2_0": "0",
                      "forbidden_per_million": "0", "forbidden_per_million_lo95": "0",
                      "forbidden_per_million_hi95": str(3.84e6 / trials), "forbidden_per_million_ci95": "0",
                      "repeats": "1", "status": "ok"}
g = merge_replicates("litmus", [[lit(300)], [lit(300)], [lit(400)]])[0]
assert g["trials"] == "1000" and float(g["forbidden_per_million_lo95"]) == 0, g
assert abs(float(g["forbidden_per_million_hi95"]) - 3826.8) < 0.1, g
PY
ok $? "Wilson: 0 events in 1000 trials is [0, 0.0038], over the merged processes' trials"

"$PY" - <<'PY'
import os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
from mbmerge import merge_replicates

# A cost whose t-interval would run below 0 (processes at 1, 1 and 30 ns:
# 10.7 -/+ 41.6): the bootstrap interval of the mean, within what the
# processes measured, the same each time.
row = lambda ns: {"mechanism": "fence", "threads": "1", "behaviour": "spin", "scope": "same-process",
                  "placement": "compact", "repeats": "10", "calls_per_repeat": "100", "ns_per_call": str(ns),
                  "ns_per_call_ci95": "0.1", "calls_per_s": str(1e9 / ns), "calls_per_s_ci95": "1", "cv": "0.01",
                  "ns_per_call_stddev": "0.05", "status": "ok"}
m = merge_replicates("calls", [[row(1)], [row(1)], [row(30)]])[0]
m2 = merge_replicates("calls", [[row(1)], [row(1)], [row(30)]])[0]
mean, h = float(m["ns_per_call"]), float(m["ns_per_call_ci95"])
lo, hi = float(m["ns_per_call_ci95_lo"]), float(m["ns_per_call_ci95_hi"])
assert mean - h < 0 and 1 <= lo < mean < hi <= 30, m
assert (m["ns_per_call_ci95_lo"], m["ns_per_call_ci95_hi"]) == (m2["ns_per_call_ci95_lo"], m2["ns_per_call_ci95_hi"])
assert 0 < float(m["calls_per_s_ci95_lo"]) < float(m["calls_per_s"]) < float(m["calls_per_s_ci95_hi"]), m
# Spread and cv are the processes', and their values are kept in order.
assert m["ns_per_call_per_process"] == "1;1;30", m
assert abs(float(m["cv"]) - float(m["ns_per_call_stddev"]) / mean) < 1e-4 and float(m["cv"]) > 1, m
n = merge_replicates("calls", [[row(100)], [row(110)], [row(120)]])[0]
assert n.get("ns_per_call_ci95_lo", "") == "" and abs(float(n["cv"]) - 10 / 110) < 1e-6, n
PY
ok $? "a cost whose t-interval runs below 0 gets the bootstrap's, reproducible; cv and spread from the processes"

"$PY" - "$TMP" <<'PY'
import csv, json, math, os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
from mbassemble import assemble
tmp = sys.argv[1]

# Latency percentiles of a point from the histogram of all its processes:
# one process 900 samples at 10 ns and 100 at 20, another 100 at 50. The
# processes' own p50 are 10 and 50 (mean 30), their p99 20 and 50 (mean
# 35); all 1100 samples have p50 10 and p99 50.
raw = os.path.join(tmp, "lat", "raw")
os.makedirs(raw)
json.dump({"host": {"hostname": "h"}}, open(os.path.join(raw, "info.json"), "w"))
open(os.path.join(raw, "points.txt"), "w").write("latency m.1 ok\nlatency m.2 ok\n")
lat_cols = ["mechanism", "threads", "behaviour", "scope", "samples", "min_ns", "p50_ns", "p90_ns", "p99_ns",
            "p999_ns", "max_ns", "mean_ns", "repeats", "p50_ns_ci95", "p90_ns_ci95", "p99_ns_ci95", "p999_ns_ci95",
            "status", "skip_reason"]
procs = {1: [10] * 900 + [20] * 100, 2: [50] * 100}

def nearest(xs, p):
    xs = sorted(xs)
    return xs[max(1, math.ceil(p / 100 * len(xs))) - 1]

for i, xs in procs.items():
    d = os.path.join(raw, f"latency-m.{i}")
    os.makedirs(d)
    json.dump({"experiment": "latency"}, open(os.path.join(d, "latency.json"), "w"))
    with open(os.path.join(d, "latency.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=lat_cols, lineterminator="\n")
        w.writeheader()
        w.writerow(dict(mechanism="m", threads=1, behaviour="spin", scope="same-process", samples=len(xs),
                        min_ns=min(xs), p50_ns=nearest(xs, 50), p90_ns=nearest(xs, 90), p99_ns=nearest(xs, 99),
                        p999_ns=nearest(xs, 99.9), max_ns=max(xs), mean_ns=sum(xs) / len(xs), repeats=5,
                        p50_ns_ci95=0, p90_ns_ci95=0, p99_ns_ci95=0, p999_ns_ci95=0, status="ok", skip_reason=""))
    with open(os.path.join(d, "latency-histogram.csv"), "w", newline="") as f:
        f.write("mechanism,threads,bucket_lo_ns,bucket_hi_ns,count,cumulative_fraction\n")
        seen = 0
        for v in sorted(set(xs)):
            seen += xs.count(v)
            f.write(f"m,1,{v},{v},{xs.count(v)},{seen / len(xs)}\n")
assemble(os.path.join(tmp, "lat"), "quick", 1, False, replicates=2)
r = next(csv.DictReader(open(os.path.join(tmp, "lat", "latency.csv"))))
pooled = procs[1] + procs[2]
for col, p in (("p50_ns", 50), ("p90_ns", 90), ("p99_ns", 99), ("p999_ns", 99.9)):
    own = [nearest(xs, p) for xs in procs.values()]
    truth = nearest(pooled, p)
    assert float(r[col]) == truth, (col, r[col], truth)
    assert col in ("p90_ns", "p999_ns") or truth != sum(own) / len(own), (col, own)
    assert 0 <= float(r[col + "_ci95_lo"]) <= truth <= float(r[col + "_ci95_hi"]), (col, r)
    assert r[col + "_per_process"] == ";".join(str(v) for v in own), r
assert float(r["p50_ns"]) == 10 and float(r["p99_ns"]) == 50, r
assert r["min_ns"] == "10" and r["max_ns"] == "50" and r["samples"] == "1100", r
assert abs(float(r["mean_ns"]) - sum(pooled) / len(pooled)) < 1e-3, r
PY
ok $? "latency percentiles from the processes' pooled histograms (p50 10, p99 50 ns), not their mean (30, 35)"

# The report prints such an interval as its ends, and no proportion's
# beyond what it can be.
"$PY" - "$TMP" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
from mbformat import fmt_ci, ci_n
assert fmt_ci(10.67, 41.6, lo=1.0, hi=30.0, **{k: v for k, v in ci_n({"replicates": "3"}).items()}) == "11 [1, 30] ns"
assert fmt_ci(110, 24.8, n=3, procs=True) == "110 ± 25 ns"
d = os.path.join(sys.argv[1], "lit")
os.makedirs(d)
json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "points": [],
           "info": {"host": {"hostname": "h"}}}, open(os.path.join(d, "run.json"), "w"))
open(os.path.join(d, "litmus.csv"), "w").write(
    "pairing,a_side,b_side,expect,cpus,repeats,trials,r1_0_r2_0,r1_0_r2_1,r1_1_r2_0,r1_1_r2_1,"
    "forbidden_per_million,trials_per_s,forbidden_per_million_lo95,forbidden_per_million_hi95,"
    "forbidden_per_million_ci95,status,skip_reason\n"
    "none,compiler,compiler,allowed,0;1,3,10,9,1,0,0,900000,1e6,500000,1200000,300000,ok,\n")
PY
r6=$?
"$MBBENCH" report "$TMP/lit" --output "$TMP/lit.md" 2>"$TMP/lit.err"
[ $r6 -eq 0 ] && grep -q '| none | allowed | 10 | 9 | 900,000 \[500,000, 1,000,000\] |' "$TMP/lit.md"
ok $? "the report: an asymmetric interval as its ends; a rate per million never shown above a million ($(grep '^| none' "$TMP/lit.md"))"

# compare on folders whose points keep their processes' values.
"$PY" - "$TMP" "$src/results/schema.json" <<'PY'
import csv, json, math, os, random, sys
tmp, schema = sys.argv[1], sys.argv[2]
cols = [c["name"] for t in json.load(open(schema))["tables"] if t["name"] == "calls" for c in t["columns"]]
T975 = {3: 3.182, 4: 2.776, 9: 2.262, 19: 2.093, 39: 2.023}
rng = random.Random(3)

def folder(name, points, keep=True):
    """points: {mechanism: [each process's ns per call]}"""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "points": [],
               "info": {"host": {"hostname": "h"}}}, open(os.path.join(d, "run.json"), "w"))
    extra = ["replicates", "ns_per_call_per_process"] if keep else ["replicates"]
    with open(os.path.join(d, "calls.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols + extra, restval="")
        w.writeheader()
        for mech, xs in points.items():
            n = len(xs)
            m = sum(xs) / n
            sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
            r = dict(mechanism=mech, threads=2, behaviour="spin", scope="same-process", placement="compact",
                     repeats=10 * n, calls_per_repeat=100, ns_per_call=m, ns_per_call_ci95=T975[n - 1] * sd / math.sqrt(n),
                     calls_per_s=1e9 / m, status="ok", replicates=n)
            if keep:
                r["ns_per_call_per_process"] = ";".join(f"{x:.3f}" for x in xs)
            w.writerow(r)

def procs(level, n, noise=0.03):
    return [level * (1 + noise * rng.gauss(0, 1)) for _ in range(n)]

a = {"shifted": procs(1000, 10), "same": procs(1000, 10)}
b = {"shifted": procs(1100, 10), "same": procs(1000, 10)}
folder("a", a)
folder("b", b)
folder("a-old", a, keep=False)
folder("b-old", b, keep=False)
# The same spread from 5 and from 40 processes a side.
folder("a5", {"m": procs(1000, 5)})
folder("b5", {"m": procs(1000, 5)})
folder("a40", {"m": procs(1000, 40)})
folder("b40", {"m": procs(1000, 40)})
# A planted regression: 8 of 10 processes 8% slower, two fast outliers
# that pull the mean 10% below A's.
folder("ra", {"m": procs(100, 10, 0.005)})
folder("rb", {"m": [108 * (1 + 0.005 * rng.gauss(0, 1)) for _ in range(8)] + [20.0, 20.0]})
PY
cell() { # cell CSV MECH COLUMN
	"$PY" -c 'import csv, sys
print(next((r[sys.argv[3]] for r in csv.DictReader(open(sys.argv[1])) if "mechanism=" + sys.argv[2] + " " in r["point"] + " "), "absent"))' "$@"
}
"$MBBENCH" compare "$TMP/a" "$TMP/b" --format csv >"$TMP/ab.csv" 2>"$TMP/ab.err"
[ "$(cell "$TMP/ab.csv" shifted test)" = mann-whitney ] && [ "$(cell "$TMP/ab.csv" shifted verdict)" = worse ] &&
	[ "$(cell "$TMP/ab.csv" shifted sig)" = '*' ]
ok $? "10 against 10 processes, 10% slower at 3% noise: Mann-Whitney flags it worse (p $(cell "$TMP/ab.csv" shifted p))"
[ "$(cell "$TMP/ab.csv" same test)" = mann-whitney ] && [ "$(cell "$TMP/ab.csv" same verdict)" = - ]
ok $? "the unchanged point beside it: tested the same way, not flagged (p $(cell "$TMP/ab.csv" same p))"
"$MBBENCH" compare "$TMP/a-old" "$TMP/b-old" --format csv >"$TMP/old.csv" &&
	[ "$(cell "$TMP/old.csv" shifted test)" = welch ] && [ "$(cell "$TMP/old.csv" shifted verdict)" = worse ]
ok $? "folders without the processes' values: Welch's t on the means and CIs, and the test says so"

"$MBBENCH" compare "$TMP/a5" "$TMP/b5" --format csv >"$TMP/5.csv" &&
	"$MBBENCH" compare "$TMP/a40" "$TMP/b40" --format csv >"$TMP/40.csv"
d5=$(cell "$TMP/5.csv" m detectable_pct) d40=$(cell "$TMP/40.csv" m detectable_pct)
"$PY" -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (1 < b < a < 20))' "$d5" "$d40"
ok $? "detectable_pct at 3% noise: $d5% with 5 processes a side, $d40% with 40"
"$MBBENCH" compare "$TMP/a" "$TMP/b" >"$TMP/ab.md" &&
	grep -qE '^\| mechanism=shifted .* \| worse \| mann-whitney \| secondary \| ≥ [0-9.]+% \|$' "$TMP/ab.md" &&
	"$MBBENCH" compare "$TMP/a" "$TMP/b" --format json | "$PY" -c '
import json, sys
p = json.load(sys.stdin)["comparisons"][0]["points"]
assert all(x["test"] == "mann-whitney" and x["detectable_pct"] > 0 for x in p), p'
ok $? "the human table says which test and what the point would see; JSON has both"

"$MBBENCH" compare "$TMP/ra" "$TMP/rb" --format csv >"$TMP/r.csv"
[ "$(cell "$TMP/r.csv" m verdict)" = mixed ] && [ "$(cell "$TMP/r.csv" m sig)" = '~' ]
ok $? "8 of 10 processes 8% slower, the mean 10% lower: not better but mixed ($(cell "$TMP/r.csv" m verdict), p $(cell "$TMP/r.csv" m p))"
done_testing
