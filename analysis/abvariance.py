# SPDX-License-Identifier: MIT
"""Where an A/B's repetitions go (calibrate, after Kalibera and Jones,
"Rigorous benchmarking in reasonable time", ISMM 2013): the pooled score
of a run varies between runs (the drift of a whole sweep) and between the
processes inside a run; a run costs a fixed part (starting the sweep,
assembling its folder) and a part per process of every point. From the
variance the runs already carry and what they cost, the number of
processes per point (m) that gives the least time at the wanted power,
and the runs a side at that m.

A process index i of a run stands for one process of every pooled point
(each point's i-th process); its score is the mean log of those values,
so the scores of one run differ by process noise alone and the run means
by both. The one-way random-effects decomposition (the analysis of
variance's mean squares) splits them:
    var(a run's score at m processes) = s_run^2 + s_proc^2 / m.
A run's figure is the median of its processes; this takes it as their
mean, which understates the process part a little (the median of m has
a larger variance than the mean) and so leans to fewer processes.
"""
import csv
import json
import math
import os

from abdesign import HEADLINE, POOLED, POWER, is_headline, is_pooled, nearest_level, power
from mbresults import per_process

MOST_PROCESSES = 10
# The fewest: a run's figure is the median of its processes, which one
# process in five reading double does not move with three or more; and
# sweeps short enough for one process a point lose points: at `--budget
# 20` a point degraded in any one of 88 runs left the pooled line 3 of
# its 15 points (docs/FINDINGS.md, "What an A/B can see here").
LEAST_PROCESSES = 3


def run_processes(folder):
    """The pooled points' per-process values of one sweep folder:
    {(experiment, mechanism): [values in replicate order]}."""
    rows = {}
    for exp in POOLED:
        try:
            with open(os.path.join(folder, f"{exp}.csv"), newline="") as f:
                rows[exp] = list(csv.DictReader(f))
        except OSError:
            continue
    level = nearest_level(rows.get("distance", []))
    out = {}
    for exp, rs in rows.items():
        fig = HEADLINE[exp]
        for r in rs:
            if r.get("status") == "ok" and is_headline(exp, r, fig, level) and is_pooled(exp, r):
                v = [x for x in per_process(r, fig) if x is not None and x > 0]
                if v:
                    out[(exp, r["mechanism"])] = v
    return out


def run_cost(folder, wall):
    """(seconds of measuring, processes per point) of one sweep, from its
    run.json, and its whole time wall (measured by the caller)."""
    try:
        with open(os.path.join(folder, "run.json")) as f:
            j = json.load(f)
        return float(j["measured_s"]), int(j["replicates"]), float(wall)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def components(folders):
    """(s_run, s_proc, m, runs) of the pooled score over the sweeps in
    folders, or None where fewer than three runs share their points with
    two or more processes each."""
    per = [run_processes(f) for f in folders]
    per = [p for p in per if p]
    if len(per) < 3:
        return None
    # the points every run measured in two or more processes (a plan runs
    # its first point in one process only)
    keys = {k for k in set.intersection(*(set(p) for p in per)) if min(len(p[k]) for p in per) >= 2}
    if not keys:
        return None
    m = min(len(p[k]) for p in per for k in keys)
    scores = [[sum(math.log(p[k][i]) for k in keys) / len(keys) for i in range(m)] for p in per]
    n = len(scores)
    means = [sum(s) / m for s in scores]
    grand = sum(means) / n
    msw = sum((x - mu) ** 2 for s, mu in zip(scores, means) for x in s) / (n * (m - 1))
    msb = m * sum((mu - grand) ** 2 for mu in means) / (n - 1)
    return math.sqrt(max(0.0, (msb - msw) / m)), math.sqrt(msw), m, n


def costs(samples):
    """(fixed seconds a run, seconds a process of every point) from
    [(measured_s, replicates, wall)]: the median of each."""
    fixed = sorted(w - s for s, _, w in samples)
    per = sorted(s / max(1, r) for s, r, _ in samples)
    return max(0.5, fixed[len(fixed) // 2]), max(0.1, per[len(per) // 2])


def runs_for(sd, change, most=200):
    """The fewest pairs (2 at least) whose paired t sees change (a
    fraction) at 80% power for a pair difference of SD sd, or None beyond
    most: a bisection on abdesign.power."""
    delta = math.log1p(change)
    if power(delta, sd, most, paired=True) < POWER:
        return None
    lo, hi = 2, most
    while lo < hi:
        mid = (lo + hi) // 2
        if power(delta, sd, mid, paired=True) >= POWER:
            hi = mid
        else:
            lo = mid + 1
    return lo


def best_design(s_run, s_proc, c_run, c_proc, change, pair_factor=1.0):
    """The processes per point m (LEAST_PROCESSES..MOST_PROCESSES) and runs a side n
    that see change (a fraction) on the pooled line at 80% power in the
    least time, with that time for both sides: {"m", "n", "seconds",
    "m_continuous": Kalibera and Jones's unconstrained optimum}. pair_factor: the pair difference's SD over
    sqrt(2) x a run's SD (pairing's gain, 1 without it)."""
    best = None
    for m in range(LEAST_PROCESSES, MOST_PROCESSES + 1):
        sd_pair = pair_factor * math.sqrt(2.0 * (s_run ** 2 + s_proc ** 2 / m))
        n = runs_for(sd_pair, change)
        if n is None:
            continue
        t = 2 * n * (c_run + m * c_proc)
        if best is None or t < best["seconds"]:
            best = {"m": m, "n": n, "seconds": round(t)}
    if best is not None:
        best["m_continuous"] = (math.sqrt(c_run * s_proc ** 2 / (c_proc * s_run ** 2))
                                if s_run > 0 else float(MOST_PROCESSES))
    return best


def run_figures(folder):
    """{point: figure} of one sweep's pooled points, as compare takes a
    run's figure: the median of its processes where it has three or more,
    else the row's own figure."""
    out = {}
    for key, procs in run_processes(folder).items():
        if len(procs) >= 3:
            s = sorted(procs)
            out[key] = (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2
        else:
            out[key] = sum(procs) / len(procs)
    return out


def aa_splits(folders, pairs, splits, seed=1):
    """A/A on real runs: folders are plain runs in the order they were
    taken; runs 2j and 2j+1 make a pair. Each split draws `pairs` of those
    pairs at random and, in each, which run is "A" (a fair coin), and
    tests the pooled line as compare does (abdesign.pooled, paired t).
    Returns the splits' p values. The splits share runs: they show how the
    test's p values fall on this host's real pair differences, not
    `splits` independent A/As (those are len(folders) // (2 * pairs))."""
    import random
    from abdesign import pooled
    figs = [run_figures(f) for f in folders]
    have = [(figs[2 * j], figs[2 * j + 1]) for j in range(len(figs) // 2) if figs[2 * j] and figs[2 * j + 1]]
    if len(have) < pairs or pairs < 2:
        return []
    rng = random.Random(seed)
    ps = []
    for _ in range(splits):
        pick = rng.sample(have, pairs)
        flip = [rng.random() < 0.5 for _ in pick]
        a = [y if f else x for (x, y), f in zip(pick, flip)]
        b = [x if f else y for (x, y), f in zip(pick, flip)]
        res = pooled(a, b, paired=True)
        if res is not None and res.get("p") == res.get("p"):
            ps.append(res["p"])
    return ps
