# SPDX-License-Identifier: MIT
"""`mbbench compare --format human` (Markdown, the default) and `--format
csv`: the rows compare() has computed, laid out; nothing is decided here.
"""
import csv
import io
import math

from abdesign import pooled_words
from mbformat import md_table
from mbresults import host
from mbstats import MIN_RANK_SAMPLES


def _fmt(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _change(r):
    if r["kind"] == "status":
        return "-"
    if r["kind"] == "count":
        return f"{r['diff']:+.3f}"
    return f"{r['ratio']:.3f}" if not math.isnan(r.get("ratio", math.nan)) else "-"


def _interval(r):
    """The change's interval (at 1 - --alpha) as B/A, from the verdict's own test."""
    lo, hi = r.get("ratio_low"), r.get("ratio_high")
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "-"
    return f"{lo:.3f}-{hi:.3f}"


def _detectable(r):
    """The smallest change a point could have detected, as "≥ 6%"."""
    d = r.get("detectable_pct", math.nan)
    if d is None or math.isnan(d):
        return "-"
    return f"≥ {d:.0f}%" if d >= 10 else f"≥ {d:.2g}%"


def render_human(name_a, name_b, ra, rb, results, only_a, only_b, diffs, opts, experiments):
    out = ["# membarrier-bench comparison", "",
           f"A: `{name_a}` ({host(ra).get('hostname', '?')}, kernel {host(ra).get('kernel_release', '?')})  ",
           f"B: `{name_b}` ({host(rb).get('hostname', '?')}, kernel {host(rb).get('kernel_release', '?')})", ""]
    for line in pooled_words(opts.pool, results):
        out += [f"**{line}**" if line.startswith("membarrier commands: ") else line, ""]
    if diffs:
        if len(diffs) > 1:
            out += [f"**WARNING: the two runs differ in {len(diffs)} things, not only the one under test; "
                    "a change below may come from any of them.**", ""]
        out += ["What differs between the runs:", "", md_table(("fact", "A", "B"), diffs), ""]
    else:
        out += ["The two runs share every recorded host fact, the preset and the suite version.", ""]
    units = {r.get("unit") for r in results if r.get("unit")}
    if units == {"processes"}:
        out += ["Tested on the replicate means of each point: every point was measured in several "
                "processes (the `replicates` column), so the CIs include what changes from one process "
                "to the next (placement, the hypervisor's packing, cache colours).", ""]
    elif units == {"runs"}:
        out += ["Tested on the runs of each side (--vs): each run's figure is one sample (`paired-runs`: "
                "the runs were taken in ABBA pairs, the paired t-test on the per-pair log ratios; `welch-runs`: "
                "Welch's t on their logs; a figure that may be 0 or below on its values; the interval "
                "of B/A from the same test).", ""]
    elif units:
        out += ["**Tested on repeats inside one process** for "
                f"{sum(1 for r in results if r.get('unit') == 'repeats')} figures (a folder measured "
                "without replicates): those CIs cannot see what changes between runs, so expect noise "
                "to be flagged; measure both sides with replicates, or give several runs a side with --vs.", ""]
    out += [f"B/A for means and percentiles, B-A for counts. `*`: significant (`test`: `paired-runs` or "
            f"`welch-runs`, the paired t-test or Welch's t on the logs of each run's figure with two or more "
            f"runs a side; `mann-whitney`, "
            f"the Mann-Whitney U test on the values of the processes of each side where both have "
            f"{MIN_RANK_SAMPLES} or more, with the Hodges-Lehmann interval; else `welch`, Welch's t on the means and CIs; "
            f"{opts.correction} correction within each family "
            f"({sum(1 for r in results if not math.isnan(r['q']))} tested points), q < {opts.alpha}, "
            f"an interval of the change that leaves 1 out) and at least {opts.min_effect:g}% apart, or a count "
            f"{opts.min_count_diff:g} or more apart (and significant, where it has a CI); `~`: not; `?`: no CI to test with "
            "(a single repeat, a percentile without one, or one whose batches hold too few samples to "
            "reach it: a p99 needs 100 a batch). `mixed`: significant, but the medians and the means moved "
            "in opposite directions, so neither better nor worse. `would see`: the smallest change the point "
            f"could have detected, 80% of the time at the {opts.alpha:g} level (two-sided), from both sides' spread; "
            f"intervals at {100 * (1 - opts.alpha):g}%.", ""]
    for exp in experiments:
        rows = [(r["point"], r["figure"], _fmt(r["a"]), _fmt(r["b"]), _change(r), _interval(r), r["sig"],
                 r["verdict"], r.get("test") or "-", r.get("family", "-"), _detectable(r))
                for r in results if r["experiment"] == exp]
        if rows:
            out += [f"## {exp}", "", md_table(("point", "figure", "A", "B", "B/A or B-A", f"{100 * (1 - opts.alpha):g}% interval", "sig",
                                               "B vs A", "test", "family", "would see"), rows), ""]
    if only_a or only_b:
        out += ["## Points in one run only", "",
                md_table(("run", "experiment", "point"),
                         [("A", e, p) for e, p in only_a] + [("B", e, p) for e, p in only_b]), ""]
    worse = [r for r in results if r["verdict"] == "worse"]
    better = [r for r in results if r["verdict"] == "better"]
    out += [f"Summary: {len(results)} compared, {len(worse)} worse, {len(better)} better, "
            f"{sum(1 for r in results if r['sig'] == '?')} without a test, "
            f"{len(only_a)} only in A, {len(only_b)} only in B.", ""]
    moved = floor_moved(results)
    if moved:
        out += [f"The IPI delivery floor (`floor_ns`, a targeted barrier measured beside every repeat) moved "
                f"at {len(moved)} point{'s' if len(moved) != 1 else ''} ({', '.join(moved[:4])}"
                f"{', ...' if len(moved) > 4 else ''}): the host changed under these numbers (or the "
                "targeted command's path did); read `ns_over_floor`, the cost net of it, there.", ""]
    return "\n".join(out)


def floor_moved(results):
    """The points whose delivery floor changed significantly between A and B."""
    return [f"{r['experiment']} {r['point'].split(' behaviour')[0]}" for r in results
            if r["figure"] == "floor_ns" and r["sig"] == "*"]


def _end(r, k):
    v = r.get(k)
    return "" if v is None or math.isnan(v) else v


def render_csv(name_a, name_b, results, only_a, only_b):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("run_a", "run_b", "experiment", "point", "figure", "a", "b", "ratio", "diff", "p", "q",
                "test", "detectable_pct", "sig", "verdict", "family", "ratio_low", "ratio_high"))
    for r in results:
        d = r.get("detectable_pct", math.nan)
        w.writerow((name_a, name_b, r["experiment"], r["point"], r["figure"], r["a"], r["b"],
                    r.get("ratio", ""), r.get("diff", ""), "" if math.isnan(r["p"]) else r["p"],
                    "" if math.isnan(r["q"]) else r["q"], r.get("test", ""), "" if math.isnan(d) else d,
                    r["sig"], r["verdict"], r.get("family", ""), _end(r, "ratio_low"), _end(r, "ratio_high")))
    for run, lst in (("A", only_a), ("B", only_b)):
        for e, p in lst:
            w.writerow((name_a, name_b, e, p, "", "", "", "", "", "", "", "", "", "", f"only in {run}", "", "", ""))
    return buf.getvalue()
