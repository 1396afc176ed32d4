# SPDX-License-Identifier: MIT
"""The A/B design's statistics (compare, calibrate, `sweep --ab --plan`):
which points are the headline a kernel A/B is judged on, the test of a
point with the run as its unit, the pooled change of the membarrier
commands, and what a design of n runs a side can see.

The run is the unit. On a VM the figures of a whole sweep drift together
from one sweep to the next (the IPI's delivery does), so the processes of
three sweeps are not thirty replicates: a point's test takes each run's
figure (the mean of its processes) as one value, on the log scale (a
change to a barrier is a ratio), and gives its p value and its interval
from one method, Welch's t on those logs; an interval printed beside a
verdict therefore never holds "no change".

The pooled change: a kernel change to the barrier path moves every
IPI-sending membarrier command together. Each run gets one figure, the
mean log of its pooled points; Welch's t on those gives the common change
and its interval. A random-effects combination of the points' own
intervals (a meta-analysis) would take the points as independent, and
within a run they are not: the drift that moves one moves all, and such a
combination's interval is too narrow by about the square root of the
points' count (docs/HACKING.md, "The A/B design").
"""
import math

from mbstats import scipy_stats, t_quantile

# The mechanisms whose barrier interrupts other CPUs: the membarrier
# commands that send IPIs (what a kernel patch to the barrier path moves,
# the pooled family) and the baselines (signal, mprotect).
IPI_MEMBARRIER = ("membarrier-global-expedited", "membarrier-private-expedited",
                  "membarrier-private-expedited-sync-core", "membarrier-private-expedited-rseq",
                  "membarrier-private-expedited-rseq-cpu", "seed-v1-ipi-all", "seed-v5-expedited")
IPI_BASELINES = ("signal", "mprotect")
# Each experiment's headline figure, and the experiments pooled.
HEADLINE = {"calls": "ns_per_call", "distance": "ns_per_call", "latency": "p50_ns",
            "register": "register_ns", "contend": "aggregate_calls_per_s"}
POOLED = ("calls", "distance", "latency")
LEVELS = ("smt", "core", "l3", "numa", "package")
ALPHA = 0.05
POWER = 0.8


def nearest_level(rows):
    """The nearest distance level among rows (the headline's), or None."""
    have = [LEVELS.index(r.get("level")) for r in rows if r.get("level") in LEVELS]
    return LEVELS[min(have)] if have else None


def is_headline(exp, row, figure, level):
    """Whether (exp, row, figure) is a headline point: an IPI-sending
    mechanism's calls at T=2, distance at the nearest level, latency p50,
    register with one other thread, contend with one caller; never an
    oversubscribed point (it measures the scheduler)."""
    if HEADLINE.get(exp) != figure or row.get("mechanism") not in IPI_MEMBARRIER + IPI_BASELINES:
        return False
    if str(row.get("oversubscribed", "0")) == "1":
        return False
    if exp in ("calls", "latency") and "threads" in row and row.get("threads") not in ("2", ""):
        return False
    if exp == "distance":
        return row.get("level") == level
    if exp == "register":
        return row.get("other_threads") == "1"
    if exp == "contend":
        return row.get("callers") == "1"
    return True


def is_pooled(exp, row):
    """A headline point of the pooled family: an IPI-sending membarrier
    command's calls, distance or latency."""
    return exp in POOLED and row.get("mechanism") in IPI_MEMBARRIER


def _logs(xs):
    return [math.log(x) for x in xs] if xs and min(xs) > 0 else None


def welch_logs(la, lb):
    """Welch's t on two samples of logs: (mean difference, its 95% CI
    half-width, p, df), NaNs without two values a side."""
    na, nb = len(la), len(lb)
    if na < 2 or nb < 2:
        return math.nan, math.nan, math.nan, math.nan
    ma, mb = sum(la) / na, sum(lb) / nb
    va = sum((x - ma) ** 2 for x in la) / (na - 1) / na
    vb = sum((x - mb) ** 2 for x in lb) / (nb - 1) / nb
    d = mb - ma
    if va + vb == 0:
        return d, 0.0, (1.0 if d == 0 else 0.0), math.inf
    df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    h = t_quantile(1 - ALPHA / 2, df) * math.sqrt(va + vb)
    p = float(2 * scipy_stats().t.sf(abs(d) / math.sqrt(va + vb), df))
    return d, h, p, df


def run_test(xa, xb):
    """A point's test with each run's figure as one value: Welch's t on
    their logs. Returns (p, ratio_low, ratio_high, ratio) of B/A (the
    ratio of the runs' geometric means, the estimate the interval is
    about), or None where a side has fewer than two runs or a figure is
    not above zero."""
    la, lb = _logs(xa), _logs(xb)
    if la is None or lb is None or len(la) < 2 or len(lb) < 2:
        return None
    d, h, p, _ = welch_logs(la, lb)
    return p, math.exp(d - h), math.exp(d + h), math.exp(d)


def hodges_lehmann(xa, xb):
    """The Hodges-Lehmann shift of log B over log A, the estimate that
    goes with the Mann-Whitney test, with its distribution-free 95%
    interval (the order statistics of the pairwise differences the U
    statistic's normal approximation names): (ratio, low, high) of B/A,
    or None where a value is not above zero or a side is empty."""
    la, lb = _logs(xa), _logs(xb)
    if la is None or lb is None:
        return None
    n, m = len(la), len(lb)
    d = sorted(y - x for x in la for y in lb)
    nm = len(d)
    mid = (d[(nm - 1) // 2] + d[nm // 2]) / 2
    z = float(scipy_stats().norm.ppf(1 - ALPHA / 2))
    k = int(math.floor(nm / 2 - z * math.sqrt(nm * (n + m + 1) / 12)))
    if k < 1:	# too few values for a 95% interval: the whole range
        return math.exp(mid), math.exp(d[0]), math.exp(d[-1])
    return math.exp(mid), math.exp(d[k - 1]), math.exp(d[nm - k])


def pooled(per_run_a, per_run_b):
    """The common change of the pooled points: per_run_X is, for each
    run of a side, {point: figure}; the points in every run of both sides
    are pooled. Returns a dict (pct, lo, hi, p, points, runs_a, runs_b,
    sd: the spread of a run's pooled log figure) or None."""
    common = None
    for d in per_run_a + per_run_b:
        keys = {k for k, v in d.items() if v > 0}
        common = keys if common is None else common & keys
    if not common or len(per_run_a) < 2 or len(per_run_b) < 2:
        return None
    pts = sorted(common)

    def score(d):
        return sum(math.log(d[k]) for k in pts) / len(pts)
    sa, sb = [score(d) for d in per_run_a], [score(d) for d in per_run_b]
    d, h, p, _ = welch_logs(sa, sb)
    return {"pct": 100 * (math.exp(d) - 1), "lo": 100 * (math.exp(d - h) - 1),
            "hi": 100 * (math.exp(d + h) - 1), "p": p, "points": len(pts),
            "runs_a": len(sa), "runs_b": len(sb), "sd": _pooled_sd(sa, sb)}


def _pooled_sd(a, b):
    def ss(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x)
    df = len(a) + len(b) - 2
    return math.sqrt((ss(a) + ss(b)) / df) if df > 0 else math.nan


def detectable(sd, n, alpha=ALPHA, beyond=0.0):
    """The smallest change, as a fraction, that n runs a side see with
    80% power at alpha (two-sided), for a run-level SD of the log figure;
    with beyond (a fraction), the change whose interval's near end clears
    beyond 80% of the time (the pooled verdict's rule)."""
    if not (sd >= 0) or n < 2:
        return math.nan
    df = 2 * n - 2
    return math.exp(math.log1p(beyond) +
                    (t_quantile(1 - alpha / 2, df) + t_quantile(POWER, df)) * sd * math.sqrt(2.0 / n)) - 1


def runs_needed(sd, change, alpha=ALPHA, most=40):
    """The fewest runs a side (2 at least) that see change (a fraction)
    at 80% power, or None beyond most."""
    for n in range(2, most + 1):
        if detectable(sd, n, alpha) <= change:
            return n
    return None


def within_sd(xa, xb):
    """The run-to-run SD of a point's log figure within its sides (each
    side about its own mean): what the design's power depends on."""
    la, lb = _logs(xa), _logs(xb)
    if la is None or lb is None or len(la) < 2 or len(lb) < 2:
        return math.nan
    return _pooled_sd(la, lb)


def recommend_runs(sds, change, share_true, covered=0.9):
    """Runs a side for an A/B that finds a change of this size (a
    fraction) at the pooled points: enough that `covered` of them have 80%
    power at the level the false-discovery correction leaves a point when
    share_true of its family moved (Benjamini-Hochberg rejects a point at
    alpha x the share of discoveries). None when a point's spread is
    unknown or it needs more than 40."""
    need = sorted(runs_needed(sd, change, ALPHA * share_true) or 99 for sd in sds if sd == sd)
    if not need:
        return None
    n = need[min(len(need) - 1, math.ceil(covered * len(need)) - 1)]
    return None if n > 40 else n


def verdict_of(p, lo, hi, lower_better, min_effect):
    """worse / better / changed / - for a ratio interval [lo, hi] and its
    p: only where the interval leaves 1 out and the estimate's effect is
    at least min_effect (a fraction)."""
    if math.isnan(p) or p >= ALPHA or lo <= 1 <= hi:
        return "-"
    if max(abs(lo - 1), abs(hi - 1)) < min_effect:
        return "-"
    up = lo > 1
    if lower_better is None:
        return "changed"
    return "worse" if up == lower_better else "better"


def pooled_words(res, results):
    """The lines every format of compare leads with: the pooled change of
    the membarrier commands (or why there is none) and the two families'
    sizes."""
    tested = {f: sum(1 for r in results if r.get("family") == f and not math.isnan(r.get("q", math.nan)))
              for f in ("headline", "secondary")}
    fam = (f"Headline points ({tested['headline']} tested: each IPI-sending mechanism's calls at T=2, "
           f"distance at the nearest level, latency p50, register with one other thread, contend with "
           f"one caller) are one false-discovery family; the {tested['secondary']} secondary figures "
           "are another.")
    if res is None:
        return [("membarrier commands: no pooled change (it needs two or more runs a side, "
                 "--vs, with the IPI-sending membarrier commands' calls, distance or latency in each)"), fam]
    word = {"worse": "WORSE", "better": "BETTER"}.get(res["verdict"]) or (
        f"no change beyond {res.get('min_effect', 2):g}% shown" if res["p"] < ALPHA else "no change shown")
    return [(f"membarrier commands: {res['pct']:+.1f}% [{res['lo']:+.1f}, {res['hi']:+.1f}] {word} "
             f"({res['points']} headline points pooled; {res['runs_a']} runs vs {res['runs_b']}, the run "
             f"the unit; p {res['p']:.2g}; worse or better only where the whole interval is beyond "
             f"{res.get('min_effect', 2):g}%; a change of "
             f"{100 * detectable(res['sd'], min(res['runs_a'], res['runs_b']), beyond=res.get('min_effect', 2) / 100):.1f}% "
             "would be called 80% of the time)"), fam]
