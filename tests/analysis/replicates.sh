#!/bin/sh
# SPDX-License-Identifier: MIT
# Points measured in several processes (replicates): the sweep's merge of
# their rows (mean, a CI from their spread, the within-process CI kept, counts
# added, a failure kept), compare's test on replicate means holding its
# nominal false-alarm rate on folders whose processes differ more than their
# repeats say (where a test on the repeats does not), and a regression gate
# that fires only when the whole CI of the change lies beyond it.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 7
export MBB_ANALYSIS="${top_srcdir:-.}/analysis"

"$PY" - <<'PY'
import math, os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
from mbmerge import merge_replicates
from mbstats import t_quantile_975
row = lambda ns, ci, st="ok", reps="1;2": {
    "mechanism": "m", "threads": "2", "behaviour": "spin", "scope": "same-process", "placement": "compact",
    "repeats": "2", "calls_per_repeat": "100", "ns_per_call": str(ns), "ns_per_call_ci95": str(ci),
    "calls_per_s": str(1e9 / ns), "calls_per_s_ci95": "1", "ns_per_repeat": reps, "status": st}
m = merge_replicates("calls", [[row(100, 2)], [row(110, 4)], [row(120, 6)]])
assert len(m) == 1, m
r = m[0]
h = t_quantile_975(2) * 10 / math.sqrt(3)
assert r["replicates"] == "3" and r["repeats"] == "6", r
assert abs(float(r["ns_per_call"]) - 110) < 1e-6, r
assert abs(float(r["ns_per_call_ci95"]) - h) < 1e-3 * h, (r["ns_per_call_ci95"], h)
assert abs(float(r["ns_per_call_ci95_within"]) - 4) < 1e-9, r
assert abs(float(r["calls_per_s"]) * 110 / 1e9 - 1) < 1e-6, r      # the mean cost as a rate
assert r["ns_per_repeat"] == "1;2;1;2;1;2", r
f = merge_replicates("calls", [[row(100, 2)], [row(500, 2, "failed")], [row(120, 6)]])
assert f[0]["status"] == "failed" and f[0]["ns_per_call"] == "500", f
# An interval's end never below what its column holds: a rate's 0.
lit = lambda v: {"pairing": "p", "forbidden_per_million": str(v), "forbidden_per_million_lo95": "0",
                 "forbidden_per_million_hi95": str(v + 1), "status": "ok"}
g = merge_replicates("litmus", [[lit(0)], [lit(0)], [lit(30)]])[0]
assert float(g["forbidden_per_million_lo95"]) == 0 and float(g["forbidden_per_million_hi95"]) > 10, g
# A histogram: counts added, buckets in order, fractions from the sums.
hb = lambda lo, n: {"mechanism": "m", "threads": "2", "bucket_lo_ns": str(lo), "bucket_hi_ns": str(lo),
                    "count": str(n), "cumulative_fraction": "0"}
hm = merge_replicates("latency-histogram", [[hb(10, 1), hb(30, 1)], [hb(20, 2)]])
assert [(r["bucket_lo_ns"], r["count"], r["cumulative_fraction"]) for r in hm] == \
    [("10", "1", "0.25"), ("20", "2", "0.75"), ("30", "1", "1")], hm
PY
ok $? "merge: mean of the processes, CI from their spread (t over 3), within-process CI kept, counts added, rate of the mean, a failed replicate kept"

# Folders of 200 unchanged points whose processes differ by 5% while each
# one's repeats agree to 1%: one side measured in 3 processes per point,
# the other as before, in one process per point.
"$PY" - "$TMP" <<'PY'
import json, math, os, random, sys
tmp = sys.argv[1]
rng = random.Random(11)
cols = ("mechanism,threads,behaviour,scope,placement,cpus,oversubscribed,repeats,calls_per_repeat,"
        "ns_per_call,ns_per_call_stddev,ns_per_call_ci95,calls_per_s,calls_per_s_ci95,cv,status,skip_reason")
t = {2: 4.303, 9: 2.262}

def process(level):
    p = level * (1 + 0.05 * rng.gauss(0, 1))        # this process's own level
    xs = [p * (1 + 0.01 * rng.gauss(0, 1)) for _ in range(10)]
    m = sum(xs) / 10
    return m, t[9] * math.sqrt(sum((x - m) ** 2 for x in xs) / 9) / math.sqrt(10)

def folder(name, k, shift=lambda i: 1.0):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False,
               "points_planned": 1, "points_done": 1, "points_failed": [],
               "info": {"host": {"hostname": "h", "kernel_release": "6.1"}},
               "points": [{"version": "0.1.0", "end": "2026-12-05T00:00:00Z"}]},
              open(os.path.join(d, "run.json"), "w"))
    rows = [cols + (",replicates,ns_per_call_ci95_within" if k > 1 else "")]
    for i in range(200):
        ps = [process(1000.0 * shift(i)) for _ in range(k)]
        m = sum(p[0] for p in ps) / k
        if k > 1:
            sd = math.sqrt(sum((p[0] - m) ** 2 for p in ps) / (k - 1))
            ci, extra = t[k - 1] * sd / math.sqrt(k), f",{k},{sum(p[1] for p in ps) / k:.4f}"
        else:
            ci, extra = ps[0][1], ""
        rows.append(f"m{i},1,spin,same-process,compact,0,0,10,1000,{m:.4f},0,{ci:.4f},{1e9 / m:.1f},0,0,ok,{extra}")
    open(os.path.join(d, "calls.csv"), "w").write("\n".join(rows) + "\n")

folder("r1", 3)
folder("r2", 3)
folder("o1", 1)
folder("o2", 1)
folder("worse", 3, shift=lambda i: 1.3 if i < 20 else 1.0)
PY
pflag() { # CSV: how many points have p < 0.05 before the correction
	"$PY" -c 'import csv, sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["p"] and float(r["p"]) < 0.05))' "$1"
}
"$MBBENCH" compare "$TMP/r1" "$TMP/r2" --format csv >"$TMP/r.csv" 2>"$TMP/e" &&
	"$MBBENCH" compare "$TMP/o1" "$TMP/o2" --format csv >"$TMP/o.csv" 2>>"$TMP/e"
nr=$(pflag "$TMP/r.csv") no=$(pflag "$TMP/o.csv")
[ "$nr" -le 20 ] && [ "$no" -ge 100 ]
ok $? "200 unchanged points, processes 5% apart: p < 0.05 on $nr with 3 processes a point (nominal 10), on $no tested on one process's repeats"
"$MBBENCH" compare "$TMP/r1" "$TMP/r2" >"$TMP/r.md" 2>&1 && grep -q '^Tested on the replicate means' "$TMP/r.md" &&
	"$MBBENCH" compare "$TMP/o1" "$TMP/o2" >"$TMP/o.md" 2>&1 && grep -q 'Tested on repeats inside one process' "$TMP/o.md"
ok $? "compare says which samples it tested on"

"$MBBENCH" compare "$TMP/r1" "$TMP/r2" --fail-on-regression 5 >/dev/null 2>"$TMP/g.err"
rc=$?
[ "$rc" -eq 0 ]
ok $? "--fail-on-regression 5 on an unchanged pair: exit $rc ($(head -c 200 "$TMP/g.err"))"
# The default correction is Benjamini-Hochberg: with Holm over 200 points,
# 3 processes a point find a 30% change on few or none of the 20 points it
# touches (docs/FINDINGS.md gives the numbers on a real host).
"$MBBENCH" compare "$TMP/r1" "$TMP/worse" --fail-on-regression 5 >/dev/null 2>"$TMP/w.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q 'worse by' "$TMP/w.err"
ok $? "--fail-on-regression 5 on 20 points 30% slower, default correction: exit $rc ($(head -c 200 "$TMP/w.err"))"
# flagged_worse: how many rows of compare's CSV on stdin are significant and worse
flagged_worse() { csv_cols - sig verdict | awk -F'\t' '$1 == "*" && $2 == "worse" { n++ } END { print n + 0 }'; }
bh=$("$MBBENCH" compare "$TMP/r1" "$TMP/worse" --format csv | flagged_worse)
holm=$("$MBBENCH" compare "$TMP/r1" "$TMP/worse" --format csv --correction holm | flagged_worse)
[ "$bh" -ge 1 ] && [ "$holm" -lt "$bh" ]
ok $? "the 20 slower points: the default (Benjamini-Hochberg) finds $bh, Holm $holm"
"$MBBENCH" compare "$TMP/r1" "$TMP/worse" --fail-on-regression 40 >/dev/null 2>"$TMP/w40.err"
rc=$?
[ "$rc" -eq 0 ]
ok $? "--fail-on-regression 40 on the same 30% change: the CI of the change does not lie beyond 40%: exit $rc"
done_testing
