#!/bin/sh
# SPDX-License-Identifier: MIT
# Where an A/B's repetitions go (analysis/abvariance.py, calibrate's
# design line): on synthetic runs whose pooled score varies by a known SD
# between runs and another between the processes of a run, the
# random-effects split recovers both; the least-time design takes the
# fewest processes a point it allows (3, for a robust median) where runs
# are cheap and the run's drift dominates, and more where a run's fixed
# cost is high and its processes noisy (as the closed form
# sqrt(c_run s_proc^2 / (c_proc s_run^2)) says); its runs a
# side agree with abdesign's power; and A/A splits of runs with no change
# give p below 0.05 about 5% of the time.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 5

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import math, os, random, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
sys.path.insert(0, os.path.join(src, "analysis"))
from synth import Tables, processes, run_json
t = Tables(src)
rng = random.Random(5)
IPI = ("membarrier-global-expedited", "membarrier-private-expedited", "membarrier-private-expedited-rseq")
for k in range(40):
    d = os.path.join(tmp, f"r{k}")
    run_json(d, measured_s=20.0, replicates=5)
    drift = rng.gauss(0, 0.05)	# s_run 0.05 on every point of the run
    rows = []
    for i, m in enumerate(IPI):
        # a process's log figure: SD 0.06 per point, so 0.06 / sqrt(3)
        # = 0.0346 for the score (the mean of the three points' logs)
        ns = [15000 * (1 + 0.1 * i) * math.exp(drift + rng.gauss(0, 0.06)) for _ in range(5)]
        mean, ci, per = processes(ns)
        rows.append(dict(mechanism=m, threads="2", behaviour="spin", scope="same-process", placement="compact",
                         cpus="0;1", oversubscribed="0", repeats="5", ns_per_call=mean, ns_per_call_ci95=ci,
                         ns_per_call_per_process=per, replicates="5"))
    t.write(d, "calls", rows, replicates=True)
PY
ok $? "40 synthetic runs written (s_run 0.05, s_proc 0.035 on the pooled score)"

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "analysis"))
from abvariance import components, costs, run_cost
s_run, s_proc, m, n = components([os.path.join(tmp, f"r{k}") for k in range(40)])
print(f"# s_run {s_run:.4f} (0.05), s_proc {s_proc:.4f} (0.0346), {m} processes, {n} runs")
assert m == 5 and n == 40, (m, n)
assert 0.035 <= s_run <= 0.065 and 0.029 <= s_proc <= 0.041, (s_run, s_proc)
c = run_cost(os.path.join(tmp, "r0"), 24.0)
assert c == (20.0, 5, 24.0), c
assert costs([c, (10.0, 2, 13.0), (30.0, 5, 35.0)]) == (4.0, 5.0), costs([c, (10.0, 2, 13.0), (30.0, 5, 35.0)])
assert components([os.path.join(tmp, f"r{k}") for k in range(2)]) is None
PY
ok $? "the random-effects split recovers the run and process SDs"

"$PY" - "${top_srcdir:-.}" <<'PY'
import math, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "analysis"))
from abvariance import best_design, runs_for
from abdesign import runs_needed
cheap = best_design(0.05, 0.035, 3.0, 4.5, 0.05)
costly = best_design(0.01, 0.08, 60.0, 1.0, 0.05)
print(f"# drift dominates, runs cheap: {cheap}; noisy processes, costly runs: {costly}")
assert cheap["m"] == 3 and cheap["m_continuous"] < 1.5, cheap
assert costly["m"] >= 8 and abs(costly["m"] - min(10, costly["m_continuous"])) <= 2, costly
assert cheap["seconds"] == 2 * cheap["n"] * (3.0 + cheap["m"] * 4.5), cheap
for sd in (0.02, 0.04, 0.07):
    assert runs_for(sd, 0.05, most=40) == runs_needed(sd, 0.05, paired=True), sd
assert runs_for(0.5, 0.01) is None
PY
ok $? "the least-time design: the fewest processes (3) where runs are cheap, many where they cost; runs a side as abdesign's"

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "analysis"))
from abvariance import aa_splits
ps = aa_splits([os.path.join(tmp, f"r{k}") for k in range(40)], 10, 300, seed=2)
share = sum(p < 0.05 for p in ps) / len(ps)
print(f"# A/A: {len(ps)} splits of 10 pairs, {100 * share:.1f}% below 0.05")
assert len(ps) == 300 and 0.01 <= share <= 0.11, share
assert aa_splits([os.path.join(tmp, "r0"), os.path.join(tmp, "r1")], 2, 5) == []
PY
ok $? "A/A splits of unchanged runs: p below 0.05 near 5% of the time"

# The tools run python3 -S (no site-packages until mbstats adds them):
# abdesign.detectable, the first scipy user of a calibrate that had not
# yet asked for scipy.stats, must still find scipy.optimize; and two runs
# a side at a false-discovery level (t's critical value near 55 on 1 df)
# give a detectable change, not brentq's "f(a) and f(b) must have
# different signs".
"$PY" -S - "${top_srcdir:-.}" <<'PY'
import math, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "analysis"))
from abdesign import detectable
d = detectable(0.0798, 2, 0.0115, paired=True)
print(f"# detectable at 2 pairs, alpha 0.0115: {100 * d:.0f}%; at 8 pairs, alpha 0.05: {100 * detectable(0.03, 8, paired=True):.1f}%")
assert d == d and d > 1, d
assert 0.02 < detectable(0.03, 8, paired=True) < 0.05
PY
ok $? "detectable: scipy found without site-packages, a bracket wide enough for 1 df"
done_testing
