# SPDX-License-Identifier: MIT
"""`mbbench compare --format text`: a comparison as plain text of at most
72 columns, to paste under a kernel patch (no Markdown).

Only a formatter: it takes the rows compare() has already computed (each
with a, b, their CIs a_ci and b_ci where the points have them, ratio or
diff, sig and verdict) and the run.json of each side, and decides nothing
about significance. The change's interval is the row's own where it
carries one (ratio_low and ratio_high: the verdict's own test's, printed
as its ends), else the two CIs combined as independent relative errors
(delta method).
"""
import math
import textwrap

from abdesign import pooled_words
from mbformat import fmt_num
from mbresults import host

WIDTH = 72
# Host facts that differ between any two runs (counters since boot): never
# a difference of setting.
VOLATILE = ("tlb_shootdowns_since_boot",)
VERDICT = {"better": "better", "worse": "WORSE", "changed": "changed", "mixed": "mixed"}


def _num(v):
    """A value in at most 6 characters: 4 significant digits, k/M/G."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, str):
        return v
    return fmt_num(v, 4, "")


def _pm(v, ci):
    if ci is None or (isinstance(ci, float) and math.isnan(ci)):
        return _num(v)
    return f"{_num(v)} ±{_num(ci)}"


def _end(ratio):
    """An end of a change's interval in %: "+0.4", "+12.5", "-3.1", "+250"."""
    x = (ratio - 1) * 100
    return f"{x:+.1f}" if abs(x) < 100 else f"{x:+.0f}"


def change(r):
    """(change text, its CI text) of one row: % for a ratio, B-A for a count."""
    if r["kind"] == "status":
        return f"{r['a']}->{r['b']}", ""
    if r["kind"] == "count":
        return f"{r['diff']:+.3g}", ""
    ratio = r.get("ratio", math.nan)
    if ratio is None or math.isnan(ratio):
        return "-", ""
    pct = (ratio - 1) * 100
    lo, hi = r.get("ratio_low"), r.get("ratio_high")
    if lo is not None and hi is not None:
        # compare's own interval of the change, from the verdict's test
        # (on the log scale it is not symmetric): its ends
        return f"{pct:+.1f}%", f"[{_end(min(lo, hi))},{_end(max(lo, hi))}]"
    a, b, ca, cb = r["a"], r["b"], r.get("a_ci"), r.get("b_ci")
    if ca is None or cb is None or math.isnan(ca) or math.isnan(cb) or not a or not b:
        return f"{pct:+.1f}%", ""
    half = 100 * ratio * math.hypot(ca / a, cb / b)
    return f"{pct:+.1f}%", f"±{half:.1f}"


def verdict(r):
    if r["sig"] == "?":
        return "no CI"
    return VERDICT.get(r["verdict"], "same")


def _wrap(text, indent="", sub=None):
    sub = indent if sub is None else sub
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=sub,
                         break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


def _differing(a, b):
    """A long value as the parts only one side has (a boot command line,
    the vulnerabilities, a kernel config): "; "-separated where both are,
    else by word; a short one as it is."""
    if len(a) <= 40 and len(b) <= 40:
        return [("before", a), ("after", b)]
    sep = "; " if "; " in a and "; " in b else None
    pa, pb = a.split(sep), b.split(sep)
    oa = [x for x in pa if x not in pb]
    ob = [x for x in pb if x not in pa]
    join = sep or " "
    return [("before only", join.join(oa) or "-"), ("after only", join.join(ob) or "-")]


def host_lines(name_a, name_b, ra, rb, diffs):
    """The runs, and every recorded fact in which they differ: compare's
    own list first, then the other host facts of run.json; facts one run
    did not record are named on one line."""
    ha, hb = host(ra), host(rb)
    out = _wrap(f"before: {name_a} ({ha.get('hostname', '?')}, {ha.get('kernel_release', '?')})", "", "  ")
    out += _wrap(f"after:  {name_b} ({hb.get('hostname', '?')}, {hb.get('kernel_release', '?')})", "", "  ")
    seen = {d[0] for d in diffs}
    facts = list(diffs) + [(k, str(ha.get(k, "?")), str(hb.get(k, "?")))
                           for k in list(ha) + [k for k in hb if k not in ha]
                           if k not in seen and k not in VOLATILE and ha.get(k) != hb.get(k)]
    both = [f for f in facts if "?" not in (f[1], f[2]) and "None" not in (f[1], f[2])]
    one = [f for f in facts if f not in both]
    out.append("")
    if not facts:
        return out + ["The runs share every recorded host fact and setting."]
    if both:
        out.append("Host facts that differ:")
    for k, a, b in both:
        out.append(f"  {k}")
        sides = _differing(a, b)
        w = max(len(side) for side, _ in sides) + 2
        for side, v in sides:
            out += _wrap(f"{side + ':':<{w}}{v}", "    ", "    " + " " * w)
    for side, lst in (("before", [f[0] for f in one if f[1] not in ("?", "None")]),
                      ("after", [f[0] for f in one if f[2] not in ("?", "None")])):
        if lst:
            out += _wrap(f"Recorded {side} only: {', '.join(lst)}.", "", "  ")
    return out


def _split(label):
    """A point's label (compare's "col=value col=value") as pairs."""
    pairs = []
    for tok in label.split(" "):
        if "=" in tok or not pairs:
            pairs.append(tok)
        else:
            pairs[-1] += " " + tok
    return pairs


def point_lines(results, only_a, only_b, experiments, level=95):
    out = []
    cols = (18, 18, 16)
    head = (f"  {'before ±CI':>{cols[0]}} {'after ±CI':>{cols[1]}} {f'change [{level:g}%]':>{cols[2]}}  verdict")
    for exp in experiments:
        rows = [r for r in results if r["experiment"] == exp]
        if not rows:
            continue
        figs = []
        for r in rows:
            if r["figure"] not in figs:
                figs.append(r["figure"])
        for fig in figs:
            frows = [r for r in rows if r["figure"] == fig]
            split = [_split(r["point"]) for r in frows]
            common = [p for p in split[0] if all(p in s for s in split)] if len(frows) > 1 else []
            lb = frows[0].get("lower_better")
            way = {True: ", lower is better", False: ", higher is better"}.get(lb, "")
            out += [""] + _wrap(f"{exp}: {fig}{way}", "", "  ")
            if common:
                out += _wrap("all: " + " ".join(common), "  ", "       ")
            out.append(head)
            for r, s in zip(frows, split):
                # The point's name (its first key) without its column's.
                rest = [p.partition("=")[2] if i == 0 else p for i, p in enumerate(s) if p not in common]
                label = " ".join(rest) or "(the one point)"
                ch, ci = change(r)
                out += _wrap(label, "  ", "    ")
                out.append(f"  {_pm(r['a'], r.get('a_ci')):>{cols[0]}} {_pm(r['b'], r.get('b_ci')):>{cols[1]}} "
                           f"{(ch + ' ' + ci).strip():>{cols[2]}}  {verdict(r)}")
    if only_a or only_b:
        out += ["", "Points in one run only:"]
        for side, lst in (("before", only_a), ("after", only_b)):
            by = {}
            for e, p in lst:
                name = _split(p)[0].partition("=")[2] if p else ""
                names = by.setdefault(e, [])
                if name not in names:
                    names.append(name)
            for e, names in by.items():
                n = sum(1 for x in lst if x[0] == e)
                out += _wrap(f"{side} only, {e}: {n} point{'s' if n > 1 else ''} "
                             f"({', '.join(names)})", "  ", "    ")
    return out


def _tests(results):
    """The tests the rows were tested with, in words."""
    names = {"paired-runs": "the paired t on the ABBA pairs' log ratios",
             "welch-runs": "Welch's t on the runs' logs", "mann-whitney": "the Mann-Whitney U test on the processes' values",
             "welch": "Welch's t"}
    used = [names[t] for t in names if any(r.get("test") == t for r in results)]
    return " or ".join(used) or "a test"


def render_text(name_a, name_b, ra, rb, results, only_a, only_b, diffs, opts, experiments):
    """The whole comparison of one pair of runs, every line at most WIDTH."""
    out = ["membarrier-bench comparison", ""]
    for line in pooled_words(opts.pool, results):
        out += _wrap(line, "", "  ") + [""]
    out += host_lines(name_a, name_b, ra, rb, diffs)
    out += point_lines(results, only_a, only_b, experiments, 100 * (1 - opts.alpha))
    tested = sum(1 for r in results if not math.isnan(r.get("q", math.nan)))
    worse = sum(1 for r in results if r["verdict"] == "worse")
    better = sum(1 for r in results if r["verdict"] == "better")
    out += [""] + _wrap(
        f"{len(results)} compared: {worse} worse, {better} better, "
        f"{sum(1 for r in results if r['sig'] == '?')} without a CI; {len(only_a)} only before, "
        f"{len(only_b)} only after. Change: after/before - 1 in % with its {100 * (1 - opts.alpha):g}% interval "
        f"from the verdict's own test (its half-width), after - before for a count; "
        f"a verdict needs {_tests(results)}, {opts.correction} within each family "
        f"({tested} tested points), an interval that leaves no change out, "
        f"q < {opts.alpha:g}, and at least {opts.min_effect:g}% apart; mixed: the medians and the "
        f"means moved in opposite directions.")
    # A cell from a folder may still be longer than a line: wrap it.
    final = []
    for line in out:
        final += _wrap(line, "", "    ") if len(line) > WIDTH else [line]
    return "\n".join(final) + "\n"
