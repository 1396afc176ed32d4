#!/bin/sh
# SPDX-License-Identifier: MIT
# compare --vs on runs taken in ABBA pairs (each run.json records its side
# and pair, as sweep --ab --ab-run writes it): run i of A is tested against
# run i of B, the paired t-test on the per-pair log ratios, for each point
# and for the pooled line, which then needs no margin; runs without
# positions (or whose positions do not match) are tested unpaired, and
# compare says which and why. The synthetic host drifts from one pair to
# the next by up to 4% (both runs of a pair alike), so pairing removes the
# drift: a 3% slowdown of the membarrier commands is found paired and not
# unpaired, an A/A is quiet either way. The test's p and interval are
# scipy.stats.ttest_rel's and ttest_ind's where no resolution floor binds.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 7

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, random, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables, processes, run_json
t = Tables(src)
rng = random.Random(17)
IPI = ("membarrier-global-expedited", "membarrier-private-expedited", "membarrier-private-expedited-rseq")
drift = [1 + 0.04 * rng.uniform(-1, 1) for _ in range(6)]

def run(name, side, pair, dr, slow, record=True):
    d = os.path.join(tmp, name)
    run_json(d, **({"ab": {"side": side, "pair": pair, "position": 0}} if record else {}))
    rows = []
    for i, m in enumerate(IPI):
        ns = [15000 * (1 + 0.1 * i) * dr * slow * (1 + 0.003 * rng.gauss(0, 1)) for _ in range(5)]
        mean, ci, per = processes(ns)
        rows.append(dict(mechanism=m, threads="2", behaviour="spin", scope="same-process", placement="compact",
                         cpus="0;1", oversubscribed="0", repeats="5", ns_per_call=mean, ns_per_call_ci95=ci,
                         ns_per_call_per_process=per, replicates="5"))
    t.write(d, "calls", rows, replicates=True)

for k, dr in enumerate(drift, 1):
    run(f"a{k}", "A", k, dr, 1.0)
    run(f"b{k}", "B", k, dr * (1 + 0.003 * rng.gauss(0, 1)), 1.03)
    run(f"c{k}", "B", k, dr * (1 + 0.003 * rng.gauss(0, 1)), 1.0)
    run(f"ua{k}", "A", k, dr, 1.0, record=False)
    run(f"ub{k}", "B", k, dr * (1 + 0.003 * rng.gauss(0, 1)), 1.03, record=False)
PY
ok $? "synthetic ABBA pairs written"
side() { s=; for k in 1 2 3 4 5 6; do s="$s $TMP/$1$k"; done; echo "$s"; }
# B's runs given in another order: compare puts them in pair order.
# shellcheck disable=SC2046
"$MBBENCH" compare $(side a) --vs $TMP/b6 $TMP/b5 $TMP/b4 $TMP/b1 $TMP/b2 $TMP/b3 --format json >"$TMP/p.json" 2>"$TMP/err" &&
	"$MBBENCH" compare $(side ua) --vs $(side ub) --format json >"$TMP/u.json" 2>>"$TMP/err" &&
	"$MBBENCH" compare $(side a) --vs $(side c) --format json >"$TMP/aa.json" 2>>"$TMP/err" &&
	"$MBBENCH" compare $(side a) --vs $(side ub) --format json >"$TMP/half.json" 2>>"$TMP/err" &&
	"$MBBENCH" compare $(side a) --vs $(side b) --format text >"$TMP/p.txt" 2>>"$TMP/err"
ok $? "the comparisons run ($(head -n 1 "$TMP/err"))"
"$PY" - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
p = json.load(open(f"{tmp}/p.json"))["comparisons"][0]
u = json.load(open(f"{tmp}/u.json"))["comparisons"][0]
pp, up = p["pooled"], u["pooled"]
print(f"# paired {pp['pct']:+.2f}% [{pp['lo']:+.2f}, {pp['hi']:+.2f}] {pp['verdict']}; "
      f"unpaired {up['pct']:+.2f}% [{up['lo']:+.2f}, {up['hi']:+.2f}] {up['verdict']}")
assert p["design"] == "paired" and pp["paired"] and pp["verdict"] == "worse" and pp["margin"] == 0, pp
assert all(x["test"] == "paired-runs" and x["verdict"] == "worse" for x in p["points"]), p["points"]
assert u["design"] == "unpaired" and "no A/B position" in u["unpaired_why"] and up["verdict"] == "-", u
assert all(x["test"] == "welch-runs" for x in u["points"]), u["points"]
assert pp["hi"] - pp["lo"] < (up["hi"] - up["lo"]) / 3, (pp, up)
PY
ok $? "a 3% slowdown on a host drifting 4% between pairs: found paired, not unpaired"
"$PY" - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
c = json.load(open(f"{tmp}/aa.json"))["comparisons"][0]
h = json.load(open(f"{tmp}/half.json"))["comparisons"][0]
assert c["design"] == "paired" and c["pooled"]["verdict"] == "-", c["pooled"]
assert not [x for x in c["points"] if x["verdict"] != "-"], c["points"]
assert h["design"] == "unpaired" and "no A/B position" in h["unpaired_why"], h["unpaired_why"]
PY
ok $? "paired A/A: no verdict; positions on one side only: unpaired, said"
grep -q 'ABBA pairs, the paired t-test' "$TMP/p.txt"
ok $? "the pooled line says the design ($(grep -m 1 -o 'membarrier commands: [^(]*' "$TMP/p.txt"))"
"$PY" - "${top_srcdir:-.}" <<'PY'
import math, os, random, sys
sys.path.insert(0, os.path.join(sys.argv[1], "analysis"))
from scipy import stats
from abdesign import diff_test
rng = random.Random(3)
for _ in range(20):
    a = [rng.gauss(0, 1) for _ in range(7)]
    b = [x + rng.gauss(0.3, 0.5) for x in a]
    d, h, p, df = diff_test(a, b, 0.1, paired=True)
    r = stats.ttest_rel(b, a)
    ci = r.confidence_interval(0.9)
    assert math.isclose(p, r.pvalue, rel_tol=1e-9) and math.isclose(d - h, ci.low, rel_tol=1e-9, abs_tol=1e-12), (p, r)
    d, h, p, df = diff_test(a[:5], b, 0.05)
    r = stats.ttest_ind(b, a[:5], equal_var=False)
    assert math.isclose(p, r.pvalue, rel_tol=1e-9), (p, r)
PY
ok $? "the paired and Welch tests are scipy.stats.ttest_rel's and ttest_ind's where no floor binds"
"$PY" - "${top_srcdir:-.}" <<'PY'
import math, os, random, sys
sys.path.insert(0, os.path.join(sys.argv[1], "analysis"))
from abdesign import pooled
# 400 simulated A/As of 8 ABBA pairs on a host that drifts slowly (a
# random walk of 1% a run) with 1.5% of run noise and 15 points a run that
# share it: the paired pooled line's p below 0.05 in about 5% of them.
rng = random.Random(41)
low = 0
for _ in range(400):
    level, per_a, per_b = 0.0, [], []
    for k in range(8):
        pair = []
        for _ in range(2):
            level += rng.gauss(0, 0.01)
            run = level + rng.gauss(0, 0.015)
            pair.append({i: math.exp(9 + 0.1 * i + run + rng.gauss(0, 0.005)) for i in range(15)})
        a, b = pair if k % 2 == 0 else pair[::-1]
        per_a.append(a)
        per_b.append(b)
    low += pooled(per_a, per_b, paired=True)["p"] < 0.05
print(f"# paired A/A: p below 0.05 in {low} of 400")
assert 8 <= low <= 32, low
PY
ok $? "400 simulated A/As of 8 ABBA pairs on a drifting host: the paired pooled p below 0.05 in 2% to 8%"
done_testing
