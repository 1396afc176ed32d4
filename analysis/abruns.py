# SPDX-License-Identifier: MIT
"""The runs of a comparison (compare): what a point is (its key columns
and the figures tested, from the schema), several runs of one side merged
into one (merge_replicates, --vs), whether the two sides' runs were taken
in ABBA pairs (ab_pairs, from each run's recorded position), and a
figure's resolution (the least standard error its readings can have).
"""
import math

from mbresults import EXPERIMENTS, KEYS, TABLES, COLUMNS, bounds, ci_column, figures, is_control, num, per_process
from mbstats import mean_interval, median

# What a point is (its key columns) and what is compared, per table, from
# the result schema (mbresults.TABLES, results/schema.json): each measure
# with a test, as (column, kind, lower is better). kind "mean" has a 95% CI
# column (and the CSV a repeats column): the run-level test with several
# runs a side (--vs), the Mann-Whitney U test on the two points' processes'
# values (COL_per_process) where each side has MIN_RANK_SAMPLES of them,
# else Welch's t on the means, CIs and counts.
# kind "count" (IPIs per barrier, a count of forbidden outcomes) is
# compared by difference. kind "pct" (a percentile) gets a test only where
# the CSV carries its CI. kind "rate" (a litmus control's forbidden
# outcomes per million) is a mean where the row has repeats and a CI, and a
# count where it has not (a folder from before litmus repeated). "lower is
# better" is None for a measure with no better direction, and a function
# of the row where the table has controls: a control that shows more or
# fewer reorderings is neither better nor worse.
KIND = {"mean": "mean", "percentile": "pct", "difference": "count", "rate": "rate"}


def _lower(table, better):
    lower = {"lower": True, "higher": False}.get(better)
    if lower is None or not TABLES[table].get("control"):
        return lower
    return lambda row: None if is_control(table, row) else lower


def ci_key(exp, col, kind="half-width"):
    """The row key of col's 95% CI half-width (or the "lower" or "upper"
    end of its interval): the schema's column, or, where the table has
    none, the one merge_replicates gives a replicated point."""
    return ci_column(exp, col, kind) or f"_{kind}:{col}"


SPECS = {name: (KEYS[name], [(col, KIND[test], _lower(name, better)) for col, test, better in figures(name)])
         for name in EXPERIMENTS if figures(name)}


def point_key(row, cols):
    return tuple((c, row.get(c, "")) for c in cols if c in row)


# -- a figure's resolution ----------------------------------------------------

def pct_resolution(v):
    """Half a bucket's width at v ns, at least 1 ns: the least CI half-width
    a percentile read from the suite's histogram can honestly have."""
    return max(1.0, 0.004 * abs(v))


def printed_half(text):
    """Half the last digit a CSV cell was written with ("15000.00":
    0.005, "100": 0.5): what the file can tell apart."""
    t = str(text or "").strip().lower()
    if not t or "e" in t or "n" in t:	# exponent, nan, inf: no digits to read
        return 0.0
    frac = t.split(".", 1)[1] if "." in t else ""
    return 0.5 * 10.0 ** -len(frac)


def half_resolution(exp, col, kind, v, text=None):
    """How far a reading of col at v can be from the truth at the least,
    in its unit: half a histogram bucket for a percentile, half the
    clock's nanosecond for a mean in ns (and the rate it gives), and at
    least half the last digit it was written with."""
    unit = (COLUMNS.get(exp, {}).get(col) or {}).get("unit", "")
    h = printed_half(text) if text is not None else 0.0
    if kind == "pct":
        h = max(h, pct_resolution(v))
    elif unit == "ns":
        h = max(h, 0.5)
    elif unit == "1/s" and v == v:
        h = max(h, 0.5e-9 * v * v)
    return h


# -- the pairs of an A/B ---------------------------------------------------------

def ab_position(run):
    """A run's recorded place in an A/B (sweep --ab --ab-run SIDE:PAIR):
    (side, pair), or None where run.json has none (or a damaged one)."""
    ab = run.get("ab") if isinstance(run, dict) else None
    if not isinstance(ab, dict):
        return None
    side, pair = ab.get("side"), ab.get("pair")
    if side not in ("A", "B") or not isinstance(pair, int) or isinstance(pair, bool) or not 1 <= pair <= 9999:
        return None
    return side, pair


def ab_pairs(runs_a, runs_b):
    """Whether the sides were taken as ABBA pairs: every run of A says it
    was side A, every run of B side B, and the pairs' numbers are the same
    on both sides, each once. Returns (order_a, order_b, None): the runs'
    indexes in pair order, or (None, None, why not)."""
    pos_a, pos_b = [ab_position(r) for r in runs_a], [ab_position(r) for r in runs_b]
    if any(p is None for p in pos_a + pos_b):
        return None, None, "the runs record no A/B position (sweep --ab --ab-run)"
    if any(p[0] != "A" for p in pos_a) or any(p[0] != "B" for p in pos_b):
        return None, None, "the runs' recorded sides are not A before --vs and B after it"
    na, nb = [p[1] for p in pos_a], [p[1] for p in pos_b]
    if len(set(na)) != len(na) or sorted(na) != sorted(nb):
        return None, None, "the runs' pair numbers do not match one to one"
    return sorted(range(len(na)), key=na.__getitem__), sorted(range(len(nb)), key=nb.__getitem__), None


# -- several runs of one side -------------------------------------------------------

def merge_replicates(datas, ignore=()):
    """Several runs of one side as one: per point, the mean over the runs,
    with a 95% CI from their spread (the run is the unit, so drift of the
    host between runs is in it; its interval's ends never below what the
    column holds: mbstats.mean_interval), each run's figure kept for the
    run-level test (in the runs' order: pairs stay aligned), and repeats =
    the number of runs. A point missing from any run is left out; a point
    not ok in some run keeps that run's row."""
    n = len(datas)
    merged = {}
    for exp, (keys, figs) in SPECS.items():
        keys = tuple(k for k in keys if k not in ignore)
        per = [{point_key(r, keys): r for r in d.get(exp, [])} for d in datas]
        rows = []
        for k, first in per[0].items():
            group = [p.get(k) for p in per]
            if any(g is None for g in group):
                continue
            bad = next((g for g in group if g.get("status", "ok") != "ok"), None)
            if bad is not None:
                rows.append(bad)
                continue
            row = dict(first)
            row["repeats"] = str(n)
            row["_merged"] = True
            for col, kind, _ in figs:
                vals = [num(g.get(col)) for g in group]
                if any(math.isnan(v) for v in vals):
                    row[col] = ""
                    continue
                mean, ci, lo, hi, _ = mean_interval(vals, bounds(exp, col)[0])
                row[col] = repr(mean)
                row[f"_runs:{col}"] = vals
                row[f"_half:{col}"] = max(printed_half(g.get(col)) for g in group)
                procs = [per_process(g, col) for g in group]
                if all(procs):
                    row[f"_procs:{col}"] = [v for p in procs for v in p]
                # Each run's figure for the run-level test: the median of
                # its processes (one process in five can read twice the
                # others on a VM), else the run's mean.
                row[f"_byrun:{col}"] = [median(p) if len(p) >= 3 else v for p, v in zip(procs, vals)]
                if kind in ("count", "rate"):	# replace the first run's own interval
                    row[ci_key(exp, col, "lower")], row[ci_key(exp, col, "upper")] = repr(lo), repr(hi)
                row[ci_key(exp, col)] = repr(ci)
            rows.append(row)
        if rows:
            merged[exp] = rows
    return merged


# -- boots ----------------------------------------------------------------------

def boot_of(run):
    """The kernel's boot a run was measured in (run.json's boot_id), or None."""
    b = run.get("boot_id") if isinstance(run, dict) else None
    return b if isinstance(b, str) and b else None


def boot_design(boots_a, boots_b):
    """How the runs of the two sides sit in boots (each a list of boot ids,
    one a run, in the runs' order): (mode, groups_a, groups_b, words).
    mode "unknown" (a run records none), "common" (every run in one boot),
    "per-run" (each run its own boot: the run is the boot), "nested"
    (some boot holds several runs of a side: each boot's runs become one
    figure, groups_X the runs' indexes a boot), or "confounded" (the sides
    share no boot and one of them has only one: the boot's own level, which
    moves every figure of a boot, cannot be told from the change)."""
    if not boots_a or not boots_b or any(b is None for b in boots_a + boots_b):
        return "unknown", None, None, None
    sa, sb = set(boots_a), set(boots_b)
    if len(sa | sb) == 1:
        return "common", None, None, "every run in one boot, common to both sides"
    if not sa & sb and min(len(sa), len(sb)) == 1:
        return "confounded", None, None, (
            f"A's runs come from {len(sa)} boot{'s' if len(sa) > 1 else ''} and B's from {len(sb)}, none shared: "
            "with one boot a side the runs are not independent of their boot, whose level is not measured, "
            "so no verdict (take the runs in ABBA pairs across boots)")
    if len(sa) == len(boots_a) and len(sb) == len(boots_b):
        return "per-run", None, None, "each run in its own boot: the run is the boot"

    def groups(boots):
        order = list(dict.fromkeys(boots))
        return [[i for i, b in enumerate(boots) if b == g] for g in order]
    return "nested", groups(boots_a), groups(boots_b), (
        f"runs nested in boots (A: {len(boots_a)} runs in {len(sa)} boots, B: {len(boots_b)} in {len(sb)}): "
        "each boot's runs are one figure, the boot the unit")
