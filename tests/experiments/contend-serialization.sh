#!/bin/sh
# SPDX-License-Identifier: MIT
# contend's serialization factor: C callers in processes over one caller, as
# the ratio of the aggregates (with its CI), left empty with the reason on an
# oversubscribed point (a synthetic 2-CPU host), without spinners or without
# a C=1 point; the sweep's replicate merge takes it as a ratio of the merged
# means; the report's one sentence says it or why this host cannot.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}

need_python
need_mechanism membarrier-private-expedited
plan 6
export MBB_ANALYSIS="$src/analysis"

# 4 CPUs as far as placement knows: 1 and 2 callers with a spinner each fit.
MBBENCH_SYNTHETIC="pack:1 core:4 pu:1" "$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited \
	--mode both --callers 1,2 --spinners 1 --duration 0.05 --repeat 2 --format csv \
	>"$TMP/fit.csv" 2>"$TMP/err"
"$PY" - "$TMP/fit.csv" <<'PY'
import csv, math, sys
rows = {(r["mode"], r["callers"]): r for r in csv.DictReader(open(sys.argv[1]))}
assert all(r["status"] == "ok" for r in rows.values()), rows
p1, p2 = rows[("processes", "1")], rows[("processes", "2")]
assert p1["oversubscribed"] == "0" and p2["oversubscribed"] == "0", (p1, p2)
a1, a2 = float(p1["aggregate_calls_per_s"]), float(p2["aggregate_calls_per_s"])
h1, h2 = float(p1["aggregate_calls_per_s_ci95"]), float(p2["aggregate_calls_per_s_ci95"])
f = float(p2["serialization_factor"])
assert abs(f / (a2 / a1) - 1) < 1e-3, (f, a2 / a1)
h = f * math.sqrt((h2 / a2) ** 2 + (h1 / a1) ** 2)
assert abs(float(p2["serialization_factor_ci95"]) / h - 1) < 1e-3, (p2["serialization_factor_ci95"], h)
assert p1["serialization_factor"] == "1" and p1["serialization_factor_ci95"] == "", p1
assert p1["serialization_skip_reason"] == p2["serialization_skip_reason"] == "", (p1, p2)
for c in "12":  # threads mode has none, and no reason
    t = rows[("threads", c)]
    assert t["serialization_factor"] == t["serialization_skip_reason"] == "", t
PY
ok $? "processes: the factor is aggregate(C=2) / aggregate(C=1), its CI from both; 1 at C=1; none in threads mode"

# 2 CPUs: 2 callers with a spinner each are 4 threads; C=1 still fits.
MBBENCH_SYNTHETIC="pack:1 core:2 pu:1" "$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited \
	--mode processes --callers 2,1 --spinners 1 --duration 0.05 --repeat 2 --format csv \
	>"$TMP/over.csv" 2>"$TMP/err"
"$PY" - "$TMP/over.csv" <<'PY'
import csv, sys
rows = {r["callers"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert len(rows) == 2, rows
two = rows["2"]
assert two["status"] == "ok" and two["oversubscribed"] == "1", two
assert two["serialization_factor"] == "" and two["serialization_factor_ci95"] == "", two
assert two["serialization_skip_reason"].startswith("oversubscribed: 4 threads"), two
assert "on 2 CPUs" in two["serialization_skip_reason"] and "4 CPUs" in two["serialization_skip_reason"], two
assert rows["1"]["serialization_factor"] == "1", rows["1"]
PY
ok $? "oversubscribed point: the row is measured, its factor empty with the reason (4 threads on 2 CPUs)"

MBBENCH_SYNTHETIC="pack:1 core:4 pu:1" "$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited \
	--mode processes --callers 2 --spinners 1 --duration 0.05 --repeat 1 --format csv >"$TMP/no1.csv" 2>"$TMP/err" &&
	MBBENCH_SYNTHETIC="pack:1 core:4 pu:1" "$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited \
		--mode processes --callers 1,2 --spinners 0 --duration 0.05 --repeat 1 --format csv >"$TMP/s0.csv" 2>>"$TMP/err"
"$PY" - "$TMP/no1.csv" "$TMP/s0.csv" <<'PY'
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
assert r["serialization_factor"] == "" and "no C=1 point" in r["serialization_skip_reason"], r
for r in csv.DictReader(open(sys.argv[2])):
    assert r["serialization_factor"] == "" and r["serialization_skip_reason"].startswith("no spinners"), r
PY
ok $? "no C=1 point, or no spinners: no factor, and the reason"

"$PY" - <<'PY'
import math, os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
from mbmerge import merge_replicates
def row(c, agg, ci, f, fci="", why="", mode="processes"):
    return {"mechanism": "m", "mode": mode, "callers": str(c), "spinners": "1", "repeats": "3",
            "aggregate_calls_per_s": str(agg), "aggregate_calls_per_s_ci95": str(ci),
            "serialization_factor": f, "serialization_factor_ci95": fci,
            "serialization_skip_reason": why, "status": "ok"}
# replicate A: 100 -> 150 (1.5); B: 300 -> 300 (1.0). The mean of the
# ratios is 1.25; the ratio of the merged means is 225 / 200.
m = {(r["mode"], r["callers"]): r for r in merge_replicates("contend", [
    [row(1, 100, 5, "1"), row(2, 150, 5, "1.5", "0.1"), row(2, 90, 1, "", mode="threads")],
    [row(1, 300, 5, "1"), row(2, 300, 5, "1", "0.05"), row(2, 95, 1, "", mode="threads")]])}
one, two = m[("processes", "1")], m[("processes", "2")]
assert one["serialization_factor"] == "1" and one["serialization_factor_ci95"] == "", one
f = float(two["serialization_factor"])
assert abs(f - 1.125) < 1e-6, two
a1, a2 = 200, 225
h1, h2 = float(one["aggregate_calls_per_s_ci95"]), float(two["aggregate_calls_per_s_ci95"])
assert abs(float(two["serialization_factor_ci95"]) - f * math.sqrt((h2 / a2) ** 2 + (h1 / a1) ** 2)) < 1e-6, two
assert m[("threads", "2")]["serialization_factor"] == "", m
# a skipped factor stays skipped, with its reason
s = merge_replicates("contend", [[row(1, 100, 5, "1"), row(2, 150, 5, "", why="oversubscribed: x")]] * 2)
assert s[1]["serialization_factor"] == "" and s[1]["serialization_skip_reason"] == "oversubscribed: x", s
PY
ok $? "replicate merge: the factor is the ratio of the merged means (1.125, not the mean ratio 1.25), CI from theirs"

# report's contend section (analysis/rpt_experiments.py)
"$PY" - <<'PY'
import os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
import rpt_experiments as rep
def row(m, c, agg, f="", fci="", why=""):
    return {"mechanism": m, "mode": "processes", "callers": str(c), "spinners": "1", "repeats": "10",
            "oversubscribed": "0", "aggregate_calls_per_s": str(agg), "aggregate_calls_per_s_ci95": str(agg / 100),
            "serialization_factor": f, "serialization_factor_ci95": fci, "serialization_skip_reason": why,
            "status": "ok"}
pe, rc = "membarrier-private-expedited", "membarrier-private-expedited-rseq-cpu"
said = "\n".join(rep.section_contend([row(pe, 1, 1e5, "1"), row(pe, 4, 1.1e5, "1.1", "0.05"),
                                      row(rc, 1, 2e5, "1"), row(rc, 4, 7e5, "3.5", "0.2")]))
line = [l for l in said.splitlines() if l.startswith("Serialization factor")]
assert len(line) == 1 and pe + " 1.10 ± 0.05 at C=4" in line[0] and rc + " 3.50 ± 0.20 at C=4" in line[0], said
why = "oversubscribed: 4 threads (callers and the spinners their barriers target) on 2 CPUs"
said = "\n".join(rep.section_contend([row(pe, 1, 1e5, "1"), row(pe, 2, 1e5, why=why),
                                      row(rc, 1, 2e5, "1"), row(rc, 2, 2e5, why=why)]))
assert "cannot be told on this host: " + why in said, said
PY
ok $? "report: one sentence with both factors, or why this host cannot tell them"

# threads-only runs, as before: no sentence
"$PY" - <<'PY'
import os, sys
sys.path.insert(0, os.environ["MBB_ANALYSIS"])
import rpt_experiments as rep
r = {"mechanism": "signal", "mode": "threads", "callers": "2", "repeats": "10", "oversubscribed": "0",
     "aggregate_calls_per_s": "1000", "aggregate_calls_per_s_ci95": "10", "status": "ok"}
assert not any("Serialization" in l for l in rep.section_contend([r])), rep.section_contend([r])
PY
ok $? "report: no sentence where contend ran no process-mode membarrier points"
