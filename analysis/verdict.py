# SPDX-License-Identifier: MIT
"""The Verdict at the top of report.md, the reconciliation of one cost
measured by several experiments, and the run's quality: computed from a
results folder's rows and host facts (analysis/report writes them).

Each rule returns one line; a rule whose experiment is missing says "not
measured". The rules, and what makes a run "disturbed", are documented in
docs/HACKING.md (The report's Verdict).
"""
import math
import re

from mbformat import ci_n, ci_shown, fmt_ci, md_table
from mbresults import LEVELS, host, num, ok_rows, tlb_cause
from mbstats import overlap
from runquality import REFERENCE_RATIO, STEAL_MAX, host_class, load_summary, reference_ratio, run_evidence

# The barriers a program chooses between, cheapest first among the correct
# ones. The -sync-core and -rseq variants are PRIVATE_EXPEDITED with more
# work; -rseq-cpu targets one CPU: neither is a process-wide choice.
BARRIERS = ("membarrier-private-expedited", "membarrier-global-expedited", "membarrier-global",
            "signal", "mprotect")
FALLBACKS = ("signal", "mprotect")	# where membarrier is missing
# One cost, one number: the experiments' means within this ratio, with
# overlapping CIs, agree.
AGREE_SPREAD = 1.10
# The commands that do more than order memory: what each buys.
OTHERS = (("membarrier-private-expedited-sync-core", "PRIVATE_EXPEDITED and a core serialization on each target "
           "(for code other threads will run: a JIT)"),
          ("membarrier-private-expedited-rseq", "PRIVATE_EXPEDITED that also restarts the targets' rseq critical "
           "sections (per-CPU data)"),
          ("membarrier-private-expedited-rseq-cpu", "the same to one CPU (MEMBARRIER_CMD_FLAG_CPU): the cost of "
           "one target, not of the process"))
# The mechanism a doctor probe's `affected` rules out.
FINDING_MECH = {"lazy-mm": "membarrier-global-expedited", "mprotect-barrier": "mprotect"}
SHORT = {"membarrier-private-expedited": "PRIVATE_EXPEDITED", "membarrier-global-expedited": "GLOBAL_EXPEDITED",
         "membarrier-global": "GLOBAL", "membarrier-private-expedited-sync-core": "PRIVATE_EXPEDITED_SYNC_CORE",
         "membarrier-private-expedited-rseq": "PRIVATE_EXPEDITED_RSEQ",
         "membarrier-private-expedited-rseq-cpu": "PRIVATE_EXPEDITED_RSEQ (one CPU)"}
# The mechanisms of the reconciliation table: one caller and one spinner.
RECONCILE = ("membarrier-private-expedited", "membarrier-global-expedited", "membarrier-private-expedited-sync-core",
             "membarrier-private-expedited-rseq", "membarrier-private-expedited-rseq-cpu", "signal", "mprotect",
             "membarrier-global")
REGISTER_RATIO = 10	# registering later costs this many times more: a finding even from 3 repeats

# A run is disturbed (docs/HACKING.md) when its own evidence says so: steal
# time, the delivery floor's drift (runquality.py) or, here:
DISAGREE_MAX = 0.5      # the experiments' CIs disagree for more than half the mechanisms compared


def name(m):
    return SHORT.get(m, m)


def pct(x):
    return f"{100 * x:.0f}%" if x >= 0.01 else f"{100 * x:.2g}%"


def enough(r):
    return ci_shown(ci_n(r))


# --- one cost, one number ------------------------------------------------

def _row(rows, **kw):
    return next((r for r in ok_rows(rows) if all(r.get(k) == v for k, v in kw.items())), None)


def reconcile(data):
    """The cost of one barrier with one caller and one spinner, as each
    experiment measured it: {mechanism: [(experiment label, value, CI, n)]},
    ns; and the mechanisms whose CIs disagree, with the pair that does."""
    out, disagree = {}, {}
    calls, lat, dist = data.get("calls", []), data.get("latency", []), data.get("distance", [])
    cont, reg = data.get("contend", []), data.get("register", [])
    for m in RECONCILE:
        got = []
        r = _row(calls, mechanism=m, threads="2")
        if r:
            got.append(("calls T=2", num(r["ns_per_call"]), num(r["ns_per_call_ci95"]), ci_n(r, "ns_per_call")))
        r = _row(lat, mechanism=m, threads="2")
        if r:
            got.append(("latency p50", num(r["p50_ns"]), num(r.get("p50_ns_ci95")), ci_n(r, "p50_ns")))
        for lv in LEVELS:
            r = _row(dist, mechanism=m, level=lv)
            if r:
                got.append((f"distance {lv}", num(r["ns_per_call"]), num(r["ns_per_call_ci95"]),
                            ci_n(r, "ns_per_call")))
                break
        r = _row(cont, mechanism=m, mode="threads", callers="1", spinners="1")
        if r:
            v, c = num(r["aggregate_calls_per_s"]), num(r["aggregate_calls_per_s_ci95"])
            if v > 0:
                # 1/rate, its CI by the interval's ends (rate of means).
                lo, hi = 1e9 / (v + c), (1e9 / (v - c) if c < v else math.inf)
                got.append(("contend C=1", 1e9 / v, (hi - lo) / 2, ci_n(r)))
        r = _row(reg, mechanism=m, other_threads="1")
        if r:
            got.append(("register steady", num(r["steady_barrier_ns"]), math.nan, ci_n(r)))
        if not got:
            continue
        out[m] = got
        # Only CIs from enough repeats and a latency p50 (a median, not a
        # mean) are compared; the first pair that does not overlap is named.
        cmp = [g for g in got if not math.isnan(g[2]) and ci_shown(g[3]) and g[0] != "latency p50"]
        for i, a in enumerate(cmp):
            b = next((b for b in cmp[i + 1:] if not overlap(a[1:3], b[1:3])), None)
            if b:
                disagree[m] = (a, b)
                break
        # Overlapping intervals alone are not one cost: the means must be
        # within AGREE_SPREAD of each other too, or the CIs are too wide
        # to tell (the pair furthest apart is named).
        if m not in disagree and len(cmp) >= 2:
            lo, hi = min(cmp, key=lambda g: g[1]), max(cmp, key=lambda g: g[1])
            if lo[1] > 0 and hi[1] / lo[1] > AGREE_SPREAD:
                disagree[m] = (lo, hi, "wide")
    return out, disagree


def section_reconcile(data, modes=None):
    """The reconciliation table; modes(mechanism, threads) gives a latency
    distribution's modes, which replace its median where it has several."""
    table, disagree = reconcile(data)
    if not table:
        return []
    labels = []
    for got in table.values():
        for g in got:
            lab = g[0] if not g[0].startswith("distance") else "distance (nearest level)"
            if lab not in labels:
                labels.append(lab)
    order = ["calls T=2", "latency p50", "distance (nearest level)", "contend C=1", "register steady"]
    labels = [lab for lab in order if lab in labels]
    body = []
    for m, got in table.items():
        cells = {}
        for g in got:
            lab = g[0] if not g[0].startswith("distance") else "distance (nearest level)"
            cells[lab] = fmt_ci(g[1], g[2], **g[3])
            md = modes(m, "2") if modes and lab == "latency p50" else []
            if md:
                cells[lab] = "modes " + ", ".join(f"{fmt_ci(v, None, None)} ({sh:.0%})" for v, sh in md)
        d = disagree.get(m)
        body.append([m] + [cells.get(lab, "-") for lab in labels]
                    + [("cannot tell: " + f"{d[0][0]} vs {d[1][0]} {d[1][1] / d[0][1]:.2f}x, CIs too wide"
                        if len(d) > 2 else f"no: {d[0][0]} vs {d[1][0]}") if d else "yes"])
    return ["## One cost, one number", "",
            "One caller and one spinner on two CPUs, ns per barrier ± 95% CI, as each experiment measured it "
            f"(contend: 1 / its rate). `agree` is yes when the means' CIs overlap and the means are within "
            f"{AGREE_SPREAD - 1:.0%} of each other (not the latency median, nor a figure from fewer than 3 "
            "processes or 5 repeats); no when two CIs are apart, which puts the run's quality in doubt "
            "(Verdict); cannot tell when they overlap but the means are further apart.", "",
            md_table(["mechanism"] + labels + ["agree"], body), ""]


# --- run quality --------------------------------------------------------

def run_quality(run, data, h, refroot):
    """The run-quality line, and whether the run is disturbed."""
    why, parts = [], []
    ls = load_summary(run)
    if ls is None:
        parts.append("load and steal time not recorded (a sweep before they were)")
    else:
        start, peak, steal, n = ls
        parts.append(f"load {start:.2f} at the start, at most {peak:.2f} (ours included), steal "
                     + ("not counted" if math.isnan(steal) else pct(steal)) + f" over {n} points")
        if not math.isnan(steal) and steal > STEAL_MAX:
            why.append(f"steal {pct(steal)} > {pct(STEAL_MAX)}")
        # The 1-minute load average is shown, not judged: it lags by a
        # minute, so the build `make bench` runs first reads as load, and
        # during the points it counts the sweep's own threads.
    table, both = reconcile(data)
    disagree = {m: d for m, d in both.items() if len(d) == 2}
    wide = [m for m, d in both.items() if len(d) > 2]
    compared = [m for m, got in table.items()
                if sum(1 for g in got if not math.isnan(g[2]) and ci_shown(g[3]) and g[0] != "latency p50") >= 2]
    if compared:
        if wide:
            parts.append(f"experiments cannot tell one cost for {len(wide)} of {len(compared)} mechanisms (CIs "
                         f"overlap, means over {AGREE_SPREAD - 1:.0%} apart: " + ", ".join(name(m) for m in wide)
                         + ")")
        if disagree:
            # A disagreement a kernel finding explains is not the host's
            # noise: GLOBAL_EXPEDITED reaches the spinner or not by how the
            # experiment registered (lazy-mm).
            known = set(excluded(data, h)) & set(disagree)
            parts.append(f"experiments disagree for {len(disagree)} of {len(compared)} mechanisms ("
                         + ", ".join(name(m) + (" (a kernel finding)" if m in known else "") for m in disagree)
                         + "; §One cost, one number)")
            if len(disagree) - len(known) > DISAGREE_MAX * (len(compared) - len(known)):
                why.append("the experiments disagree")
        elif not wide:
            parts.append(f"experiments agree for all {len(compared)} mechanisms (§One cost, one number)")
    ref = reference_ratio(data, h, refroot, BARRIERS + RECONCILE, run.get("preset"))
    if ref is None:
        cls = host_class(h)
        parts.append(f"no reference run of this host class ({cls[1]}, {cls[4]}, {cls[2]} CPUs, {cls[3]})")
    elif len(ref) == 2:
        parts.append(f"no reference run of this host class: {ref[0]} has this CPU's name but {ref[1]}, "
                     "so it is not compared")
    else:
        d, med, n, _ = ref
        if 1 / REFERENCE_RATIO <= med <= REFERENCE_RATIO:
            parts.append(f"calls {med:.2g}x the reference {d} (median of {n} points)")
        else:
            # What differs between two hosts of one class (microcode, the
            # host's own load, its hypervisor's settings) is no sign of a
            # disturbed run: the run's own evidence above says that.
            parts.append(f"calls {med:.2g}x the reference {d} (median of {n} points): another host of this "
                         "class, not comparable cost for cost")
    parts += run_evidence(data, why, run)
    return parts, why


# --- the Verdict's rules ------------------------------------------------

def doctor_rows(data, result=None):
    return [r for r in data.get("doctor", []) if result is None or r.get("result") == result]


def excluded(data, h=None):
    """{mechanism: why} for the barriers this run found incorrect here; why
    names the cause only where the host facts saw it."""
    out = {}
    for r in doctor_rows(data, "affected"):
        if r.get("probe") == "lazy-mm":
            out["membarrier-global-expedited"] = ("skips CPUs whose idle task holds the mm lazily with a stale "
                                                  "state, whatever the registration order (doctor lazy-mm: affected)")
        if r.get("probe") == "mprotect-barrier":
            cause = tlb_cause(h)
            out["mprotect"] = ("does not interrupt a running thread's CPU here: its TLB shootdown needs no IPI "
                               + (f"(remote_tlb_flush: {cause}; " if cause else "(cause not identified; ")
                               + "doctor mprotect-barrier: affected)")
    for r in data.get("litmus", []):
        if r.get("status") == "failed" and r.get("pairing") in BARRIERS:
            out[r["pairing"]] = f"litmus saw the forbidden outcome {r.get('r1_0_r2_0', '?')} times"
    return out


def work_done(r):
    """What a row's barriers did, beside its cost: ", 1.00 IPI per barrier,
    target on its CPU 98%", and the repeats left out; "" for a folder
    without the work columns."""
    ipi, on, deg = num(r.get("ipis_per_barrier")), num(r.get("target_oncpu_share")), num(r.get("repeats_degraded"))
    parts = []
    if not math.isnan(ipi):
        parts.append(f"{ipi:.2f} IPI{'' if round(ipi, 2) == 1 else 's'} per barrier")
    if not math.isnan(on):
        parts.append(f"target on its CPU {100 * on:.0f}%")
    if deg > 0:
        parts.append(f"{deg:.0f} degraded repeat{'s' if deg != 1 else ''} measured again")
    return " (" + ", ".join(parts) + ")" if parts else ""


def rule_barrier(data, h):
    calls = ok_rows(data.get("calls", []))
    if not calls:
        return ["- **Barrier**: not measured (no calls.csv)."]
    bad = excluded(data, h)
    cpus = num(h.get("cpus_online"))
    lines = []
    for t in sorted({int(r["threads"]) for r in calls}):
        if t < 2:
            continue	# a barrier with no other thread orders nothing
        if (t > cpus if cpus > 0 else any(r.get("oversubscribed") == "1" for r in calls if int(r["threads"]) == t)):
            continue	# more threads than CPUs: the scheduler's time-sharing, not the barrier (§calls)
        rows = {r["mechanism"]: r for r in calls if int(r["threads"]) == t and r["mechanism"] in BARRIERS}
        good = {m: r for m, r in rows.items() if m not in bad}
        if not good:
            lines.append(f"- **Barrier at T={t}**: " + ("no correct barrier measured." if rows else
                         "not measured (no heavy barrier in calls.csv)."))
            continue
        best = min(good, key=lambda m: num(good[m]["ns_per_call"]))
        b = good[best]
        ties = [m for m, r in good.items() if m != best and overlap(
            (num(b["ns_per_call"]), num(b["ns_per_call_ci95"])), (num(r["ns_per_call"]), num(r["ns_per_call_ci95"])))]
        txt = (f"- **Barrier at T={t}**: "
               f"{name(best)}, {fmt_ci(num(b['ns_per_call']), num(b['ns_per_call_ci95']), **ci_n(b, 'ns_per_call'))}"
               f"{work_done(b)}")
        if ties:
            txt += "; tie with " + ", ".join(
                f"{name(m)} {fmt_ci(num(good[m]['ns_per_call']), num(good[m]['ns_per_call_ci95']), **ci_n(good[m], 'ns_per_call'))}"
                for m in ties)
        lines.append(txt + " (§calls).")
    # The commands that do more than order memory, each where measured, at
    # the largest T with no more threads than CPUs.
    ts = [int(r["threads"]) for r in calls if int(r["threads"]) >= 2 and (cpus <= 0 or int(r["threads"]) <= cpus)]
    if ts:
        t = max(ts)
        for m, what in OTHERS:
            r = next((r for r in calls if r["mechanism"] == m and int(r["threads"]) == t), None)
            if r:
                lines.append(f"- **{name(m)}** (T={t}): {fmt_ci(num(r['ns_per_call']), num(r['ns_per_call_ci95']), **ci_n(r, 'ns_per_call'))}"
                             f"{work_done(r)}: {what} (§calls).")
    for m, why in bad.items():
        fix = next((r.get("fix", "").split(":")[0] for r in doctor_rows(data, "affected")
                    if FINDING_MECH.get(r.get("probe")) == m and r.get("fix")), "")
        lines.append(f"- **Not {name(m)}**: {why}; within a process use {name('membarrier-private-expedited')}"
                     + (f", across processes {name('membarrier-global')} or a kernel with the fix"
                        + (f" ({fix})" if fix.startswith("kernel-patch") else "")
                        if m == "membarrier-global-expedited" else " instead") + " (§Kernel and host).")
    fb = [r for r in calls if r["mechanism"] in FALLBACKS and r["mechanism"] not in bad and int(r["threads"]) >= 2
          and (cpus <= 0 or int(r["threads"]) <= cpus)]
    if fb:
        t = max(int(r["threads"]) for r in fb)
        at = sorted((r for r in fb if int(r["threads"]) == t), key=lambda r: num(r["ns_per_call"]))
        txt = (f"- **Without membarrier** (T={t}): " + "; ".join(
            f"{r['mechanism']} {fmt_ci(num(r['ns_per_call']), num(r['ns_per_call_ci95']), **ci_n(r, 'ns_per_call'))}" for r in at))
        if any(r["mechanism"] == "signal" for r in at):
            # signal's two other costs: it wakes sleeping threads (a barrier
            # leaves them alone), and it waits for every thread to run.
            over = [r for r in ok_rows(data.get("calls", [])) if r["mechanism"] == "signal"
                    and (int(r["threads"]) > cpus if cpus > 0 else r.get("oversubscribed") == "1")]
            txt += "; signal also wakes every sleeping thread to run its handler"
            if over:
                o = min(over, key=lambda r: int(r["threads"]))
                txt += (f", and with more threads than CPUs waits for each to be scheduled: "
                        f"{fmt_ci(num(o['ns_per_call']), num(o['ns_per_call_ci95']), **ci_n(o, 'ns_per_call'))} "
                        f"at T={o['threads']} (scheduler ticks)")
        lines.append(txt + " (§calls).")
    return lines


def rule_register(data):
    reg = ok_rows(data.get("register", []))
    doc = next((r for r in doctor_rows(data) if r.get("probe") == "register-cost"
                and r.get("result") not in ("cannot tell", "")), None)
    m = "membarrier-private-expedited"
    r0 = next((r for r in reg if r["mechanism"] == m and r["other_threads"] == "0"), None)
    r1 = next((r for r in reg if r["mechanism"] == m and r["other_threads"] not in ("0", "")), None)
    if not (r0 and r1) and not doc:
        return "- **Registration**: not measured (no register.csv, no doctor register-cost)."
    txt = "- **Registration**: "
    # Later is dearer when the CIs of register.csv part (from enough
    # repeats), or when every mechanism's mean with threads running is
    # REGISTER_RATIO times its mean with none, or doctor's measure with a
    # thread running is REGISTER_RATIO times register.csv's without.
    order = 0
    if r0 and r1:
        a = (num(r0["register_ns"]), num(r0["register_ns_ci95"]))
        b = (num(r1["register_ns"]), num(r1["register_ns_ci95"]))
        if enough(r0) and enough(r1) and not overlap(a, b):
            order = 1 if b[0] > a[0] else -1
        pairs = [(num(x["register_ns"]), num(y["register_ns"])) for x in reg if x["other_threads"] == "0"
                 for y in reg if y["mechanism"] == x["mechanism"] and y["other_threads"] not in ("0", "")]
        if not order and pairs and all(y > REGISTER_RATIO * x for x, y in pairs):
            order = 1
    dm = num(doc.get("measure")) * (1e6 if doc and doc.get("measure_unit") == "ms" else 1e3) if doc else math.nan
    # doctor's own cost with no other thread, from its evidence.
    m0 = re.search(r"([0-9.]+) (ns|us|ms) with no other thread", doc.get("evidence", "")) if doc else None
    d0 = num(m0.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6}[m0.group(2)] if m0 else math.nan
    base = num(r0["register_ns"]) if r0 else d0
    if not order and dm > REGISTER_RATIO * base:
        order = 1
    txt += {1: "register before creating threads: ", -1: "register after the threads exist: ",
            0: "the order makes no measurable difference: " if r0 and r1 else ""}[order]
    if order and not (r0 and r1):
        txt = txt[:-2] + " (doctor)"
    if r0 and r1:
        a = (num(r0["register_ns"]), num(r0["register_ns_ci95"]))
        b = (num(r1["register_ns"]), num(r1["register_ns_ci95"]))
        txt += (f"{fmt_ci(a[0], a[1], **ci_n(r0, 'register_ns'))} with no other thread, "
                f"{fmt_ci(b[0], b[1], **ci_n(r1, 'register_ns'))} "
                f"with {r1['other_threads']} running ({m}, §register)")
    else:
        txt += "; register.csv not measured"
    if doc and not (r0 and r1):	# doctor's figure only where register.csv lacks one
        ev = doc.get("evidence", "")
        txt += f"; doctor register-cost: {ev.split(': ', 1)[-1].split(' (')[0] if ev else doc.get('reason', '')}"
    return txt + "."


ROLES = (("idle", "idle"), ("foreign-rt", "realtime"), ("foreign-spin", "other process"),
         ("self-spin", "own threads"))


def rule_disturb(data):
    rows = [r for r in ok_rows(data.get("disturb", [])) if r.get("phase") == "storm" and r.get("role") != "caller"]
    if not rows:
        return "- **Interrupts**: not measured (no disturb.csv)."
    per = {}
    for r in rows:
        v, c = num(r.get("ipis_per_barrier")), num(r.get("ipis_per_barrier_ci95"))
        sig = num(r.get("signals"))
        hit = (v >= 0.5 and (math.isnan(c) or v - c > 0)) or (sig > 0)
        per.setdefault(r["mechanism"], {}).setdefault(r["role"], []).append(hit)
    parts = []
    for m, roles in per.items():
        hits = [label for role, label in ROLES if any(roles.get(role, []))]
        none = "none counted" + (" (TLB flushes not visible here)" if m == "mprotect" and all(
            r.get("tlb_per_barrier", "") == "" for r in rows if r["mechanism"] == m) else "")
        parts.append(f"{name(m)}: {', '.join(hits) if hits else none}")
    return "- **Interrupts** (CPUs hit per barrier, §disturb): " + "; ".join(parts) + "."


# --- where a barrier's time goes (anatomy) -------------------------------

ANATOMY_FIRST = ("membarrier-private-expedited",)	# the mechanism the finding names, when measured


def anatomy_phase(data, m, t, phase):
    """The anatomy-phases row of (mechanism, T, phase) over every target."""
    return _row(data.get("anatomy-phases", []), mechanism=m, threads=t, phase=phase, target_cpu="all")


def anatomy_finding(data):
    """One sentence: the share of a barrier that is IPI delivery, the
    software around it and the untraced cost in multiples of that floor,
    for PRIVATE_EXPEDITED (else the first mechanism with every phase) at
    its smallest T; None when no row has them."""
    rows = [r for r in ok_rows(data.get("anatomy", [])) if r.get("phases_from") == "csd"]
    rows.sort(key=lambda r: (r["mechanism"] not in ANATOMY_FIRST, int(num(r["threads"]))))
    for r in rows:
        m, t = r["mechanism"], r["threads"]
        d, tot = anatomy_phase(data, m, t, "delivery"), anatomy_phase(data, m, t, "total")
        if not d or not tot or not num(tot["p50_ns"]) > 0:
            continue
        dv, tv = num(d["p50_ns"]), num(tot["p50_ns"])
        us, ratio = num(r.get("untraced_sent_p50_ns")), num(r.get("untraced_over_delivery"))
        out = (f"on this host {pct(dv / tv)} of a {name(m)} barrier (T={t}, traced) is IPI delivery, "
               f"{fmt_ci(dv)} of {fmt_ci(tv)}; the software around it is {fmt_ci(max(tv - dv, 0.0))}")
        if us > 0 and ratio > 0:
            out += f"; untraced, one that sends costs {fmt_ci(us)}, {ratio:.2g}x the delivery floor"
        return out
    return None


def rule_anatomy(data):
    if not data.get("anatomy"):
        return "- **Where a barrier's time goes**: not measured (no anatomy.csv)."
    f = anatomy_finding(data)
    if not f:
        return "- **Where a barrier's time goes**: no phases measured here (§anatomy says why)."
    return f"- **Where a barrier's time goes** (§anatomy): {f[0].upper()}{f[1:]}."


def rcu_break_even(a, b):
    """The write share (writes over all operations) above which scheme b
    (more writes/s) costs less time per operation than scheme a (more
    reads/s), from their measured rates."""
    ra, wa, rb, wb = (num(a["reads_per_s"]), num(a["writes_per_s"]), num(b["reads_per_s"]), num(b["writes_per_s"]))
    if min(ra, wa, rb, wb) <= 0:
        return math.nan
    dr, dw = 1 / rb - 1 / ra, 1 / wa - 1 / wb
    return dr / (dr + dw) if dr > 0 and dw > 0 else math.nan


def rule_rcu(data):
    """Which scheme wins reads, which writes, where one clearly does: a
    lead only where the best's interval is apart from every other's (else
    "no difference measured" between the tied), the break-even only
    between two clear leaders, and never from oversubscribed points."""
    rows = [r for r in ok_rows(data.get("rcu", [])) if num(r.get("violations")) == 0]
    if not rows:
        return "- **RCU**: not measured (no rcu.csv)."
    if all(r.get("oversubscribed") == "1" for r in rows):
        return "- **RCU**: only points with more threads than CPUs: the scheduler's, not ranked (§rcu)."
    rows = [r for r in rows if r.get("oversubscribed") != "1"]

    def show(r, col):
        txt = fmt_ci(num(r[col]), num(r[col + "_ci95"]), unit="num", **ci_n(r, col))
        return txt.replace(" (n=", "/s (n=") if " (n=" in txt else txt + "/s"

    def lead(col, what):
        best = max(rows, key=lambda r: num(r[col]))
        ties = [r["scheme"] for r in rows if r is not best and overlap(
            (num(best[col]), num(best[col + "_ci95"])), (num(r[col]), num(r[col + "_ci95"])))]
        if not ties:
            return best, f"{what} dominate: {best['scheme']} ({show(best, col)} {what})"
        named = ", ".join(ties) if len(ties) <= 3 else f"{len(ties)} others"
        return None, (f"{what}: no difference measured between {best['scheme']} ({show(best, col)}) and {named} "
                      "(their CIs overlap)")

    rd, t_rd = lead("reads_per_s", "reads")
    wr, t_wr = lead("writes_per_s", "writes")
    txt = f"- **RCU**: {t_rd}; {t_wr}"
    if rd and wr and rd is not wr:
        w = rcu_break_even(rd, wr)
        if not math.isnan(w):
            txt += (f"; {wr['scheme']} costs less above a write share of {pct(w)} (1 write in "
                    f"{float(f'{1 / w:.2g}'):,.0f} operations)")
    lib = next((r for r in rows if r["scheme"] == "liburcu-memb"), None)
    if lib:
        txt += (f"; liburcu's membarrier flavour (liburcu-memb): {show(lib, 'reads_per_s')} reads, "
                f"{show(lib, 'writes_per_s')} writes")
    return txt + " (§rcu)."


def host_settings(h, data):
    """The host settings that changed a number here, with its direction."""
    out = []
    if h.get("rcu_expedited") == "1":
        out.append("rcu_expedited=1 (GLOBAL and registering with threads running wait for an expedited grace "
                   "period, not a normal one: lower)")
    if h.get("virtualization", "").startswith("guest"):
        out.append("a guest (the expedited barriers cost more)")
    if h.get("nohz_full", "none") not in ("", "none", "unknown"):
        out.append(f"nohz_full={h['nohz_full']} (GLOBAL refused)")
    if h.get("tlb_shootdowns_since_boot") == "0":
        out.append("TLB shootdowns not visible (mprotect's TLB count not measured)")
    return out


def rule_kernel(data, h):
    lines = []
    doc = data.get("doctor")
    if doc is None:
        lines.append("- **Kernel**: not probed (no doctor.csv).")
    else:
        aff = doctor_rows(data, "affected")
        for r in aff:
            if r.get("probe") in FINDING_MECH:
                continue	# its "Not" line above says it, with the fix
            lines.append(f"- **Kernel: {r['probe']} affected**: {r.get('reason', '')} "
                         f"({r.get('measure', '')} {r.get('measure_unit', '')}); fix: "
                         f"{(r.get('fix') or '-').split(':')[0]} (§Kernel and host).")
        if not aff:
            lines.append(f"- **Kernel**: no doctor probe found this kernel affected ({len(doc)} probes, §Kernel and host).")
        # register-cost is the Registration line's
        info = [r for r in doc if r.get("result") == "info" and r.get("probe") != "register-cost"]
        tell = [r["probe"] for r in doc if r.get("result") == "cannot tell"]
        if info or tell:
            lines.append("- **Kernel facts**: " + "; ".join(f"{r['probe']}: {r.get('reason', '')}" for r in info)
                         + (f"; cannot tell here: {', '.join(tell)}" if tell else "") + " (§Kernel and host).")
    hs = host_settings(h, data)
    if hs:
        lines.append("- **Host settings that changed a number**: " + "; ".join(hs) + " (§Kernel and host).")
    return lines


def verdict(run, data, refroot):
    h = host(run)
    lines = ["## Verdict", ""]
    lines += rule_barrier(data, h)
    lines.append(rule_register(data))
    lines.append(rule_disturb(data))
    lines.append(rule_anatomy(data))
    lines.append(rule_rcu(data))
    lines += rule_kernel(data, h)
    parts, why = run_quality(run, data, h, refroot)
    q = "- **Run quality**: " + "; ".join(parts) + "."
    if why:
        q += f" **Disturbed ({', '.join(why)}): rerun on a quieter host.**"
    lines.append(q)
    return lines + [""]
