# SPDX-License-Identifier: MIT
"""The statistics of report, compare and the sweep's merge of replicates.

Every distribution and test is scipy.stats' (scipy_stats() below
imports it once, or stops the tool with one line naming the package);
this module only decides which interval or test a quantity gets:

- a mean over processes: Student's t, unless its interval would run below
  what the quantity can be (a cost or a count: 0), where a bootstrap
  interval of the mean over the processes' values takes its place
  (mean_interval);
- a proportion of events in trials: Wilson's interval (wilson);
- a percentile of pooled histograms: the nearest rank at the bucket's
  midpoint, as lib/stats.c takes it, with the binomial order-statistic
  interval on the bucket CDF (hist_percentile, percentile_interval);
- two samples: the Mann-Whitney U rank test (mann_whitney_p), or Welch's t
  from means, CI half-widths and counts where only those are known
  (welch_p, welch_ci);
- the smallest change a comparison could have detected (detectable_change).
"""
import contextlib
import math
import os
import signal
import sys
import warnings

from mbguard import SIGNALS, EnvError, check_interrupted

# The bootstrap's resamples and seed: fixed, so that a folder merged twice
# gets the same intervals.
BOOT_RESAMPLES = 9999
BOOT_SEED = 20100101
# The detectable change: two-sided level and power.
DETECT_ALPHA = 0.05
DETECT_POWER = 0.80


SCIPY_MISSING = "python3-scipy not found: apt-get install python3-scipy"
_scipy = []	# (numpy, scipy.stats) once imported, or the reason they cannot be


def _load_scipy():
    import numpy
    import scipy.stats
    return numpy, scipy.stats


def _import_scipy():
    """numpy and scipy.stats, imported once for every tool, or why they
    cannot be. The tools run python3 -S, which leaves the system's
    site-packages (python3-scipy's) off the path: they are added where
    scipy is not found without them."""
    try:
        try:
            return _load_scipy()
        except ImportError:
            import site	# under -S, importing site adds nothing by itself
            sys.path += [d for d in site.getsitepackages() if os.path.isdir(d) and d not in sys.path]
            return _load_scipy()
    except ImportError as e:
        if isinstance(e, ModuleNotFoundError) and (e.name or "").split(".")[0] in ("numpy", "scipy"):
            return SCIPY_MISSING
        return f"cannot load python3-scipy ({str(e)[:120]})"
    except OSError as e:	# e.g. no file descriptor left for a shared library
        return f"cannot load python3-scipy: {e.strerror or e}"


def scipy_stats():
    """scipy.stats, or EnvError naming the package to install (exit 1)."""
    if not _scipy:
        # Signals wait until the import is done: one arriving inside it
        # can land in code scipy generates and prints on an error.
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
            _scipy.append(_import_scipy())
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    if isinstance(_scipy[0], str):
        # A signal raised inside numpy's import reads as a failed import:
        # it is the signal.
        check_interrupted()
        raise EnvError(_scipy[0])
    return _scipy[0][1]


def numpy_module():
    scipy_stats()
    return _scipy[0][0]


@contextlib.contextmanager
def quiet():
    """scipy's and numpy's warnings (a division by zero inside a
    distribution, a degenerate sample) are not the tools' output."""
    np = numpy_module()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _finite(*xs):
    return all(x is not None and not math.isnan(x) and not math.isinf(x) for x in xs)


# -- Student's t -------------------------------------------------------------

def t_quantile(q, df):
    """The q quantile of Student's t with df degrees of freedom."""
    if not _finite(df) or df <= 0:
        return math.nan
    with quiet():
        return float(scipy_stats().t.ppf(q, df))


def t_quantile_975(df):
    """The two-sided 95% quantile of Student's t (12.71 at 1, 1.96 at
    infinity): what a 95% CI half-width is in standard errors."""
    return t_quantile(0.975, df)


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if not _finite(t, df) or df <= 0:
        return math.nan
    with quiet():
        return float(2 * scipy_stats().t.sf(abs(t), df))


def mean_sd(vals):
    """Mean and sample standard deviation (NaN below two values)."""
    n = len(vals)
    if not n:
        return math.nan, math.nan
    m = sum(vals) / n
    if n < 2:
        return m, math.nan
    return m, math.sqrt(sum((v - m) ** 2 for v in vals) / (n - 1))


def sd_from_ci(h, n):
    """The sample standard deviation behind a 95% CI half-width h of a mean
    of n samples (Student's t)."""
    if not _finite(h, n) or n < 2:
        return math.nan
    return h / t_quantile_975(n - 1) * math.sqrt(n)


def welch_df(va, na, vb, nb):
    """Welch-Satterthwaite degrees of freedom from the two variances of
    the means (s^2 / n) and the counts."""
    den = va * va / (na - 1) + vb * vb / (nb - 1)
    return (va + vb) * (va + vb) / den if den > 0 else na + nb - 2	# den underflows for tiny CIs


def _welch(ca, na, cb, nb):
    """The standard error of a difference of two means, from their 95% CI
    half-widths and sample counts, and its Welch degrees of freedom."""
    sa, sb = ca / t_quantile_975(na - 1), cb / t_quantile_975(nb - 1)
    va, vb = sa * sa, sb * sb       # variance of the mean
    return math.sqrt(va + vb), welch_df(va, na, vb, nb)


def welch_p(ma, ca, na, mb, cb, nb):
    """Welch's t-test from means, 95% CI half-widths and sample counts."""
    if not (na >= 2 and nb >= 2) or not _finite(ma, ca, mb, cb):
        return math.nan
    se, df = _welch(ca, na, cb, nb)
    if se == 0:
        return 0.0 if ma != mb else 1.0
    return t_two_sided_p((mb - ma) / se, df)


def welch_ci(ma, ca, na, mb, cb, nb, alpha=0.05):
    """mb - ma and the half-width of its 1 - alpha CI (Welch), from the
    sides' 95% CI half-widths; NaN without one."""
    if not (na >= 2 and nb >= 2) or not _finite(ma, ca, mb, cb):
        return mb - ma, math.nan
    se, df = _welch(ca, na, cb, nb)
    return mb - ma, t_quantile(1 - alpha / 2, max(1.0, df)) * se


# -- intervals ---------------------------------------------------------------

def bootstrap_mean(vals, least=None):
    """The 95% percentile-bootstrap interval of the mean of vals (fixed
    seed), never below least."""
    np = numpy_module()
    x = np.asarray(vals, dtype=float)
    if len(x) < 2 or float(x.min()) == float(x.max()):
        lo = hi = float(x.mean()) if len(x) else math.nan
    else:
        with quiet():
            ci = scipy_stats().bootstrap((x,), np.mean, confidence_level=0.95, n_resamples=BOOT_RESAMPLES,
                                 method="percentile", random_state=BOOT_SEED).confidence_interval
        lo, hi = float(ci.low), float(ci.high)
    if least is not None and lo < least:
        lo = least
    return lo, hi


def mean_interval(vals, least=None):
    """A mean over samples (a point's processes) and its 95% interval:
    (mean, Student's t half-width, lo, hi, method). The interval is mean
    -/+ the half-width ("t") unless that runs below least (the column's
    least value: 0 for a cost or a count), where it is the bootstrap
    interval of the mean ("bootstrap"). Below two samples: no interval."""
    vals = [v for v in vals if _finite(v)]
    m, sd = mean_sd(vals)
    if len(vals) < 2:
        return m, math.nan, math.nan, math.nan, ""
    h = t_quantile_975(len(vals) - 1) * sd / math.sqrt(len(vals))
    if least is not None and m - h < least:
        lo, hi = bootstrap_mean(vals, least)
        return m, h, lo, hi, "bootstrap"
    return m, h, m - h, m + h, "t"


def wilson(k, n):
    """The 95% Wilson interval of a proportion of k events in n trials,
    within [0, 1]; (NaN, NaN) without trials."""
    if not _finite(k, n) or n < 1 or not 0 <= k <= n:
        return math.nan, math.nan
    with quiet():
        ci = scipy_stats().binomtest(int(round(k)), int(round(n))).proportion_ci(confidence_level=0.95, method="wilson")
    return max(0.0, float(ci.low)), min(1.0, float(ci.high))


def _pct_rank(p_percent, n):
    """The nearest rank of percentile p_percent (50, 99.9) among n samples,
    as lib/stats.c's hist_percentile computes it."""
    return max(1, math.ceil(p_percent / 100.0 * n))


def _at_rank(buckets, rank):
    """The bucket (lo, hi, count) holding the rank-th smallest sample."""
    seen = 0
    for b in buckets:
        seen += b[2]
        if seen >= rank:
            return b
    return buckets[-1]


def hist_percentile(buckets, p_percent, least, most):
    """Percentile p_percent (50, 99.9) of a histogram [(lo, hi, count)]
    sorted by lo: the nearest rank's bucket midpoint within [least, most]
    (the exact min and max), as lib/stats.c takes it."""
    n = sum(b[2] for b in buckets)
    if not n:
        return math.nan
    lo, hi, _ = _at_rank(buckets, _pct_rank(p_percent, n))
    return min(max((lo + hi) / 2, least), most)


def percentile_interval(buckets, p_percent, least, most):
    """The 95% interval of percentile p_percent from the order statistics
    of a histogram's samples: the ranks a binomial(n, p) count of samples
    below the true percentile falls between with 95%, read from the bucket
    CDF as the lower bucket's low end and the upper bucket's high end,
    within [least, most]."""
    n = sum(b[2] for b in buckets)
    if not n:
        return math.nan, math.nan
    q = p_percent / 100.0
    binom = scipy_stats().binom
    with quiet():
        lo_rank = max(1, int(binom.ppf(0.025, n, q)))
        hi_rank = min(n, int(binom.ppf(0.975, n, q)) + 1)
    lo = _at_rank(buckets, lo_rank)[0]
    hi = _at_rank(buckets, hi_rank)[1]
    return min(max(lo, least), most), max(min(hi, most), least)


# -- tests -------------------------------------------------------------------

MIN_RANK_SAMPLES = 4	# a side needs this many values for the rank test


def mann_whitney_p(xs, ys):
    """The two-sided Mann-Whitney U test of two samples; 1 where every
    value is the same."""
    if len(xs) < 1 or len(ys) < 1:
        return math.nan
    if len(set(xs) | set(ys)) == 1:
        return 1.0
    with quiet():
        p = float(scipy_stats().mannwhitneyu(xs, ys, alternative="two-sided").pvalue)
    return 1.0 if math.isnan(p) else p


def median(vals):
    s = sorted(vals)
    n = len(s)
    if not n:
        return math.nan
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def same_direction(xa, xb):
    """Whether the median of xb minus that of xa has the sign of the
    difference of their means (a skewed sample can move them apart)."""
    dm = median(xb) - median(xa)
    da = sum(xb) / len(xb) - sum(xa) / len(xa)
    return (dm > 0) - (dm < 0) == (da > 0) - (da < 0)


def detectable_change(sa, na, sb, nb, mean_a, alpha=DETECT_ALPHA, power=DETECT_POWER):
    """The smallest change of a mean, as a fraction of |mean_a|, that a
    two-sided test at alpha detects with the given power, from each side's
    standard deviation and count: (t(1 - alpha/2) + t(power)) x
    sqrt(sa^2/na + sb^2/nb) / |mean_a|, with Welch's degrees of freedom.
    NaN without two values a side or a spread."""
    if not _finite(sa, na, sb, nb, mean_a) or na < 2 or nb < 2 or mean_a == 0:
        return math.nan
    va, vb = sa * sa / na, sb * sb / nb
    df = welch_df(va, na, vb, nb)
    return (t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * math.sqrt(va + vb) / abs(mean_a)


def overlap(a, b):
    """Whether two (value, CI half-width) intervals overlap; a missing CI
    overlaps everything (nothing can be told)."""
    (va, ca), (vb, cb) = a, b
    if any(math.isnan(x) for x in (va, ca, vb, cb)):
        return True
    return abs(va - vb) <= ca + cb
