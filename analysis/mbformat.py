# SPDX-License-Identifier: MIT
"""How the analysis prints a figure: a time or a rate in its unit (ns, µs,
ms; k, M, G), a measure with its 95% CI to the digits the CI supports
(fmt_ci), and Markdown tables whose cells a folder's text cannot break."""
import math

from mbresults import COLUMNS, ci_column, num


# Each unit's scales, largest first: a figure is printed in the largest
# one its size reaches (a time: ns, µs, ms; a rate or a count: k, M, G).
_SCALES = {"ns": ((1e6, "ms"), (1e3, "µs"), (1, "ns")),
           "num": ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""))}


def scale_of(v, unit):
    """(divisor, suffix) v is printed with in unit ("ns" or "num")."""
    return next(((d, u) for d, u in _SCALES[unit] if abs(v) >= d), _SCALES[unit][-1])


def fmt_ns(v):
    """A time in ns as "2.4 µs" (3 significant digits)."""
    if v is None or math.isnan(v):
        return "-"
    d, u = scale_of(v, "ns")
    return f"{v / d:.3g} {u}"


def fmt_num(v, digits=3, sep=" "):
    """A rate or a count as "1.25 M" (digits significant digits)."""
    if v is None or math.isnan(v):
        return "-"
    d, u = scale_of(v, "num")
    return f"{v / d:.{digits}g}{sep + u if u else ''}"


def sig(x, d=2):
    """x to d significant digits, without an exponent."""
    if math.isnan(x):
        return "-"
    y = float(f"{x:.{d}g}")
    return f"{y:,.0f}" if abs(y) >= 10 ** (d - 1) else f"{y:.{d}g}"


def fmt_share(v, unit):
    """A CI or change as a share (2 digits; whole numbers from 100 up)."""
    return f"{v:.0f}{unit}" if abs(v) >= 100 else f"{v:.2g}{unit}"


# Honest digits: a figure is printed to the decimal place its 95% CI
# supports (the CI with two significant digits when they start with 1 or 2,
# else one), and with no CI at all from fewer than MIN_CI_SAMPLES repeats
# (two significant digits and n instead). Every table of report that prints
# a CI goes through fmt_ci.
MIN_CI_SAMPLES = 5
# A CI from the means of separate processes (a sweep's replicates, each the
# mean of its own repeats) is shown from 3 of them: Student's t over 2
# degrees of freedom (4.30) already widens it for so few.
MIN_CI_PROCESSES = 3


def ci_n(row, col=None):
    """The samples behind a row's CI, for fmt_ci: the processes it was
    measured in (replicates) where there are several, else its repeats;
    with col, also the ends of col's interval where the merge made it
    asymmetric (COL_ci95_lo and COL_ci95_hi: fmt_ci prints them)."""
    procs = num(row.get("replicates", "nan"))
    out = {"n": procs, "procs": True} if procs >= 2 else {"n": num(row.get("repeats", "nan")), "procs": False}
    if col is not None:
        lo, hi = num(row.get(f"{col}_ci95_lo")), num(row.get(f"{col}_ci95_hi"))
        if not (math.isnan(lo) or math.isnan(hi)):
            out.update(lo=lo, hi=hi)
    return out


def ci_shown(c):
    """Whether a CI from the samples ci_n gives ({"n", "procs"}) is shown:
    from MIN_CI_PROCESSES processes or MIN_CI_SAMPLES repeats (not where n
    is unknown)."""
    return c["n"] >= (MIN_CI_PROCESSES if c["procs"] else MIN_CI_SAMPLES)


def _ci_digits(ci):
    """The decimal exponent of the last digit a CI of ci keeps."""
    e = math.floor(math.log10(ci))
    lead = ci / 10 ** e
    return e - 1 if lead < 3 else e


def _fixed(v, exp):
    """v rounded to 10^exp, printed with exactly the digits that keeps."""
    v = round(v / 10 ** exp) * 10 ** exp
    return f"{v:.{max(0, -exp)}f}"


def fmt_ci(v, ci=None, n=None, unit="ns", procs=False, lo=None, hi=None):
    """A measure and its 95% CI half-width as "21.5 ± 2.4 µs": both in the
    value's unit, rounded to the CI's second significant digit (its first
    when that is 3 or more). Where the interval is asymmetric (lo and hi:
    a bootstrap's that a t-interval below 0 gave way to, a pooled
    percentile's) it is "6.1 [0.4, 14] ns" instead, to the digits of its
    half-length. The one rule for intervals: a quantity that cannot be
    negative (a cost, a rate: units "ns" and "num") never gets an interval
    below 0, so a symmetric one that would reach below is cut at 0 ("4
    [0, 8] k": the interval meets what the quantity can be, which keeps
    its coverage). Fewer than MIN_CI_SAMPLES repeats (n), or no CI: two
    significant digits and "(n=3)". unit: "ns" (ns, µs, ms), "num" (k, M,
    G), "count" (a count per barrier, never below 0) or "delta" (a
    difference of two counts per barrier, the storm's less the baseline's:
    signed, "+0.98 ± 0.02", and said so where the baseline's is higher)."""
    if v is None or math.isnan(v):
        return "-"
    if unit in ("count", "delta"):
        scale, suffix, sep = 1, "", ""
    else:
        scale, suffix = scale_of(v, unit)
        sep = " " if suffix else ""
    sign = "+" if unit == "delta" and v >= 0 else ""
    few = n is not None and not math.isnan(n) and not ci_shown({"n": n, "procs": procs})
    if ci is None or math.isnan(ci) or math.isinf(ci) or few or ci < 0:
        if v == 0:
            txt = "0"
        else:
            e = math.floor(math.log10(abs(v) / scale)) - 1
            txt = _fixed(v / scale, min(e, 0) if unit not in ("count", "delta") or abs(v) < 1 else e)
            if unit not in ("count", "delta") and abs(v / scale) >= 10:
                txt = f"{float(f'{v / scale:.2g}'):g}"
        extra = (f" (n={int(n)}{' processes' if procs else ''})" if few else
                 " (no CI)" if unit in ("count", "delta") else "")
        return f"{sign}{txt}{sep}{suffix}{extra}"
    if unit == "count" and v < 0:
        v = 0.0		# a count's mean below 0 is its noise
    if (lo is None or hi is None or math.isnan(lo) or math.isnan(hi) or hi <= lo) and unit != "delta" \
            and v >= 0 and ci >= v and ci > 0:
        lo, hi = 0.0, v + ci	# cut at 0: see the rule above
    if lo is not None and hi is not None and not (math.isnan(lo) or math.isnan(hi)) and hi > lo:
        exp = _ci_digits((hi - lo) / 2 / scale)
        return f"{_fixed(v / scale, exp)} [{_fixed(max(lo, 0.0) / scale, exp)}, {_fixed(hi / scale, exp)}]{sep}{suffix}"
    if ci == 0:
        return "0" if v == 0 else f"{sign}{v / scale:.3g}{sep}{suffix} (no spread" + (f" in n={int(n)})" if n and not math.isnan(n) else ")")
    exp = _ci_digits(ci / scale)
    mid = _fixed(v / scale, exp)
    txt = f"{'+' if unit == 'delta' and not mid.startswith('-') else ''}{mid} ± {_fixed(ci / scale, exp)}{sep}{suffix}"
    if unit == "delta" and v + ci < 0:
        txt += " (the baseline's higher)"
    return txt


def md_cell(c):
    """A table cell as Markdown shows it: text from a folder cannot end the
    cell or the table (| and line breaks)."""
    return " ".join(str(c).split("\n")).replace("\r", " ").replace("|", "\\|")


def md_table(header, rows):
    out = ["| " + " | ".join(md_cell(c) for c in header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(md_cell(c) for c in r) + " |")
    return "\n".join(out)




def unit_kind(table, col):
    """How fmt_ci prints measure col of table, from the schema: "ns" for a
    time, "delta" for a signed one (no least value: a difference of two
    counts), "num" for any other (a rate, a count per barrier)."""
    c = COLUMNS.get(table, {}).get(col) or {}
    if c.get("unit") == "ns":
        return "ns"
    return "delta" if "min" in c and c["min"] is None else "num"


def pm(exp, r, col, unit="ns"):
    """A measure of row r of table exp with its 95% CI half-width, to the
    digits the CI supports (fmt_ci), or its interval's ends where the merge
    of its processes made it asymmetric; n instead of a CI from few
    repeats."""
    ci = ci_column(exp, col)
    return fmt_ci(num(r[col]), num(r[ci]) if ci and r.get(ci, "") != "" else None, unit=unit, **ci_n(r, col))


def per_million(v, lo, hi):
    """A rate per million with its interval, "107,700 [107,000, 108,400]":
    rounded to the interval's half-width, never to digits that make its
    ends read the same; 0 seen is "0 [0, hi]"."""
    if v <= 0:
        return f"0 [0, {sig(hi)}]"
    half = (hi - lo) / 2
    e = math.floor(math.log10(half)) - 1 if half > 0 else 0
    e = max(e, 0) if v >= 10 else e

    def f(x):
        x = round(x / 10 ** e) * 10 ** e
        return f"{x:,.{max(0, -e)}f}"
    return f"{f(v)} [{f(lo) if lo > 0 else '0'}, {f(hi)}]"
