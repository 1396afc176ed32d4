#!/bin/sh
# SPDX-License-Identifier: MIT
# compare --vs takes a point's direction from the change its test measured
# (the ratio of the geometric means of the runs' figures, each run's figure
# the median of its processes), never from the sides' arithmetic means: A's
# 20 runs are 10 of processes 1,1,1,1000,1000 (median 1, mean 400.6) and 10
# of 100 x5; B's 20 runs are 50 x5. The test sees B/A 5.0 (50 against the
# geometric mean 10), so the point is worse, as the pooled line says; the
# means (250 against 50) would call it better.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 2

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables, processes, run_json
t = Tables(src)

def run(name, procs):
    d = os.path.join(tmp, name)
    run_json(d)
    m, ci, per = processes(procs)
    t.write(d, "calls", [dict(mechanism="membarrier-private-expedited", threads="2", behaviour="spin",
                              scope="same-process", placement="compact", cpus="0;1", oversubscribed="0",
                              repeats="5", ns_per_call=m, ns_per_call_ci95=ci, replicates="5",
                              ns_per_call_per_process=per)], replicates=True)

for k in range(10):
    run(f"a{k}", [1, 1, 1, 1000, 1000])
    run(f"a{k + 10}", [100] * 5)
for k in range(20):
    run(f"b{k}", [50] * 5)
PY
ok $? "synthetic folders written"

A= B=
for k in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do A="$A $TMP/a$k" B="$B $TMP/b$k"; done
# shellcheck disable=SC2086
"$MBBENCH" compare $A --vs $B --format json >"$TMP/c.json" 2>"$TMP/err"
"$PY" - "$TMP/c.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
p = next(x for x in c["points"] if x["figure"] == "ns_per_call")
print(f"# B/A {p['ratio']:.2f} [{p['ratio_low']:.2f}, {p['ratio_high']:.2f}] p {p['p']:.2g}: {p['verdict']}; "
      f"pooled {c['pooled']['pct']:+.0f}% {c['pooled']['verdict']}")
assert 4.9 < p["ratio"] < 5.1 and p["ratio_low"] > 1, p
assert p["verdict"] == "worse" and c["pooled"]["verdict"] == "worse", (p["verdict"], c["pooled"])
PY
ok $? "B/A 5.0 by the test is worse, as the pooled line says ($(head -n 1 "$TMP/err"))"
done_testing
