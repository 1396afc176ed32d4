# SPDX-License-Identifier: MIT
"""A run's quality from its own evidence (report's Verdict, verdict.py):
load and steal time, repeats left out because a target lost its CPU, the
delivery floor's drift; and the reference run of the same host class, which
is compared, never judged (another host's costs are not a disturbance)."""
import calendar
import math
import os
import time

from mbguard import EnvError, UsageError
from mbresults import host, load_folder, num, ok_rows

# A run is disturbed (docs/HACKING.md) when one of these holds (verdict.py
# adds the experiments' disagreement):
STEAL_MAX = 0.05        # steal time above 5% of the CPU time of its measured points
FLOOR_DRIFT_MAX = 3.0   # the delivery floor of one placement moved more than 3x between points
# A reference of the host class is compared, never judged: a cost beyond
# 1.5x (or below 1/1.5) of it says this is another host, not a disturbed run.
REFERENCE_RATIO = 1.5
# host_class's CPU where a run did not record it (a sweep before cpu_id).
NO_CPU_ID = "family, model and stepping not recorded"


def load_summary(run):
    """(start load, largest load, steal share, points recorded) from
    run.json's load, or None where the sweep did not record it."""
    load = run.get("load")
    if not isinstance(load, list) or not load:
        return None
    befores = [p.get("load_before") for p in load if isinstance(p.get("load_before"), (int, float))]
    afters = [p.get("load_after") for p in load if isinstance(p.get("load_after"), (int, float))]
    steal = sum(p.get("steal_jiffies") or 0 for p in load if isinstance(p.get("steal_jiffies"), int))
    total = sum(p.get("total_jiffies") or 0 for p in load if isinstance(p.get("total_jiffies"), int))
    return (befores[0] if befores else math.nan, max(befores + afters) if befores + afters else math.nan,
            steal / total if total > 0 else math.nan, len(load))


def host_class(h):
    """What makes two hosts' costs comparable: the CPU, how many, and the
    hypervisor (an IPI's cost is the hypervisor's; doctor's guest-ipi). The
    CPU is its family, model and stepping (cpu_id), not only its name: a
    guest's "AMD EPYC" is every generation. Index 3 is the hypervisor
    with its interrupt features."""
    return (h.get("machine", "?"), h.get("cpu_model", "?"), h.get("cpus_online", "?"),
            " ".join(h.get("virtualization", "?").split()) +
            (f", features: {' '.join(h['hypervisor_features'].split())}" if h.get("hypervisor_features") else ""),
            h.get("cpu_id") or NO_CPU_ID)


def reference_ratio(data, h, refroot, mechs, preset=None):
    """The median ratio of this run's calls costs to those of a committed
    reference run of the same host class, with the reference's name, or
    None where there is none."""
    if not refroot or not os.path.isdir(refroot):
        return None
    mine = {(r["mechanism"], r["threads"]): num(r["ns_per_call"]) for r in ok_rows(data.get("calls", []))
            if r.get("oversubscribed") != "1" and r["mechanism"] in mechs}
    if not mine:
        return None
    best, near = None, None
    for d in sorted(os.listdir(refroot)):
        path = os.path.join(refroot, d)
        if not os.path.isfile(os.path.join(path, "calls.csv")):
            continue
        try:
            run, ref = load_folder(path)
        except (UsageError, EnvError):
            continue
        theirs, mine_cls = host_class(host(run)), host_class(h)
        if theirs != mine_cls:
            if theirs[:3] == mine_cls[:3] and theirs[4] == mine_cls[4]:
                near = (d, f"another hypervisor ({theirs[3]})")
            elif theirs[:4] == mine_cls[:4]:
                near = (d, f"another CPU generation ({theirs[4]}; this host: {mine_cls[4]})")
            continue
        ratios = sorted(mine[k] / num(r["ns_per_call"]) for r in ok_rows(ref.get("calls", []))
                        for k in [(r["mechanism"], r["threads"])] if k in mine and num(r["ns_per_call"]) > 0)
        if ratios:
            med = ratios[len(ratios) // 2] if len(ratios) % 2 else (ratios[len(ratios) // 2 - 1]
                                                                    + ratios[len(ratios) // 2]) / 2
            rank = (run.get("preset") == preset, len(ratios))
            if best is None or rank > best[3]:
                best = (d, med, len(ratios), rank)
    return best if best else near


def degraded_cause(reason):
    """A degraded repeat's reason, by its cause."""
    if "another task" in reason:
        return "another task had the target's CPU"
    if "hypervisor" in reason:
        return "interrupts or the hypervisor had the target's CPU"
    if "sleeping" in reason:
        return "sleeping targets were interrupted"
    if "IPIs per barrier" in reason:
        return "fewer IPIs than due with the targets on their CPUs"
    return reason or "?"


def _stamp(s):
    """Seconds since the epoch of an envelope's "2026-12-07T00:54:40Z", or None."""
    try:
        return calendar.timegm(time.strptime(str(s), "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return None


def degraded_windows(run):
    """When in the run the repeats were left out, by cause: {cause:
    (processes, first second, last second, repeats)} over the shortest stretch that
    holds nine in ten of that cause's processes (a lone straggler does not
    stretch it), and the run's seconds; seconds from the first process's
    start (the envelopes' whole-second stamps). ({}, None) where the
    envelopes carry no stamps."""
    env = [p for p in (run.get("points") or []) if isinstance(p, dict) and isinstance(p.get("points"), list)]
    starts = [t for t in (_stamp(p.get("start")) for p in env) if t is not None]
    ends = [t for t in (_stamp(p.get("end")) for p in env) if t is not None]
    if not starts or not ends:
        return {}, None
    t0, hits = min(starts), {}
    for p in env:
        a, b = _stamp(p.get("start")), _stamp(p.get("end"))
        if a is None or b is None:
            continue
        seen = {}
        for r in p["points"]:
            n = num(r.get("repeats_degraded")) if isinstance(r, dict) else math.nan
            if not math.isnan(n) and n > 0:
                c = degraded_cause(r.get("degraded_reason", ""))
                seen[c] = seen.get(c, 0) + int(n)
        for c, n in seen.items():
            hits.setdefault(c, []).append((a - t0, b - t0, n))
    out = {}
    for c, spans in hits.items():
        spans.sort()
        k = max(1, math.ceil(0.9 * len(spans)))
        i = min(range(len(spans) - k + 1), key=lambda j: spans[j + k - 1][0] - spans[j][0])
        out[c] = (len(spans), spans[i][0], max(e for _, e, _ in spans[i:i + k]), sum(n for _, _, n in spans))
    return out, max(ends) - t0


def run_evidence(data, why, run=None):
    """What the run saw of its own disturbance: repeats left out and
    re-measured because a target was off its CPU (and why, and when in the
    run: the processes' own stamps), points that got no figure, and how far
    the delivery floor of one placement moved."""
    parts, pts, reps, reasons, nofig = [], 0, 0, {}, 0
    for exp, rows in data.items():
        for r in rows if isinstance(rows, list) else []:
            n = num(r.get("repeats_degraded"))
            if not math.isnan(n) and n > 0:
                pts += 1
                reps += int(n)
                if r.get("degraded_reason"):
                    cause = degraded_cause(r["degraded_reason"])
                    reasons[cause] = reasons.get(cause, 0) + int(n)
            if r.get("status") == "degraded":
                nofig += 1
    if pts:
        wins, total = degraded_windows(run) if isinstance(run, dict) else ({}, None)

        def when(c):
            w = wins.get(c)
            if not w:
                return ""
            most = "" if w[0] < 10 else "nine in ten of them "
            return f" ({w[0]} process{'es' if w[0] != 1 else ''}, {most}between {w[1]} s and {w[2]} s of the run's {total} s)"
        if wins:	# each process's own reasons, not one reason a merged row keeps
            reasons = {c: w[3] for c, w in wins.items()}
        causes = sorted(reasons, key=reasons.get, reverse=True)
        parts.append(f"{reps} repeat{'s' if reps != 1 else ''} at {pts} point{'s' if pts != 1 else ''} left out and "
                     "measured again" + (": " + "; ".join(f"{reasons[c]} because {c}{when(c)}" for c in causes)
                                         if causes else "")
                     + (f"; {nofig} point{'s' if nofig != 1 else ''} got no figure (every try degraded)"
                        if nofig else ""))
    else:
        parts.append("no repeat was left out (every target stayed on its CPU)")
    # The floor (PRIVATE_EXPEDITED_RSEQ to the first target's CPU) of the
    # calls points at T=2: one placement, so one cost unless the host moved.
    floors = [num(r.get("floor_ns")) for r in ok_rows(data.get("calls", [])) if r.get("threads") == "2"]
    floors = [f for f in floors if not math.isnan(f) and f > 0]
    if len(floors) >= 2:
        lo, hi = min(floors), max(floors)
        parts.append(f"the delivery floor at T=2 {lo / 1000:.3g}-{hi / 1000:.3g} µs over {len(floors)} points "
                     f"({hi / lo:.2g}x)")
        if hi / lo > FLOOR_DRIFT_MAX:
            why.append(f"the delivery floor moved {hi / lo:.2g}x between points")
    return parts
