#!/bin/sh
# SPDX-License-Identifier: MIT
# compare --vs tests a signed figure (ns_over_floor, which crosses 0) and a
# count (disturb's IPIs per barrier) with the run as the unit, as it tests
# a cost: on the runs' figures, never on the processes of every run pooled
# (which takes a run's shared drift for many observations). An A/A of 5
# runs a side whose runs drift together (processes tight within a run):
# the processes as the unit give p below 0.01, the runs give no verdict.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 4

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, random, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables, processes, run_json
t = Tables(src)
rng = random.Random(5)
# each run's drift: A's mean +1.2%, B's -1.2%, each run within 3.5%
drift = {"a": (1.035, 0.995, 1.03, 0.99, 1.01), "b": (0.965, 1.005, 0.97, 1.01, 0.99)}
for side, ds in drift.items():
    for k, dr in enumerate(ds):
        d = os.path.join(tmp, f"{side}{k}")
        run_json(d)
        ns = [15000 * dr * (1 + 0.002 * rng.gauss(0, 1)) for _ in range(5)]
        m, ci, per = processes(ns)
        nm, nci, nper = processes([v - 15000 for v in ns])
        t.write(d, "calls", [dict(mechanism="membarrier-private-expedited", threads="2", behaviour="spin",
                                  scope="same-process", placement="compact", cpus="0;1", oversubscribed="0",
                                  repeats="5", ns_per_call=m, ns_per_call_ci95=ci, ns_per_call_per_process=per,
                                  ns_over_floor=nm, ns_over_floor_ci95=nci, ns_over_floor_per_process=nper,
                                  replicates="5")], replicates=True)
        ipb = [1 + 10 * (dr - 1) + 0.005 * rng.gauss(0, 1) for _ in range(5)]
        m, ci, per = processes(ipb, 4)
        t.write(d, "disturb", [dict(mechanism="membarrier-private-expedited", round="0", role="self-spin",
                                    cpu="1", phase="storm", ipis_per_barrier=m, ipis_per_barrier_ci95=ci,
                                    ipis_per_barrier_per_process=per, replicates="5")], replicates=True)
PY
ok $? "synthetic folders written"
A="$TMP/a0 $TMP/a1 $TMP/a2 $TMP/a3 $TMP/a4" B="$TMP/b0 $TMP/b1 $TMP/b2 $TMP/b3 $TMP/b4"
# shellcheck disable=SC2086
"$MBBENCH" compare $A --vs $B --format json >"$TMP/c.json" 2>"$TMP/err"
ok $? "compare --vs runs ($(head -n 1 "$TMP/err"))"
"$PY" - "$TMP" <<'PY'
import csv, json, sys
from scipy.stats import mannwhitneyu
tmp = sys.argv[1]
c = json.load(open(f"{tmp}/c.json"))["comparisons"][0]
for fig, exp in (("ns_over_floor", "calls"), ("ipis_per_barrier", "disturb")):
    procs = {s: [float(v) for k in range(5) for r in csv.DictReader(open(f"{tmp}/{s}{k}/{exp}.csv"))
                 for v in r[f"{fig}_per_process"].split(";")] for s in "ab"}
    mw = mannwhitneyu(procs["a"], procs["b"]).pvalue
    p = next(x for x in c["points"] if x["figure"] == fig)
    print(f"# {fig}: processes as the unit p {mw:.2g}; compare: {p['test']} p {p['p']:.2g}, {p['verdict']}")
    assert mw < 0.01, (fig, mw)
    assert p["test"].endswith("runs") and p["p"] > 0.05 and p["verdict"] == "-", (fig, p)
PY
ok $? "a signed figure and a count: the runs the unit, no verdict where the processes would give one"
"$PY" - "$TMP/c.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
p = next(x for x in c["points"] if x["figure"] == "ns_over_floor")
# the change of a signed figure: B - A over |A|, an interval about the runs' mean difference
assert p["change_lo"] < 0 < p["change_hi"], p
PY
ok $? "the signed figure's interval is the runs' difference's, and holds no change"
done_testing
