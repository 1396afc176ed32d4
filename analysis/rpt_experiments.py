# SPDX-License-Identifier: MIT
"""report's section of each experiment that has one of its own: a table of
its points (calls, distance, latency with its modes, anatomy, disturb,
contend, register, rcu, litmus) and the kernel finding its rows carry."""
import math
import re

import verdict
from mbformat import ci_n, fmt_ci, fmt_ns, fmt_num, md_table, per_million, pm, sig
from mbresults import bounds, ci_column, is_control, num, ok_rows, reaches
from rpt_quality import flag_row, flagged_note, why


def section_calls(rows):
    good = ok_rows(rows)
    if not good:
        return []
    mechs = list(dict.fromkeys(r["mechanism"] for r in good))
    threads = sorted({int(r["threads"]) for r in good})
    by = {(r["mechanism"], int(r["threads"])): r for r in good}
    body = []
    for t in threads:
        line = [str(t) + (" (oversubscribed)" if any(
            by.get((m, t), {}).get("oversubscribed") == "1" for m in mechs) else "")]
        for m in mechs:
            r = by.get((m, t))
            line.append(pm("calls", r, "ns_per_call") if r else "-")
        body.append(line)
        body += flag_row("calls", [by.get((m, t)) for m in mechs], 1)
    b = [r for r in good if r["behaviour"]]
    beh = b[0]["behaviour"] if b else "?"
    return ["## calls: cost of one barrier vs threads", "",
            f"Mean ns per call ± 95% CI (from the processes it ran in, `replicates` in calls.csv, else its repeats); one caller, T-1 threads `{beh}`." + flagged_note(body, "calls"), "",
            md_table(["T"] + mechs, body), ""]


def section_distance(rows):
    good = ok_rows(rows)
    if not good:
        return []
    levels = list(dict.fromkeys(r["level"] for r in rows))
    mechs = list(dict.fromkeys(r["mechanism"] for r in good))
    by = {(r["mechanism"], r["level"]): r for r in good}
    body, absent = [], []
    for lv in levels:
        pair = next((r for r in good if r["level"] == lv), None)
        if pair is None:
            skipped = next((r for r in rows if r["level"] == lv and r.get("status") != "ok"), None)
            absent.append(f"{lv} ({skipped.get('skip_reason', '') if skipped else 'not measured'})")
            continue
        line = [lv, f"{pair['caller_cpu']} -> {pair['spinner_cpu']}"]
        for m in mechs:
            r = by.get((m, lv))
            line.append(pm("distance", r, "ns_per_call") if r else "-")
        body.append(line)
        body += flag_row("distance", [by.get((m, lv)) for m in mechs], 2)
    out = ["## distance: cost of one barrier by IPI distance", "",
           "Mean ns per call ± 95% CI (from its processes, else its repeats); one caller and one spinning thread "
           "at each level from the caller's CPU (OS numbers caller -> spinner)." + flagged_note(body, "distance"), "",
           md_table(["level", "CPUs"] + mechs, body), ""]
    if absent:
        out += ["Levels this host lacks: " + "; ".join(absent) + ".", ""]
    return out


def modes(hist, mech, threads):
    """The modes of a latency distribution from latency-histogram.csv:
    [(peak ns, share)] when it has two or more, each holding at least 10%
    of the samples and parted by a valley under half the smaller peak, on
    a scale of 4 bins an octave."""
    rows = [r for r in hist if r.get("mechanism") == mech and r.get("threads") == threads]
    bins = {}
    for r in rows:
        lo, hi, n = num(r.get("bucket_lo_ns")), num(r.get("bucket_hi_ns")), num(r.get("count"))
        if lo > 0 and n > 0:
            b = int(math.floor(4 * math.log2((lo + hi) / 2)))
            bins[b] = bins.get(b, 0) + n
    if not bins:
        return []
    total = sum(bins.values())
    keys = list(range(min(bins), max(bins) + 1))
    c = [bins.get(k, 0) for k in keys]
    sm = [(c[max(i - 1, 0)] + 2 * c[i] + c[min(i + 1, len(c) - 1)]) / 4 for i in range(len(c))]
    peaks = [i for i in range(len(sm)) if sm[i] > 0 and (i == 0 or sm[i] >= sm[i - 1])
             and (i == len(sm) - 1 or sm[i] > sm[i + 1])]
    # Merge peaks with no deep valley between them, keep the larger.
    kept = []
    for p in peaks:
        if kept:
            q = kept[-1]
            valley = min(sm[q:p + 1])
            if valley >= 0.5 * min(sm[q], sm[p]):
                if sm[p] > sm[q]:
                    kept[-1] = p
                continue
        kept.append(p)
    if len(kept) < 2:
        return []
    # Each mode's share: the samples up to the valleys either side.
    cuts = [0] + [kept[i] + min(range(kept[i + 1] - kept[i] + 1), key=lambda j: sm[kept[i] + j])
                  for i in range(len(kept) - 1)] + [len(c)]
    out = []
    for i, p in enumerate(kept):
        share = sum(c[cuts[i]:cuts[i + 1]]) / total
        out.append((2 ** ((keys[p] + 0.5) / 4), share))
    out = [m for m in out if m[1] >= 0.1]
    return out if len(out) >= 2 else []


def section_latency(rows, hist):
    good = ok_rows(rows)
    if not good:
        return []

    def q(r, col):
        return pm("latency", r, col) if reaches(r, col) else fmt_ns(num(r[col]))

    body, multi = [], []
    for r in good:
        md = modes(hist, r["mechanism"], r["threads"])
        if md:
            multi.append(r["mechanism"])
        body.append((r["mechanism"], r["threads"], r["samples"], q(r, "p50_ns"), q(r, "p99_ns"),
                     fmt_ns(num(r["max_ns"])),
                     ", ".join(f"{fmt_ns(float(f'{v:.2g}'))} ({s:.0%})" for v, s in md) if md else "one",
                     why("latency", r)))
    out = ["## latency: one barrier's cost distribution", "",
           "Percentiles ± 95% CI (from the processes' percentiles, else the batches'; none where a batch is too small to reach the percentile); "
           "each sample includes two clock reads (the null row is that floor). A distribution with two or "
           "more modes is given by them (peak and share, from `latency-histogram.csv`): its p50 belongs to one "
           "mode and its mean to neither.", "",
           md_table(("mechanism", "T", "samples", "p50", "p99", "max", "modes", "flagged"), body), ""]
    return out


# anatomy's phases as the report shows them: (phase, heading).
ANATOMY_PHASES = (("setup", "entry → queue"), ("delivery", "queue → handler"), ("handler", "handler"),
                  ("wait", "last exit → return"))


_CLOCK = re.compile(r"clock check CPU (\d+) vs (\d+): offset ([-+]?\d+) ns within \+-(\d+) ns.*; (\d+) rounds")


def anatomy_clocks(run):
    """The clock checks of the anatomy points' notes: (pairs, the largest
    |offset| + half round trip in ns, rounds out of order)."""
    pairs, worst, bad = 0, 0.0, 0
    for p in run.get("points", []):
        if isinstance(p, dict) and p.get("experiment") == "anatomy":
            for n in p.get("notes") or []:
                m = _CLOCK.match(n) if isinstance(n, str) else None
                if m:
                    pairs += 1
                    worst = max(worst, abs(int(m.group(3))) + int(m.group(4)))
                    bad += int(m.group(5))
    return pairs, worst, bad


def section_anatomy(run, data):
    rows = data.get("anatomy", [])
    if not rows:
        return []
    good = ok_rows(rows)
    out = ["## anatomy: where a barrier's time goes", ""]
    f = verdict.anatomy_finding(data)
    if good:
        out += [(f"**{f[0].upper()}{f[1:]}.** " if f else "")
                + "Each phase's median ± 95% CI, from the kernel's tracepoints (csd:*, ipi:*, syscalls:*) of "
                "the caller and its targets: entry → queue is the mutex, the mask and the setup; queue → handler "
                "the IPI's delivery (the floor); last exit → return the wait and the return. `untraced → traced`: "
                "the median barrier that sends, without and with tracing (what tracing costs); `x floor`: the "
                "untraced one ÷ delivery; `software`: the traced total's share outside delivery.", ""]
        body = []
        for r in good:
            m, t = r["mechanism"], r["threads"]

            def ph(name):
                p = verdict.anatomy_phase(data, m, t, name)
                return pm("anatomy-phases", p, "p50_ns") if p else "-"
            if r.get("phases_from") == "csd":
                cells = [ph(k) for k, _ in ANATOMY_PHASES]
            else:	# ipi:* alone: entry -> first IPI sent and IPI sent -> exit
                cells = [ph("to-ipi") + " (to IPI)", "-", "-", ph("after-ipi") + " (after IPI)"]
            ratio, soft = num(r.get("untraced_over_delivery")), num(r.get("software_share"))
            body.append([m, t] + cells + [ph("total"), f"{fmt_ci(num(r.get('untraced_sent_p50_ns')))} → "
                                          f"{fmt_ci(num(r.get('traced_sent_p50_ns')))}",
                                          f"{ratio:.{1 if ratio < 10 else 0}f}x" if ratio > 0 else "-",
                                          f"{soft:.0%}" if not math.isnan(soft) else "-"])
        out += [md_table(["mechanism", "T"] + [h for _, h in ANATOMY_PHASES]
                         + ["traced total", "untraced → traced", "x floor", "software"], body), ""]

        def tot(c):
            return sum(int(num(r[c])) for r in good if r.get(c, "") != "")
        miss = tot("missing_handler") + tot("missing_handler_exit")
        pairs, worst, bad = anatomy_clocks(run)
        sums = [num(r.get("phase_sum_over_total")) for r in good if r.get("phase_sum_over_total")]
        k = run.get("replicates") if isinstance(run.get("replicates"), int) else 1
        few = [r for r in good if 1 <= num(r.get("replicates", "nan")) < k]
        out.append(
            (f"Clocks: {pairs} checks of the caller's CPU against each target's (ping-pong) put them within "
             f"±{worst:.0f} ns, {bad} rounds out of order; " if pairs else "Clocks: not checked (no target CPU); ")
            + f"of {tot('barriers'):,} syscall windows traced, {miss} lacked a handler's entry or exit, "
            f"{tot('unclosed')} syscall events were unpaired and {tot('lost_records')} records lost (counted, left "
            f"out of the phases); {tot('no_call'):,} queued no cross-CPU call"
            + ((f"; the phases sum to {min(sums):.2f}" + (f"–{max(sums):.2f}" if f"{max(sums):.2f}" != f"{min(sums):.2f}" else "")
                + " of the traced total") if sums else "")
            + (f"; from fewer than the run's {k} processes (the others' rows were skipped: their "
               f"raw/anatomy-*.N/anatomy.csv say why): " + ", ".join(f"{r['mechanism']} T={r['threads']} "
                                                                    f"({r['replicates']})" for r in few)
               if few else "") + ".")
    sk = {}
    for r in rows:
        if r.get("status") == "skipped":
            sk.setdefault(r.get("skip_reason") or "no reason given", []).append(r["mechanism"])
    if sk:	# one line, after the checks when there are some
        line = "Skipped: " + " ".join(f"{', '.join(dict.fromkeys(ms))}: {why.rstrip('.')}." for why, ms in sk.items())
        if good:
            out[-1] += " " + line
        else:
            out.append(line)
    return out + [""]


FLOOR_NS = 100	# a victim's p99 at or under this is its loop's own floor


DISTURB_ROLES = ("idle", "self-spin", "self-sleep", "foreign-spin", "foreign-rt", "foreign-sleep")


def section_disturb(rows):
    good = ok_rows(rows)
    storm = [r for r in good if r["phase"] == "storm" and r["role"] != "caller"]
    if not storm:
        return []
    base = {(r["mechanism"], r["round"], r["cpu"]): r for r in good if r["phase"] == "baseline"}

    def lat(r, col):
        b = base.get((r["mechanism"], r["round"], r["cpu"]))
        if not r.get(col):
            return None
        before, after = (num(b[col]) if b and b.get(col) else math.nan), num(r[col])
        if after <= FLOOR_NS and (math.isnan(before) or before <= FLOOR_NS):
            return "no effect measurable (loop floor)"
        return f"{fmt_ns(before)} → {fmt_ns(after)}"

    def cell(r):
        ci = ci_column("disturb", "ipis_per_barrier")
        txt = fmt_ci(num(r["ipis_per_barrier"]), num(r[ci]) if r.get(ci) else None, None, "delta")
        if r.get("signals"):
            txt += f", {r['signals']} signals"
        onc = num(r.get("oncpu_fraction"))
        if r["role"].startswith("self") and not math.isnan(onc):
            txt += f" (oncpu {min(max(onc, 0.0), 1.0):.2f})"
        if r.get("where") == "remote":
            txt += f" (cpu {r['cpu']}, remote)"
        return txt

    mechs = list(dict.fromkeys(r["mechanism"] for r in storm))
    roles = [x for x in DISTURB_ROLES if any(r["role"] == x for r in storm)] + \
        list(dict.fromkeys(r["role"] for r in storm if r["role"] not in DISTURB_ROLES))
    victims = [x for x in roles if any(r["role"] == x and r.get("p99_ns") for r in storm)]
    body = []
    for m in mechs:
        mine = [r for r in storm if r["mechanism"] == m]
        line = [m] + ["; ".join(cell(r) for r in mine if r["role"] == x) or "-" for x in roles]
        line += ["; ".join(v for r in mine if r["role"] == x for v in [lat(r, "p99_ns")] if v) or "-"
                 for x in victims]
        body.append(line)
    src = sorted({r["ipi_source"] for r in storm if r.get("ipi_source")})
    targeted = [t for m in TARGETED if m in mechs for t in [targeted_line(m, [r for r in storm if r["mechanism"] == m])]]
    return ["## disturb: IPIs and latency inflicted on other CPUs", "",
            f"Function-call IPIs per barrier on each kind of CPU, a difference: the storm's less the baseline's, "
            f"± 95% CI (source: {', '.join(src) or 'none'}; a signal is not such an IPI: it shows as signals). A "
            "difference near 0 is noise of the CPU's own interrupts, either way. A self-spin or self-sleep CPU is interrupted only while our thread is "
            "current there (oncpu: the share of the storm, within 0-1). Victim p99: baseline → storm. "
            "Each CPU's row (and the membarrier and TLB counts) is in `disturb.csv`.", "",
            md_table(["mechanism"] + roles + [f"victim p99 ({x})" for x in victims], body), ""] \
        + ([" ".join(targeted), ""] if targeted else [])


# The commands that target one CPU (MEMBARRIER_CMD_FLAG_CPU): the first team
# thread's.
TARGETED = ("membarrier-private-expedited-rseq-cpu",)


NOISE = 0.05	# IPIs per barrier a CPU not targeted may show (docs/FINDINGS.md, Counting IPIs)


def targeted_line(m, rows):
    """Whether a targeted command's storm rows show IPIs on its target
    alone: the membarrier-attributed count where there, else every IPI."""
    def v(r):
        col = "mb_ipis_per_barrier" if r.get("mb_ipis_per_barrier") else "ipis_per_barrier"
        return num(r.get(col)), num(r.get(col + "_ci95"))
    rows = sorted(rows, key=lambda r: -v(r)[0])
    t, others = rows[0], rows[1:]
    tv, tc = v(t)
    if not tv > NOISE:
        return f"{m} interrupted no CPU here (none of its rows shows more than {NOISE} IPIs per barrier)."
    where = f"cpu {t['cpu']} ({t['role']})"
    hit = [r for r in others if v(r)[0] - (v(r)[1] if v(r)[1] > 0 else 0) > NOISE]
    if hit:
        return (f"{m} is not confined to its target here: {fmt_ci(tv, tc, None, 'delta')} IPIs per barrier on "
                f"{where}, and " + ", ".join(f"{v(r)[0]:.2g} on cpu {r['cpu']} ({r['role']})" for r in hit) + ".")
    most = max((max(v(r)[0], 0.0) for r in others), default=0.0)
    return (f"{m} interrupts only its target: {fmt_ci(tv, tc, None, 'delta')} IPIs per barrier on {where}"
            + (f"; at most {most:.2g} on the {len(others)} other CPU row{'s' if len(others) != 1 else ''}."
               if others else "."))


def section_contend(rows):
    good = ok_rows(rows)
    if not good:
        return []
    groups = list(dict.fromkeys((r["mechanism"], r["mode"]) for r in good))
    # A caller count at which every point is oversubscribed shows the
    # scheduler, not contention: a column of it says nothing (contend.csv
    # keeps it).
    over = sorted({int(r["callers"]) for r in good} - {int(r["callers"]) for r in good
                                                       if r.get("oversubscribed") != "1"})
    callers = sorted({int(r["callers"]) for r in good} - set(over))
    by = {(r["mechanism"], r["mode"], int(r["callers"])): r for r in good}
    # One row a mechanism, a column for each mode and caller count.
    modes = list(dict.fromkeys(md for _, md in groups))
    cols = [(md, c) for md in modes for c in callers if any((m, md, c) in by for m, _ in groups)]
    body = []
    for m in dict.fromkeys(m for m, _ in groups):
        line = [m]
        for md, c in cols:
            r = by.get((m, md, c))
            line.append(pm("contend", r, "aggregate_calls_per_s", "num")
                        + (" (over)" if r.get("oversubscribed") == "1" else "") if r else "-")
        body.append(line)
        body += flag_row("contend", [by.get((m, md, c)) for md, c in cols], 1)
    shown_over = ("" if not over else
                  f" C={', '.join(map(str, over))}: more threads than CPUs at every point on this host, so the "
                  "scheduler's time-sharing, not contention: left out (in `contend.csv`).")
    return ["## contend: concurrent callers", "",
            "Aggregate barriers/s ± 95% CI by callers (C), one spinner each; (over): more threads than CPUs, "
            "scheduling included. Each caller's rate (fairness) and p50/p99 are in `contend.csv`." + shown_over
            + flagged_note(body, "contend"), "",
            md_table(["mechanism"] + [f"{md} C={c}" for md, c in cols], body), ""] + serialization_line(good)


SERIALIZED = ("membarrier-private-expedited", "membarrier-private-expedited-rseq-cpu")


def serialization_line(good):
    """One sentence: the serialization factor (processes, the largest C that
    has one) of PRIVATE_EXPEDITED and of the targeted command, or why this
    host cannot tell it."""
    procs = [r for r in good if r["mode"] == "processes" and r["mechanism"] in SERIALIZED
             and int(r["callers"]) > 1]
    if not procs:
        return []
    said, why = [], ""
    for m in SERIALIZED:
        rs = sorted((r for r in procs if r["mechanism"] == m), key=lambda r: int(r["callers"]))
        have = [r for r in rs if r.get("serialization_factor", "") != ""]
        if have:
            r = have[-1]
            said.append(f"{m} {pm('contend', r, 'serialization_factor', 'num')} at C={r['callers']}")
        elif rs and not why:
            # the smallest C: the least host that could show it
            why = rs[0].get("serialization_skip_reason", "")
    if not said:
        return [f"Serialization factor (processes: aggregate at C ÷ C=1; 1 = serialized, C = parallel) "
                f"cannot be told on this host: {why or 'no factor was computed'}.", ""]
    return ["Serialization factor (processes: aggregate at C ÷ C=1; 1 = serialized, C = parallel): "
            + "; ".join(said) + (f" (the other: {why})" if why and len(said) < 2 else "") + ".", ""]


def section_litmus(rows):
    good = [r for r in rows if r.get("status") in ("ok", "failed")]
    if not good:
        return []
    body, clean = [], []
    for r in good:
        lo, hi = r.get("forbidden_per_million_lo95", ""), r.get("forbidden_per_million_hi95", "")
        if r["expect"] == "forbidden" and r["status"] == "ok" and r["r1_0_r2_0"] == "0" and not is_control("litmus", r) \
                and r.get("kernel_finding") != "lazy-mm":
            clean.append(f"{r['pairing']} (0 in {fmt_num(num(r['trials']))} trials"
                         + (f": at most {sig(min(num(hi), 1e6))} per million, 95%" if hi != "" else "") + ")")
            continue
        fpm = num(r["forbidden_per_million"])
        # A proportion's interval within what it can be, 0 to a million,
        # to the digits that tell its ends apart.
        least, most = bounds("litmus", "forbidden_per_million")
        lo_v, hi_v = max(num(lo), least or 0.0), min(num(hi), most or math.inf)
        # Processes differ by more than trials of one process do (the
        # rate is overdispersed): the wider of the two intervals.
        pc = num(r.get("forbidden_per_million_ci95"))
        if not math.isnan(pc) and num(r.get("replicates", "nan")) >= 2:
            # ...but a rate whose events were seen is above 0: its lower end
            # never below Wilson's, which is.
            plo = fpm - pc
            lo_v, hi_v = (min(lo_v, plo) if plo > 0 else lo_v), max(hi_v, min(fpm + pc, most or math.inf))
        body.append((r["pairing"], r["expect"], fmt_num(num(r["trials"])), r["r1_0_r2_0"],
                     per_million(fpm, lo_v, hi_v) if lo != "" and hi != "" else (sig(fpm) if fpm > 0 else "0"),
                     fmt_num(num(r["trials_per_s"])), r["status"]))
    return ["## litmus: store-buffering outcomes", "",
            "r1=r2=0 is the outcome a barrier forbids; per million trials with its 95% interval (the wider of "
            "Wilson's over the trials of all processes and the spread between processes; the other outcomes "
            "are in `litmus.csv`).", "",
            md_table(("pairing", "expect", "trials", "r1=r2=0", "per million [95%]", "trials/s", "status"), body),
            ""] + (["Never seen (forbidden, as promised): " + "; ".join(clean) + ".", ""] if clean else [])


FINDING_SAID = []	# the sections that said it: once, under the first


def finding_line(rows, exp):
    """A line under the first section whose rows a kernel finding explains
    (kernel_finding, filled by the sweep from doctor.csv); the later ones
    name that section."""
    hit = [r for r in rows if r.get("kernel_finding") == "lazy-mm"]
    if not hit:
        return []
    if FINDING_SAID:
        return []	# said once, under §FINDING_SAID[0]; the rows carry kernel_finding
    FINDING_SAID.append(exp)
    what = ("its figures here, and those of its rows elsewhere that carry kernel_finding (calls, anatomy, "
            "litmus),")
    return [f"**membarrier-global-expedited here measures a kernel bug** (doctor lazy-mm: affected): this kernel's "
            "GLOBAL_EXPEDITED skips a CPU whose idle task holds the process's mm lazily with a stale state, so "
            f"where that happened a barrier sent no IPI, and {what} are not the barrier's. The Verdict does not rank "
            "it. No registration order avoids it; within a process use membarrier-private-expedited, across "
            "processes membarrier-global or a kernel with the fix (§Kernel and host).", ""]


def section_register(rows):
    good = ok_rows(rows)
    if not good:
        return []
    # One row a mechanism: each cost with no other thread → with others.
    body = []
    for m in dict.fromkeys(r["mechanism"] for r in good):
        rs = sorted((r for r in good if r["mechanism"] == m), key=lambda r: int(r["other_threads"]))

        def each(f):
            return " → ".join(f(r) for r in rs)
        body.append((m, each(lambda r: r["other_threads"]), each(lambda r: pm("register", r, "register_ns")),
                     each(lambda r: pm("register", r, "first_barrier_ns")),
                     each(lambda r: fmt_ci(num(r["steady_barrier_ns"]), None, **ci_n(r))),
                     each(lambda r: fmt_ns(num(r["thread_create_unregistered_ns"])) + " / "
                          + fmt_ns(num(r["thread_create_registered_ns"]))),
                     "; ".join(f"others={r['other_threads']}: {why('register', r)}" for r in rs
                               if why("register", r) != "-") or "-"))
    return ["## register: registration and first-call cost", "",
            "Each cost with no other thread → with the other threads running (a fresh process each); a thread's "
            "creation before / after registering.", "",
            md_table(("mechanism", "other threads", "register", "first barrier", "steady barrier",
                      "thread create (before / after)", "flagged"), body), ""]
