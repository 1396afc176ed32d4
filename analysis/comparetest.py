# SPDX-License-Identifier: MIT
"""compare's test of one figure of one point (test_figure): which test
its samples allow, the change's interval from that same test at 1 -
--alpha, the direction that test measured, and the smallest change it
could have seen. With several runs a side (--vs) the run is the unit,
paired where the runs were taken in ABBA pairs (abdesign.diff_test); a
side's readings are never taken as more exact than their resolution
(abruns.half_resolution). The statistics are scipy.stats' (mbstats,
abdesign); compare judges the verdicts from what this leaves in the row.
"""
import math

from mbresults import num, per_process, reaches
from mbstats import (MIN_RANK_SAMPLES, detectable_change, mann_whitney_p, mean_sd, median, same_direction,
                     sd_from_ci, welch_ci, welch_p)
from abdesign import (hodges_lehmann, is_pooled, pair_sd, resolution_sd, run_diff, run_test, within_sd)
from abruns import ci_key as _ci, half_resolution


def n_of(row):
    """The samples behind a row's CI: the runs of a side merged with --vs,
    else the processes it was measured in (replicates), else its repeats
    inside one process (a folder measured before replicates)."""
    if row.get("_merged"):
        return num(row.get("repeats", "nan"))
    if num(row.get("replicates", "nan")) >= 2:
        return num(row["replicates"])
    return num(row.get("repeats", "nan"))


def samples(row, col):
    """The values a point's rank test is done on: each process's
    (COL_per_process of a folder measured with replicates; for a side
    merged with --vs, the processes of all its runs, so that the drift
    between runs is in the sample and the process stays the unit), else
    each run's figure of a side merged with --vs; [] for neither."""
    if row.get("_merged"):
        return row.get(f"_procs:{col}") or row.get(f"_runs:{col}", [])
    return per_process(row, col)


def _spread(xs, ci, n, half=0.0):
    """A side's standard deviation and count for the detectable change:
    its values' where it has them, else from its CI half-width; never
    below what its resolution (+-half) leaves the mean's standard error."""
    sd, n = (mean_sd(xs)[1], len(xs)) if len(xs) >= 2 else (sd_from_ci(ci, n), n)
    return max(sd, resolution_sd(half) * math.sqrt(n)) if n == n and n >= 1 else sd, n


def unit_of(row):
    if row.get("_merged"):
        return "runs"
    return "processes" if num(row.get("replicates", "nan")) >= 2 else "repeats"


def _half(exp, col, kind, row, v):
    """How far a side's reading of col can be off at the least (its
    resolution; abruns.half_resolution), in its unit."""
    h = half_resolution(exp, col, kind, v, None if row.get("_merged") else row.get(col))
    return max(h, row.get(f"_half:{col}", 0.0))


def _gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs and min(xs) > 0 else math.nan


def by_boot(xs, groups):
    """A side's run figures, one per boot: the geometric mean of each
    boot's runs (the mean where one is not above 0)."""
    out = []
    for g in groups:
        v = [xs[i] for i in g if i < len(xs)]
        if v:
            out.append(_gmean(v) if min(v) > 0 else sum(v) / len(v))
    return out


def test_figure(r, exp, col, kind, a, b, opts, pool):
    """One figure of one point: its test, the change's interval at
    1 - alpha from that test, the direction that test measured (_up) and
    the smallest change it could have seen, into r. With several runs a
    side (--vs) the run is the unit for every figure, a cost, a signed
    figure or a count: the paired t-test on the per-pair differences where
    the runs were taken in ABBA pairs, else Welch's t; never the processes
    of all runs pooled."""
    va, vb = r["a"], r["b"]
    xa, xb = samples(a, col), samples(b, col)
    runs_a, runs_b = a.get(f"_byrun:{col}", []), b.get(f"_byrun:{col}", [])
    all_a, all_b = runs_a, runs_b	# every run, for the pooled score (which takes the boots itself)
    if opts.boot_groups and runs_a and runs_b:
        # Runs nested in boots: each boot's runs one figure (their
        # geometric mean, or mean where one is not above 0), the boot the unit.
        runs_a, runs_b = (by_boot(x, g) for x, g in zip((runs_a, runs_b), opts.boot_groups))
        if len(runs_a) < 2 or len(runs_b) < 2:
            r["test"], r["detectable_pct"], r["unit"] = "", math.nan, "boots"
            return
    by_run = len(runs_a) >= 2 and len(runs_b) >= 2
    paired = by_run and opts.paired and len(runs_a) == len(runs_b)
    run_name = "paired-runs" if paired else "welch-runs"
    ha, hb = _half(exp, col, kind, a, va), _half(exp, col, kind, b, vb)
    rank = not (a.get("_merged") or b.get("_merged")) and len(xa) >= MIN_RANK_SAMPLES and len(xb) >= MIN_RANK_SAMPLES
    r["test"], r["detectable_pct"] = "", math.nan
    if rank:
        # The medians moved one way, the means (or the figures compared)
        # the other: a skewed sample, neither better nor worse.
        dm = median(xb) - median(xa)
        if not same_direction(xa, xb) or (dm > 0) - (dm < 0) != (vb > va) - (vb < va):
            r["_mixed"] = True
    ci = _ci(exp, col)
    if kind == "count":
        r["diff"] = vb - va
        # A count with a 95% interval (a litmus rate: Wilson over its
        # trials) differs only where they do not overlap.
        lo, hi = _ci(exp, col, "lower"), _ci(exp, col, "upper")
        if all(c in x for c in (lo, hi) for x in (a, b)):
            r["overlap"] = not (num(a[hi]) < num(b[lo]) or num(b[hi]) < num(a[lo]))
        # A count with a CI (disturb's, from its slices) is also tested,
        # so only a difference beyond its spread counts.
        if by_run:
            rd = run_diff(runs_a, runs_b, opts.alpha, (ha, hb), paired)
            r["p"], r["test"], r["unit"] = rd[0], run_name, "boots" if opts.boot_groups else "runs"
            r["diff"], r["diff_lo"], r["diff_hi"] = rd[3], rd[1], rd[2]
            xa, xb = runs_a, runs_b
        elif rank:
            r["p"], r["test"] = mann_whitney_p(xa, xb), "mann-whitney"
        elif ci in a and ci in b:
            r["p"], r["test"] = welch_p(va, max(num(a.get(ci)), ha), n_of(a), vb, max(num(b.get(ci)), hb), n_of(b)), "welch"
        if ci in a and ci in b:
            r["detectable_pct"] = 100 * detectable_change(*_spread(xa, max(num(a.get(ci)), ha), n_of(a), ha),
                                                          *_spread(xb, max(num(b.get(ci)), hb), n_of(b), hb), va,
                                                          alpha=opts.alpha)
        return
    r["ratio"] = vb / va if va else math.nan
    na, nb = n_of(a), n_of(b)
    r["unit"] = unit_of(a) if unit_of(a) == unit_of(b) else "repeats"
    if ci not in a or ci not in b:
        return
    # A figure is known to its resolution (a histogram bucket, the clock):
    # readings that all agree have no spread, not certainty.
    r["a_ci"], r["b_ci"] = max(num(a.get(ci)), ha), max(num(b.get(ci)), hb)
    if kind == "pct":
        # A batch too small to hold a sample beyond the percentile (60
        # samples for a p99) gives its max: no test of that percentile.
        if not (reaches(a, col) and reaches(b, col)):
            return
        # The rank test cannot see that the processes' percentiles are
        # known to a bucket: a change within both buckets is not one.
        if rank:
            r["_resolution"] = ha + hb
    # The test and the change's interval from one method, so a verdict
    # never sits beside an interval that holds no change: the runs (their
    # logs, or a signed figure's values), the processes' ranks
    # (Hodges-Lehmann), else the means and CIs (Welch).
    ends = None
    if by_run:
        ga, gb = _gmean(runs_a), _gmean(runs_b)
        rt = run_test(runs_a, runs_b, opts.alpha, (ha / ga, hb / gb), paired) if ga == ga and gb == gb else None
        if rt is not None:
            r["p"], ends = rt[0], rt[1:3]
            # the sides' figures the test compared: the geometric means of
            # their runs' figures, whose ratio its interval is about
            r["a_mean"], r["b_mean"], r["a"], r["b"], r["ratio"] = va, vb, ga, gb, rt[3]
            r["_up"] = rt[3] > 1
            r["run_sd_log"] = within_sd(runs_a, runs_b)
            if paired:
                r["pair_sd_log"] = pair_sd(runs_a, runs_b)
            if r["family"] == "headline" and is_pooled(exp, b):
                pool.append((exp, r["point"], all_a, all_b, max(ha / ga, hb / gb)))
        else:	# a signed figure (ns_over_floor): B - A over |A|
            rd = run_diff(runs_a, runs_b, opts.alpha, (ha, hb), paired)
            r["p"], r["_up"] = rd[0], rd[3] > 0
            if va:
                ends = 1 + rd[1] / abs(va), 1 + rd[2] / abs(va)
        r["test"], r["unit"] = run_name, "boots" if opts.boot_groups else "runs"
        xa, xb = runs_a, runs_b
    elif rank:
        r["p"], r["test"] = mann_whitney_p(xa, xb), "mann-whitney"
        hl = hodges_lehmann(xa, xb, opts.alpha)
        if hl is not None:
            ends, r["_up"] = hl[1:], hl[0] > 1
    else:
        r["p"], r["test"] = welch_p(va, r["a_ci"], na, vb, r["b_ci"], nb), "welch"
    r["detectable_pct"] = 100 * detectable_change(*_spread(xa, r["a_ci"], na, ha),
                                                  *_spread(xb, r["b_ci"], nb, hb), va, alpha=opts.alpha)
    if ends is None:	# the change's own interval, as a fraction of |A|
        d, h = welch_ci(va, r["a_ci"], na, vb, r["b_ci"], nb, opts.alpha)
        if va and not math.isnan(h):
            ends = 1 + (d - h) / abs(va), 1 + (d + h) / abs(va)
    if ends is not None:
        r["ratio_low"], r["ratio_high"] = ends
        r["change_lo"], r["change_hi"] = ends[0] - 1, ends[1] - 1
