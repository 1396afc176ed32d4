# SPDX-License-Identifier: MIT
"""report's sections on how far each figure can be trusted: why a point is
flagged (flags, the flagged rows under a table and the Flagged points of
an experiment), the experiments' remarks, what the barriers did (the
repeats left out), the correctness failures, the Precision of the
appendix and the skipped measurements; and how report names a point."""
import math
import re

import verdict
from mbformat import MIN_CI_SAMPLES, fmt_share, md_table, pm, unit_kind
from mbresults import COLUMNS, EXPERIMENTS, KEYS, TABLES, ci_column, figures, host, is_control, num, ok_rows, reaches
from mbstats import detectable_change, sd_from_ci
from runquality import degraded_cause


HOST = {}	# the run's host facts, for the flags


PREFIX = {"threads": "T=", "callers": "C=", "other_threads": "others=", "round": "round ", "cpu": "cpu "}


def label(exp, r):
    """A row's point as the report names it: its key, less the run's
    settings (behaviour, ...), with T=, C=, ... prefixes."""
    names = [n for n in KEYS[exp] if not COLUMNS[exp][n]["setting"]]
    return " ".join(PREFIX.get(n, "") + str(r.get(n, "")) for n in names if r.get(n, "") != "")


def what(exp, r):
    """A row's name: the first text column of its key (mechanism, scheme,
    pairing, probe)."""
    col = next((n for n in KEYS[exp] if COLUMNS[exp][n]["type"] == "text"), None)
    return r.get(col, "") if col else ""


# Said once in each matrix's intro: what a flagged row is.
FLAGGED = (" A ↳ flagged row says why a point of the row above is flagged: its repeats, a CI wider than 10% "
           "that missed its target (with the CV), a cost that is the scheduler's tick.")


def flagged_note(body, exp):
    """What a ↳ flagged row is: said under the first table that has one."""
    if not any(x and str(x[0]).startswith("↳") for x in body):
        return ""
    if FLAGGED_SAID:
        return f" ↳ rows: as under §{FLAGGED_SAID[0]}."
    FLAGGED_SAID.append(exp)
    return FLAGGED


FLAGGED_SAID = []	# the section that said what a flagged row is


def flag_row(exp, rows, lead):
    """Under a row of a matrix table: why each of its points is flagged,
    with its repeats, or nothing when none is."""
    cells = []
    for r in rows:
        why = flags(exp, r, HOST) if r else []
        cells.append(f"{r.get('repeats', '?')} repeats: " + "; ".join(why) if why else "")
    if not any(cells):
        return []
    return [["↳ flagged"] + [""] * (lead - 1) + cells]


GRACE_MECHS = ("membarrier-global", "seed-v5-sched")	# a barrier that waits for a grace period


ROUGH_PCT = 10	# a missed CI target is flagged when the CI is wider than this share of the value


def tick_of(ns, h):
    """k where ns is k scheduler ticks (within 3%, from 1 ms up), or 0."""
    hz = num(h.get("hz"))
    if not hz > 0 or ns < 1e6:
        return 0
    k = round(ns * hz / 1e9)
    return k if k >= 1 and abs(ns * hz / 1e9 - k) <= 0.03 * k else 0


def flags(exp, r, h):
    """Why a row's point is flagged, from its own cells."""
    why = []
    if r.get("ci_target_met") == "0" and num(r.get("ci_achieved_pct")) > ROUGH_PCT:
        why.append(f"CI {num(r.get('ci_achieved_pct')):.0f}% > {r.get('ci_target_pct')}% target")
    cv = num(r.get("cv"))
    if cv > 0.1 and why:
        why.append(f"CV {cv:.0%}")
    few = num(r.get("repeats")) < MIN_CI_SAMPLES	# no CI is shown: n is
    if exp != "disturb" and not few:	# disturb's cells show their CIs
        for col, _, _ in figures(exp):
            # a figure the report shows (a difference of two of them, such
            # as ns_over_floor, has a wide CI by nature and is compare's)
            cc = COLUMNS.get(exp, {}).get(col, {})
            if "min" in cc and cc["min"] is None:	# signed: a difference
                continue
            ci = ci_column(exp, col)
            m, c = num(r.get(col)), num(r.get(ci)) if ci else math.nan
            if m > 0 and c > m / 2 and reaches(r, col):
                why.append(f"{col} CI wider than half the value")
    if r.get("oversubscribed") == "1" and why:
        why.append("oversubscribed")
    # A grace period is the barrier's own cost, however many ticks it lasts.
    if exp == "calls" and r.get("mechanism") not in GRACE_MECHS:
        k = tick_of(num(r.get("ns_per_call")), h)
        if k:
            why.append(f"{k} tick{'s' if k > 1 else ''} at HZ={h.get('hz')}: the scheduler's, not the barrier's cost")
    return why


INLINE = ("latency", "register", "rcu")	# one row a point: the flags are a column


MATRIX = ("calls", "distance", "contend")	# a point a cell: a flagged row under its row


def why(exp, r):
    return "; ".join(flags(exp, r, HOST)) or "-"


_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def merge_similar(notes):
    """Notes that differ only in their numbers (the same remark from each
    process of a point) said once, each number as its range: "ratio
    0.935-1.010 (10 times)"."""
    groups = {}
    for n in notes:
        groups.setdefault(_NUMBER.sub("#", n), []).append(n)
    out = []
    for tmpl, ns in groups.items():
        if len(ns) == 1:
            out.append(ns[0])
            continue
        cols = list(zip(*(_NUMBER.findall(n) for n in ns)))
        parts = tmpl.split("#")
        txt = parts[0]
        for i, col in enumerate(cols):
            lo = min(col, key=float)
            hi = max(col, key=float)
            txt += (lo if float(lo) == float(hi) else f"{lo}-{hi}") + parts[i + 1]
        out.append(f"{txt} ({len(ns)} processes)")
    return out


def harness_text(n):
    """The harness-overhead note without a pass/fail goal: a ratio near 1
    either way is noise at a few ns a call."""
    n = re.sub(r"\s*\(goal [^)]*\)", "", n)
    return n + "; within a few % of 1 either way (below 1 too) is noise at this resolution, not a pass or a fail"


def section_notes(run, exp, rows, remarks):
    """The experiment's flagged points in one table (point, value ± CI,
    repeats, why); the notes of its points that name no point go to
    remarks (the appendix), those that do are the rows' own flags."""
    h = host(run)
    names = {what(exp, r) for r in rows}
    for p in run.get("points", []):
        if isinstance(p, dict) and p.get("experiment") == exp:
            for n in p.get("notes") or []:
                if not isinstance(n, str):
                    continue
                head = n.split(":", 1)[0]
                if any(x and head.startswith(x) for x in names) and exp != "litmus":
                    continue
                if n.startswith("harness overhead"):
                    n = harness_text(n)
                if (exp, n) not in remarks:
                    remarks.append((exp, n))
    body = []
    if exp in INLINE or exp in MATRIX or exp == "litmus":	# litmus: its table shows each interval
        return []
    fig = next((c for c, _, _ in figures(exp) if ci_column(exp, c)), None)
    for r in ok_rows(rows):
        why = flags(exp, r, h)
        if why:
            # the column's own unit: a rate per million is no time
            body.append((label(exp, r), pm(exp, r, fig, unit_kind(exp, fig)) if fig else "-", r.get("repeats", "-") or "-",
                         "; ".join(why)))
    if not body:
        return []
    return [f"Flagged points ({fig}):", "", md_table(("point", "value", "repeats", "why flagged"), body), ""]


WORK_EXPS = ("calls", "latency", "distance", "contend", "rcu", "anatomy")


def rng(vs, f):
    """The range of vs as "a-b", or "a" where both ends read alike."""
    a, b = format(min(vs), f), format(max(vs), f)
    return a if a == b else f"{a}-{b}"


def section_work(data):
    """What the barriers did: the repeats left out and why, the points
    without a figure, and the IPIs and on-CPU shares behind the figures."""
    rows = [(e, r) for e in WORK_EXPS for r in data.get(e, []) if "repeats_degraded" in r]
    if not rows:
        return []
    deg = {e: sum(int(num(r.get("repeats_degraded"))) for ee, r in rows
                  if ee == e and not math.isnan(num(r.get("repeats_degraded")))) for e in WORK_EXPS}
    total = sum(deg.values())
    causes = {}
    for _, r in rows:
        if num(r.get("repeats_degraded")) > 0:
            c = degraded_cause(r.get("degraded_reason", ""))
            causes[c] = causes.get(c, 0) + 1
    lost = [f"{e} {r.get('mechanism') or r.get('scheme') or '?'}"
            + (f" {r['mode']}" if r.get("mode") else "")
            + (f" T={r['threads']}" if r.get("threads") else "") + (f" C={r['callers']}" if r.get("callers") else "")
            + (f" {r['level']}" if r.get("level") else "") for e, r in rows if r.get("status") == "degraded"]
    spin = [r for e, r in rows if e in ("calls", "latency", "distance") and r.get("status") == "ok"
            and r.get("oversubscribed") != "1" and not math.isnan(num(r.get("target_oncpu_share")))]
    senders = [m for m in verdict.RECONCILE if m != "membarrier-global"]	# a grace period sends none
    ipis = [num(r["ipis_per_barrier"]) for r in spin if r.get("mechanism") in senders
            and not math.isnan(num(r.get("ipis_per_barrier")))]
    on = [num(r["target_oncpu_share"]) for r in spin]
    txt = (f"Every repeat of calls, latency, distance, contend, rcu and anatomy records the IPIs its barriers sent and the share "
           f"of it each spinning target was on its CPU; a repeat whose target was off its CPU over 10% of it, "
           f"or that sent under 90% of the IPIs due, is left out and measured again. Here {total} repeat"
           f"{'s were' if total != 1 else ' was'} left out ("
           + ", ".join(f"{e} {deg[e]}" for e in WORK_EXPS if any(ee == e for ee, _ in rows)) + ")")
    if causes:
        txt += ", in points where " + "; ".join(f"{c} ({n} point{'s' if n != 1 else ''})"
                                                 for c, n in sorted(causes.items(), key=lambda x: -x[1]))
    txt += "."
    if lost:
        txt += f" {len(lost)} point{'s have' if len(lost) != 1 else ' has'} no figure (status degraded): " \
            + ", ".join(lost) + "."
    if ipis and on:
        txt += (f" Behind the calls, latency and distance figures at T >= 2 (no more threads than CPUs), the barriers that send IPIs sent "
                f"{rng(ipis, '.2f')} per barrier (one target CPU at T=2), with the targets on their CPUs "
                f"{rng([100 * v for v in on], '.0f')}% of the repeat.")
    return ["## What the barriers did", "", txt + calibration_line(data), ""]


CALIBRATION = {}	# the folder's calibration.json, read by main


def calibration_line(data):
    """What the last `mbbench calibrate` of this host found, or how to get it."""
    c = CALIBRATION.get("last")
    if not isinstance(c, dict):
        return (" This folder has no calibration of this host beside it: before an A/B, `mbbench calibrate "
                "--plant 10` says what change a comparison can see here.")
    try:
        at = {"syscall": " in the membarrier(2) call (the floor's too, as a kernel change would)",
              "harness": " in the harness (outside the barrier path)"}.get(c.get("at"), "")
        alarms = c["false_alarms"]
        found = (f"found at {c['found_pct']:.0f}% [{c['found_lo']:.0f}, {c['found_hi']:.0f}] of the pooled "
                 "headline points" if c["found_pct"] is not None else "given no share (disturbed sweeps)")
        return (f" The last calibration of this host and kernel (`{c['folder']}`, {c['date']}): a planted "
                f"{c['plant_pct']}% change{at}, {c['runs']} runs a side of `sweep --ab` repeated {c['repeat']} "
                f"times, was {found}; pooled verdicts "
                + ", ".join(x["pooled_verdict"] or "none" for x in c["repetitions"])
                + f"; plain against plain flagged {sum(a['flagged'] for a in alarms)} of "
                f"{sum(a['points'] for a in alarms)} points. Runs a side for a {c['plant_pct']}% change of the pooled line here: "
                f"{c['runs_a_side'] or 'more than 40'}.")
    except (KeyError, TypeError):
        return (" The folder's calibration.json is not one this `mbbench calibrate` writes (an older design, or "
                "damaged): left out; run `mbbench calibrate --plant 10` again.")


def section_failed(data):
    """Rows whose own correctness check failed: findings, listed first."""
    rows = []
    for exp, rs in data.items():
        for r in rs:
            if r.get("status") != "failed":
                continue
            what = r.get("pairing") or r.get("scheme") or r.get("mechanism") or "?"
            if exp == "litmus":
                detail = (f"forbidden r1=r2=0 seen {r.get('r1_0_r2_0', '?')} times in "
                          f"{r.get('trials', '?')} trials")
            elif exp == "rcu":
                detail = f"{r.get('violations', '?')} reads saw a retired object"
            else:
                detail = "failed"
            rows.append((exp, what, detail))
    if not rows:
        return []
    return ["## Correctness failures", "",
            "These rows measured an ordering their mechanism promises and found it broken "
            "(they are results, not harness errors; see README, litmus).", "",
            md_table(("experiment", "what", "finding"), rows), ""]


# Figures whose precision the report leaves to `mbbench compare` (which
# tests them): the anatomy's per-phase and traced costs and disturb's victim
# latency follow from the figures listed.
PRECISION_LEFT_OUT = {("anatomy-phases", "p50_ns"), ("anatomy-phases", "p99_ns"), ("anatomy", "traced_ns"),
                      ("disturb", "p99_ns")}


def precision_figures():
    """The figures whose CIs say how certain a run is: each measure compare
    tests that has a CI column, as (table, column, CI column, by
    difference), from the result schema."""
    out = []
    for exp in EXPERIMENTS:
        figs = [(exp, col, ci_column(exp, col), test == "difference")
                for col, test, _ in figures(exp) if ci_column(exp, col) and (exp, col) not in PRECISION_LEFT_OUT]
        # A table's CIs as a share of the value first, then the counts'.
        out += sorted(figs, key=lambda f: f[3])
    return out


def section_precision(data):
    """How certain each figure of the run is: its CIs as a share of the
    value, the processes they come from, and the smallest change a
    comparison of one run a side can detect."""
    rows, mdcs = [], []
    for exp, col, cicol, by_diff in precision_figures():
        # Where a table has controls (litmus), only they are listed: the
        # other rows must show nothing, and one that did is a failure above.
        controls = TABLES[exp].get("control")
        good = [r for r in ok_rows(data.get(exp, [])) if (not controls or is_control(exp, r))
                and r.get(col, "") != ""]
        if not good:
            continue
        # The point's key, less the settings of the run (behaviour, ...).
        names = [n for n in KEYS[exp] if not COLUMNS[exp][n]["setting"]]
        rel = []
        for r in good:
            v, ci = num(r.get(col)), num(r.get(cicol))
            # A CI of 0 is repeats that all read the same (a quantized
            # figure), not a certain one: it is left out.
            if math.isnan(ci) or math.isnan(v) or not reaches(r, col) or ci == 0:
                continue
            if by_diff:	# a count: its CI as it is
                rel.append((ci, r))
            elif v > 0:
                rel.append((100 * ci / v, r))
        unit = "" if by_diff else "%"
        reps = sorted(int(num(r.get("replicates"))) for r in good if num(r.get("replicates", "nan")) >= 1)
        k = reps[len(reps) // 2] if reps else 1
        if rel:
            rel.sort(key=lambda x: x[0])
            med = rel[len(rel) // 2][0] if len(rel) % 2 else (rel[len(rel) // 2 - 1][0] + rel[len(rel) // 2][0]) / 2
            worst = rel[-1]
            label = " ".join(PREFIX.get(n, "") + str(worst[1].get(n, "")) for n in names)
            cells = (fmt_share(med, unit), f"{fmt_share(worst[0], unit)} ({label})")
            # The smallest change one run a side detects 80% of the time at
            # the 5% level at the median point: each side's spread is that of
            # a mean known to the median CI from k processes, and the rule is
            # compare's detectable_pct (mbstats.detectable_change), before
            # the multiple-comparison control; never below compare's
            # minimum effect of 2% for a share.
            if k >= 2:
                sd = sd_from_ci(med, k)
                mdc = detectable_change(sd, k, sd, k, 1.0 if by_diff else 100.0) * (1 if by_diff else 100)
                cells += (fmt_share(max(mdc, 0 if by_diff else 2), unit),)
            else:
                cells += ("- (one process)",)
        else:
            cells = ("-", "-", "-")
        rows.append((exp, col, len(good), len(rel), str(k)) + cells)
        if not by_diff and len(cells) == 3 and cells[2][0].isdigit():
            mdcs.append((exp, col, cells[2]))
    if not rows:
        return []
    lead = ("How certain each figure is: the 95% CI half-width as a share of the value (for IPIs per "
            "barrier, as a count), over the points that have one (a percentile has none when its batches "
            "hold too few samples to reach it: a p99 needs 100 a batch). ")
    lead += ("Each point was measured in several processes (`processes`), and its CI comes from their "
             "means: it includes what changes from one process to the next (the placement of memory and "
             "threads, the hypervisor's packing of vCPUs, cache colours), which repeats inside one process "
             "cannot see. " if any(r[4] != "1" for r in rows) else
             "**These CIs come from repeats inside one process** (a folder without replicates): runs of one "
             "host differ by more than they say (docs/FINDINGS.md). ")
    lead += ("`smallest change` is the change one run a side detects 80% of the time at the 5% level "
             "(two-sided) at the median point: `mbbench compare`'s `detectable_pct`, before its correction "
             "for many points.")
    if mdcs:
        lead += (" A change smaller than the last column at a figure is likely to be missed by one run a side "
                 "on this host at this preset; `mbbench calibrate` measures what an A/B here finds.")
    out = ["## Precision", "", lead, ""]
    return out + [md_table(("experiment", "figure", "points", "with a CI", "processes", "median CI",
                            "widest CI (point)", "smallest change"), rows), ""]


def section_skipped(data):
    """One line per experiment and reason: the points it names and the
    rows. A point a kernel patch would enable is listed for that alone."""
    lines = []
    for exp, rows in data.items():
        sk = [r for r in rows if r.get("status") == "skipped"]
        if not sk or exp == "anatomy":	# its section says why, in one line
            continue
        patched = {what(exp, r) for r in sk if "patched kernel" in r.get("skip_reason", "")}
        by = {}
        for r in sk:
            w = what(exp, r) or label(exp, r) or "(unnamed row)"
            why = r.get("skip_reason", "") or "no reason given"
            if exp == "distance" and "patched kernel" not in why:
                continue	# the levels this host lacks: its section's line
            if w in patched and "patched kernel" not in why:
                continue
            names, n = by.setdefault(why, ([], [0]))
            if w not in names:
                names.append(w)
            n[0] += 1
        merged = {}
        for why, (names, n) in by.items():
            m = merged.setdefault(tuple(names), [[], 0])
            m[0].append(why)
            m[1] += n[0]
        for names, (whys, n) in merged.items():
            lines.append((exp, "; ".join(whys), names, n))
    if not lines:
        return []
    # One line per reason, over the experiments that gave it.
    per = {}
    for exp, why, names, n in lines:
        e = per.setdefault(why, ([], []))
        e[0].extend(x for x in names if x not in e[0])
        e[1].append(f"{exp} ({n} row{'s' if n != 1 else ''})")
    return ["## Skipped measurements", ""] + [f"- {why}: {', '.join(names)}; in {', '.join(where)}"
                                              for why, (names, where) in per.items()] + [""]
