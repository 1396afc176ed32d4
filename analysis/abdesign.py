# SPDX-License-Identifier: MIT
"""The A/B design's statistics (compare, calibrate, `sweep --ab --plan`):
which points are the headline a kernel A/B is judged on, the test of a
point with the run as its unit, the pooled change of the membarrier
commands, and what a design of n runs a side can see.

The run is the unit. On a VM the figures of a whole sweep drift together
from one sweep to the next (the IPI's delivery does), so the processes of
three sweeps are not thirty replicates: a point's test takes each run's
figure (the median of its processes) as one value, on the log scale (a
change to a barrier is a ratio; a figure that may be 0 or below on its
own scale), and gives its p value, its interval and its direction from
one method: the paired t-test on the per-pair differences where the runs
were taken in ABBA pairs, else Welch's t; an interval printed beside a
verdict therefore never holds "no change", at the level --alpha sets. A
figure is known to its resolution (a histogram bucket, a clock tick), so
the standard error never falls below it.

The pooled change, the primary endpoint: a kernel change to the barrier
path moves every IPI-sending membarrier command together. Each run gets
one figure, the mean log of its pooled points; the same test on those
gives the common change and its interval. A random-effects combination of the points' own
intervals (a meta-analysis) would take the points as independent, and
within a run they are not: the drift that moves one moves all, and such a
combination's interval is too narrow by about the square root of the
points' count (docs/HACKING.md, "The A/B design").
"""
import math

from mbstats import numpy_module, quiet, scipy_stats, t_quantile, t_two_sided_p, welch_df

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


def diff_test(xa, xb, alpha=ALPHA, floor=(0.0, 0.0), paired=False):
    """B less A of two samples (the logs of the runs' figures, or a signed
    figure's values): (mean difference, the half-width of its 1 - alpha
    interval, p, df), NaNs without two values a side. paired: xa[i] and
    xb[i] were taken as a pair (ABBA), and the test is the paired t-test,
    Student's t on the per-pair differences (n - 1 df); else Welch's t.
    floor: each side's least standard error of its mean, the figure's
    resolution: values that all agree are known to that, never exactly.
    Where no floor binds, p and the interval are scipy.stats.ttest_rel's
    and ttest_ind(equal_var=False)'s (tests/analysis/compare-pairs.sh)."""
    np = numpy_module()
    fa, fb = floor
    if paired:
        n = len(xa)
        if n < 2 or len(xb) != n:
            return math.nan, math.nan, math.nan, math.nan
        dd = np.subtract(np.asarray(xb, dtype=float), np.asarray(xa, dtype=float))
        d, df = float(dd.mean()), n - 1
        se2 = max(float(dd.var(ddof=1)) / n, fa * fa + fb * fb)
    else:
        na, nb = len(xa), len(xb)
        if na < 2 or nb < 2:
            return math.nan, math.nan, math.nan, math.nan
        a, b = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
        d = float(b.mean() - a.mean())
        va, vb = max(float(a.var(ddof=1)) / na, fa * fa), max(float(b.var(ddof=1)) / nb, fb * fb)
        se2, df = va + vb, welch_df(va, na, vb, nb)
    se = math.sqrt(se2)
    if se == 0:	# no resolution given and no spread: nothing to scale by
        return d, 0.0, (1.0 if d == 0 else 0.0), df
    return d, t_quantile(1 - alpha / 2, df) * se, t_two_sided_p(d / se, df), df


def resolution_sd(half):
    """The standard deviation of a reading known to +-half (uniform over
    its resolution: a histogram bucket, a clock tick): half / sqrt(3)."""
    return half / math.sqrt(3) if half == half and half > 0 else 0.0


def run_test(xa, xb, alpha=ALPHA, rel=(0.0, 0.0), paired=False):
    """A point's test with each run's figure as one value, on their logs
    (a change to a barrier is a ratio): (p, ratio_low, ratio_high, ratio)
    of B/A at 1 - alpha, the ratio of the runs' geometric means (paired:
    the geometric mean of the per-pair ratios), or None where a side has
    fewer than two runs or a figure is not above zero. rel: each side's
    resolution as a fraction of its figure (half a bucket, half a tick)."""
    la, lb = _logs(xa), _logs(xb)
    if la is None or lb is None or len(la) < 2 or len(lb) < 2:
        return None
    d, h, p, _ = diff_test(la, lb, alpha, tuple(resolution_sd(r) for r in rel), paired)
    return p, math.exp(d - h), math.exp(d + h), math.exp(d)


def run_diff(xa, xb, alpha=ALPHA, half=(0.0, 0.0), paired=False):
    """The same test on the runs' values themselves, for a figure that may
    be 0 or below (ns_over_floor, a count): (p, low, high, difference) of
    B - A at 1 - alpha, or None with fewer than two runs a side. half:
    each side's resolution, in the figure's unit."""
    if len(xa) < 2 or len(xb) < 2:
        return None
    d, h, p, _ = diff_test(xa, xb, alpha, tuple(resolution_sd(x) for x in half), paired)
    return p, d - h, d + h, d


def hodges_lehmann(xa, xb, alpha=ALPHA):
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
    z = float(scipy_stats().norm.ppf(1 - alpha / 2))
    k = int(math.floor(nm / 2 - z * math.sqrt(nm * (n + m + 1) / 12)))
    if k < 1:	# too few values for the interval: the whole range
        return math.exp(mid), math.exp(d[0]), math.exp(d[-1])
    return math.exp(mid), math.exp(d[k - 1]), math.exp(d[nm - k])


def pooled(per_run_a, per_run_b, alpha=ALPHA, rel=0.0, paired=False, groups=None):
    """The common change of the pooled points: per_run_X is, for each
    run of a side, {point: figure}; the points in every run of both sides
    are pooled, each run's score the mean log of its points. paired: run
    i of A and run i of B were taken as a pair, and the test is the paired
    t on the per-pair differences of the scores. rel: the points' mean
    resolution as a fraction of a figure (the score's floor). Returns a
    dict (pct, lo, hi at 1 - alpha, p, points, runs_a, runs_b, paired,
    sd: the spread the design's power depends on, of a pair's score
    difference where paired, else of a run's score) or None. groups: the
    runs nested in boots, each side's runs' indexes a boot: the scores'
    boot-to-boot share of variance is given (boot_share) and each boot's
    runs become one score, the boot the unit (runs_a, runs_b: boots)."""
    common = None
    for d in per_run_a + per_run_b:
        keys = {k for k, v in d.items() if v > 0}
        common = keys if common is None else common & keys
    if not common or len(per_run_a) < 2 or len(per_run_b) < 2:
        return None
    paired = paired and len(per_run_a) == len(per_run_b)
    pts = sorted(common)

    def score(d):
        return sum(math.log(d[k]) for k in pts) / len(pts)
    sa, sb = [score(d) for d in per_run_a], [score(d) for d in per_run_b]
    boot = None
    if groups:
        boot = boot_share([[sa[i] for i in g] for g in groups[0]] + [[sb[i] for i in g] for g in groups[1]],
                          len(groups[0]))
        sa, sb = ([sum(x[i] for i in g) / len(g) for g in gs] for x, gs in zip((sa, sb), groups))
        paired = False
        if len(sa) < 2 or len(sb) < 2:
            return None
    f = resolution_sd(rel)
    d, h, p, _ = diff_test(sa, sb, alpha, (f, f), paired)
    # the spread, never below what the floor leaves a side's mean
    if paired:
        sd = max(_sd([y - x for x, y in zip(sa, sb)]), f * math.sqrt(2 * len(sa)))
    else:
        sd = max(_pooled_sd(sa, sb), f * math.sqrt(min(len(sa), len(sb))))
    return {"pct": 100 * (math.exp(d) - 1), "lo": 100 * (math.exp(d - h) - 1),
            "hi": 100 * (math.exp(d + h) - 1), "p": p, "alpha": alpha, "points": len(pts),
            "runs_a": len(sa), "runs_b": len(sb), "paired": paired, "sd": sd,
            **({"unit": "boots", "boot_share": boot[0], "boot_p": boot[1]} if groups else {})}


def boot_share(boots, n_a):
    """The share of a run's score variance that is the boot's, runs nested
    in boots: one-way random effects within each side (the sides' means
    apart), from the mean squares between boots and within them (method
    of moments), and the F test of no boot effect (scipy.stats.f). boots:
    the scores of each boot, A's n_a boots first. (share, p), NaN where
    no boot holds two runs."""
    sides = (boots[:n_a], boots[n_a:])
    big_n = sum(len(b) for b in boots)
    ssw = sum(sum((x - sum(b) / len(b)) ** 2 for x in b) for b in boots)
    ssb, n2 = 0.0, 0.0
    for side in sides:
        xs = [x for b in side for x in b]
        m = sum(xs) / len(xs) if xs else 0.0
        ssb += sum(len(b) * (sum(b) / len(b) - m) ** 2 for b in side)
        n2 += sum(len(b) ** 2 for b in side) / len(xs) if xs else 0.0
    dfw, dfb = big_n - len(boots), len(boots) - 2
    if dfw < 1 or dfb < 1:
        return math.nan, math.nan
    msw, msb = ssw / dfw, ssb / dfb
    n0 = (big_n - n2) / dfb
    var_b = max(0.0, (msb - msw) / n0)
    share = var_b / (var_b + msw) if var_b + msw > 0 else math.nan
    p = float(scipy_stats().f.sf(msb / msw, dfb, dfw)) if msw > 0 else math.nan
    return share, p


def _sd(x):
    if len(x) < 2:
        return math.nan
    m = sum(x) / len(x)
    return math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))


def _pooled_sd(a, b):
    def ss(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x)
    df = len(a) + len(b) - 2
    return math.sqrt((ss(a) + ss(b)) / df) if df > 0 else math.nan


def power(delta, sd, n, alpha=ALPHA, paired=False):
    """The power of the two-sided t-test at alpha to see a change of delta
    in the log figure, n runs a side: the noncentral t's (scipy.stats.nct),
    with sd the SD of a pair's difference (paired, n - 1 df) or of a run
    (two samples, 2n - 2 df)."""
    st = scipy_stats()
    se, df = (sd / math.sqrt(n), n - 1) if paired else (sd * math.sqrt(2.0 / n), 2 * n - 2)
    if not se > 0:
        return 1.0
    tc = float(st.t.ppf(1 - alpha / 2, df))
    nc = delta / se
    with quiet():
        return float(st.nct.sf(tc, df, nc) + st.nct.cdf(-tc, df, nc))


def detectable(sd, n, alpha=ALPHA, beyond=0.0, paired=False):
    """The smallest change, as a fraction, that n runs a side see with 80%
    power at alpha (two-sided), for a spread sd of the log figure (see
    power); with beyond (a fraction), the change whose interval's near
    end clears beyond that often (the margin of an unpaired pooled line).
    Solved with scipy.optimize.brentq."""
    if not (sd >= 0) or n < 2 or (paired and n < 2):
        return math.nan
    if sd == 0:
        return beyond
    scipy_stats()	# puts scipy on the path where it must (mbstats)
    import scipy.optimize
    se = sd / math.sqrt(n) if paired else sd * math.sqrt(2.0 / n)
    hi = 50 * se + 1.0
    # few df at a small alpha (t's critical value in the tens) may need
    # more: widen the bracket until it holds 80% power, or say unknown
    for _ in range(12):
        if power(hi, sd, n, alpha, paired) >= POWER:
            break
        hi *= 4
    else:
        return math.nan
    delta = scipy.optimize.brentq(lambda x: power(x, sd, n, alpha, paired) - POWER, 0.0, hi)
    return math.exp(math.log1p(beyond) + delta) - 1


def runs_needed(sd, change, alpha=ALPHA, most=40, paired=False):
    """The fewest runs a side (2 at least) that see change (a fraction)
    at 80% power, or None beyond most."""
    for n in range(2, most + 1):
        if detectable(sd, n, alpha, paired=paired) <= change:
            return n
    return None


def within_sd(xa, xb):
    """The run-to-run SD of a point's log figure within its sides (each
    side about its own mean): what an unpaired design's power depends on."""
    la, lb = _logs(xa), _logs(xb)
    if la is None or lb is None or len(la) < 2 or len(lb) < 2:
        return math.nan
    return _pooled_sd(la, lb)


def pair_sd(xa, xb):
    """The SD of a point's per-pair log ratio (run i of B over run i of
    A): what a paired design's power depends on."""
    la, lb = _logs(xa), _logs(xb)
    if la is None or lb is None or len(la) != len(lb) or len(la) < 2:
        return math.nan
    return _sd([y - x for x, y in zip(la, lb)])


def recommend_runs(sds, change, share_true, covered=0.9, paired=False):
    """Runs a side for an A/B that finds a change of this size (a
    fraction) at the points of the pooled family one by one: enough that
    `covered` of them have 80% power at the level the false-discovery
    correction leaves a point when share_true of its family moved
    (Benjamini-Hochberg rejects a point at alpha x the share of
    discoveries). None when a point's spread is unknown or it needs more
    than 40. The design is sized for the pooled line (runs_needed on its
    spread); this is what the family after it needs."""
    need = sorted(runs_needed(sd, change, ALPHA * share_true, paired=paired) or 99 for sd in sds if sd == sd)
    if not need:
        return None
    n = need[min(len(need) - 1, math.ceil(covered * len(need)) - 1)]
    return None if n > 40 else n


def pooled_words(res, results):
    """The lines every format of compare leads with: the pooled change of
    the membarrier commands, the primary endpoint (or why there is none),
    and the two families' sizes."""
    tested = {f: sum(1 for r in results if r.get("family") == f and not math.isnan(r.get("q", math.nan)))
              for f in ("headline", "secondary")}
    fam = (f"After it, the headline points ({tested['headline']} tested: each IPI-sending mechanism's calls at "
           f"T=2, distance at the nearest level, latency p50, register with one other thread, contend with "
           f"one caller) are one false-discovery family; the {tested['secondary']} secondary figures "
           "are another.")
    if res is None:
        return [("membarrier commands: no pooled change (it needs two or more runs a side, "
                 "--vs, with the IPI-sending membarrier commands' calls, distance or latency in each)"), fam]
    margin = res.get("margin", 0)
    alpha = res.get("alpha", ALPHA)
    word = {"worse": "WORSE", "better": "BETTER"}.get(res["verdict"]) or (
        f"no change beyond {margin:g}% shown" if res["p"] < alpha else "no change shown")
    n = min(res["runs_a"], res["runs_b"])
    boots = ""
    if res.get("boots") == "confounded":
        word = "no verdict"
    if res.get("boots_why"):
        boots = f"; boots: {res['boots_why']}"
        if res.get("boot_share") == res.get("boot_share") and res.get("boot_share") is not None:
            boots += (f" (the boot's share of a run's variance {100 * res['boot_share']:.0f}%, "
                      f"F test p {res['boot_p']:.2g})")
    if res.get("paired"):
        design = (f"{n} ABBA pairs, the paired t-test on the per-pair log ratios; worse or better where "
                  f"the {100 * (1 - alpha):g}% interval leaves 0 out")
    else:
        design = (f"{res['runs_a']} {res.get('unit', 'runs')} vs {res['runs_b']}, unpaired (Welch's t, the "
                  f"{res.get('unit', 'runs')[:-1]} the unit"
                  + (f": {res['unpaired_why']}" if res.get("unpaired_why") else "") + "); worse or better "
                  f"only where the whole {100 * (1 - alpha):g}% interval is beyond {margin:g}%, since "
                  "runs not taken in pairs can drift apart")
    det = detectable(res["sd"], n, alpha, beyond=margin / 100, paired=res.get("paired", False))
    return [(f"membarrier commands: {res['pct']:+.1f}% [{res['lo']:+.1f}, {res['hi']:+.1f}] {word} "
             f"(the primary endpoint: {res['points']} headline points pooled; {design}{boots}; p {res['p']:.2g}; "
             f"a change of {100 * det:.1f}% would be called 80% of the time)"), fam]
