#!/bin/sh
# SPDX-License-Identifier: MIT
# The statistics of the analysis (analysis/mbstats.py): every distribution
# and test from scipy.stats, none written by hand, and one line naming the
# package where it is missing; a proportion's Wilson interval; a bootstrap
# interval where Student's t would run below 0, and the report printing
# such intervals by their ends.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 5
src=${top_srcdir:-.}
export MBB_ANALYSIS="$src/analysis"

# No special function written by hand is left in the analysis.
hand=$(grep -lE '_ibeta|_betacf|lgamma|Lentz|continued fraction' "$src"/analysis/*.py "$src/analysis/compare" \
	"$src/analysis/report" "$src/analysis/advise" 2>/dev/null)
[ -z "$hand" ] && grep -q 'scipy.stats' "$src/analysis/mbresults.py"
ok $? "no hand-written special function in the analysis; scipy.stats is imported in mbresults.py (${hand:-none})"

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
from mbresults import merge_replicates
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
from mbresults import merge_replicates

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

# The report prints such an interval as its ends, and no proportion's
# beyond what it can be.
"$PY" - "$TMP" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
from mbresults import fmt_ci, ci_n
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
done_testing
