# SPDX-License-Identifier: MIT
"""report's sections on the host and the kernel: the run's line under the
title, the host facts of the appendix, the kernel probes (doctor.csv),
what this host changes against an ordinary one, and the fidelity table
against the seed's 2010 figures."""
import math
import os

from mbformat import fmt_ci, fmt_ns, fmt_num, md_table, pm
from mbresults import host, num, ok_rows, tlb_cause
from rpt_rcu import read_ratio_why


def section_host(run, folder):
    h = host(run)
    srcs = (run.get("info") or {}).get("host_sources") or {}
    # Two facts a row; each fact's source is in run.json (info.host_sources).
    items = [(k, f"`{v}`" + (" *" if srcs.get(k) else "")) for k, v in h.items()]
    items += [("", "")] * (-len(items) % 4)
    rows = [items[i] + items[i + 1] + items[i + 2] + items[i + 3] for i in range(0, len(items), 4)]
    out = ["## Host facts and how the run went", "",
           "`*`: its source is in run.json (`info.host_sources`).", "",
           md_table(("fact", "value") * 4, rows), ""]
    said = [f"Preset `{run.get('preset', '?')}`, {run.get('points_done', '?')} of "
            f"{run.get('points_planned', '?')} points" + (" (interrupted)" if run.get("interrupted") else "")]
    pred, meas = run.get("predicted_s"), run.get("measured_s")
    if isinstance(pred, (int, float)) and isinstance(meas, (int, float)) and pred > 0:
        budget = run.get("budget_s")
        said.append(f"{pred:.0f} s planned"
                    + (f" (budget {budget:.0f} s)" if isinstance(budget, (int, float)) else "")
                    + f", {meas:.0f} s taken to measure ({meas / pred:.2f} of the plan)")
    if run.get("aslr"):
        said.append(f"address-space randomization {run['aslr']}")
    if run.get("order_seed") is not None:
        said.append(f"points shuffled with seed {run['order_seed']} (`mbbench sweep --seed "
                    f"{run['order_seed']}` repeats the order)")
    out.append("; ".join(said) + ".")
    # The derived figures (each point's JSON) are said where they are read:
    # the harness ratio and the RCU ratios in the remarks and Fidelity, the
    # doctor's count in the Verdict.
    cmds = os.path.join(folder, "commands.txt")
    if os.path.isfile(cmds):
        # A blank line first: a line straight after a table is read as its row.
        out += ["", "Every command run is in `commands.txt`; the hwloc topology is in `topology.xml`."]
    return out


def run_line(run):
    """When and what ran, under the title."""
    h = host(run)
    pts = [p for p in run.get("points", []) if isinstance(p, dict)]
    # The points are listed in the planned order, not the order they ran:
    # the run is the earliest start to the latest end.
    start = min((p["start"] for p in pts if isinstance(p.get("start"), str)), default=None)
    end = max((p["end"] for p in pts if isinstance(p.get("end"), str)), default=None)
    virt = "guest" if "guest" in h.get("virtualization", "") else "bare metal"
    return [f"Run {start or '?'} to {end or '?'}; preset `{run.get('preset') or '-'}`, "
            f"{run.get('points_done', '?')} of {run.get('points_planned', '?')} points"
            + (" (interrupted)" if run.get("interrupted") else "")
            + f"; {h.get('cpus_online', '?')} CPUs ({h.get('cpu_model', '?')}, {virt}).", ""]


def doctor_measure(r):
    """A probe's measure in the report's units: a time as ns/µs/ms (one
    rule, whatever unit the probe wrote), a count as it is."""
    v, u = num(r.get("measure")), r.get("measure_unit", "")
    if math.isnan(v):
        return "-"
    scale = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}.get(u.split("/")[0])
    if scale:
        return fmt_ns(v * scale) + ("/" + u.split("/", 1)[1] if "/" in u else "")
    return f"{v:.3g} {u}".strip()


def section_kernel(data):
    doc = data.get("doctor", [])
    if not doc:
        return ["## Kernel and host", "", "No kernel probes: the folder has no doctor.csv.", ""]
    body = [(r.get("probe", ""), r.get("result", ""), r.get("reason", ""), doctor_measure(r),
             r.get("workaround", "") if r.get("result") in ("affected", "info") else "-") for r in doc
            if r.get("result") != "ok"]
    oks = [f"{r.get('probe', '')} ({r.get('reason', '')})" for r in doc if r.get("result") == "ok"]
    return ["## Kernel and host", "",
            "The kernel probes of `mbbench doctor`, run first (evidence, consequence, fix and reference "
            "of each are in `doctor.csv`)." + (" Passed: " + "; ".join(oks) + "." if oks else ""), ""] + \
        ([md_table(("probe", "result", "reason", "measure", "workaround"), body), ""] if body else [])


# What each mechanism should do on an ordinary host, and the host facts that
# change it. Each rule looks at this run's numbers; a deviation is explained
# by a recorded fact or reported as unexplained.
GRACE_PERIOD_NS = 1e6     # below this, MEMBARRIER_CMD_GLOBAL was not a normal grace period


def _storm(dis, mech, role):
    return [r for r in ok_rows(dis) if r.get("mechanism") == mech and r.get("role") == role
            and r.get("phase") == "storm"]


def section_host_changes(run, data):
    h = host(run)
    rcu_exp = h.get("rcu_expedited") == "1"
    items = []

    def say(what, measured, why):
        items.append((what, measured, why if why else "**unexplained**"))

    calls, lat, dis = data.get("calls", []), data.get("latency", []), data.get("disturb", [])
    g = [r for r in ok_rows(calls) if r.get("mechanism") == "membarrier-global"]
    fast = [r for r in g if num(r.get("ns_per_call")) < GRACE_PERIOD_NS]
    if fast:
        r = min(fast, key=lambda x: num(x.get("ns_per_call")))
        say("membarrier-global costs a grace period (milliseconds)",
            f"{fmt_ns(num(r['ns_per_call']))} per call at T={r.get('threads')}",
            "rcu_expedited=1: synchronize_rcu() runs expedited grace periods (IPIs, microseconds)"
            if rcu_exp else None)
    hit = [(role, num(r.get("ipis_per_barrier"))) for role in ("self-spin", "foreign-spin", "foreign-rt")
           for r in _storm(dis, "membarrier-global", role)[:1] if num(r.get("ipis_per_barrier")) >= 0.5]
    if hit:
        say(f"membarrier-global sends no IPIs ({', '.join(role for role, _ in hit)} CPUs)",
            ", ".join(f"{v:.2f}" for _, v in hit) + " IPIs per barrier",
            "rcu_expedited=1: an expedited grace period IPIs every CPU running a task" if rcu_exp else None)
    allrows = calls + lat + dis
    gone = [r for r in allrows if r.get("mechanism") == "membarrier-global" and r.get("status") == "skipped"]
    if gone:
        nohz = h.get("nohz_full", "none")
        say("membarrier-global is available", "skipped: " + (gone[0].get("skip_reason") or "?"),
            f"nohz_full={nohz}: the kernel refuses MEMBARRIER_CMD_GLOBAL" if nohz not in ("", "none", "unknown") else None)
    for r in _storm(dis, "mprotect", "self-spin"):
        tlb = h.get("tlb_shootdowns_since_boot", "unknown")
        cause = tlb_cause(h)
        if tlb == "0":
            say("mprotect causes one TLB shootdown per barrier on a self-spin CPU",
                "TLB shootdowns not observable: no count (empty cells)",
                "the TLB counter of /proc/interrupts has not moved since boot (tlb_shootdowns_since_boot=0): "
                "this host flushes remote TLBs without an IPI it can see ("
                + (f"remote_tlb_flush: {cause}" if cause else "cause not identified")
                + "), so the count is not a measurement")
        elif num(r.get("tlb_per_barrier")) < 0.5 and num(r.get("oncpu_fraction", "1")) > 0.5:
            say("mprotect causes one TLB shootdown per barrier on a self-spin CPU",
                f"{num(r.get('tlb_per_barrier')):.3f} TLB shootdowns per barrier",
                f"this host flushes remote TLBs without an IPI (remote_tlb_flush: {cause})" if cause else None)
        break
    for r in _storm(dis, "membarrier-global-expedited", "self-spin"):
        if num(r.get("ipis_per_barrier")) < 0.5 and num(r.get("oncpu_fraction", "1")) > 0.5:
            say("membarrier-global-expedited interrupts the caller's spinning thread",
                f"{num(r.get('ipis_per_barrier')):.3f} IPIs per barrier",
                "the kernel's stale runqueue state after registering with one thread "
                "(docs/FINDINGS.md, GLOBAL_EXPEDITED misses threads)")
            break
    for r in _storm(dis, "membarrier-private-expedited", "self-spin"):
        if num(r.get("ipis_per_barrier")) < 0.5 and num(r.get("oncpu_fraction", "1")) > 0.5:
            say("membarrier-private-expedited interrupts a CPU running the caller's thread",
                f"{num(r.get('ipis_per_barrier')):.3f} IPIs per barrier", None)
            break
    for r in ok_rows(data.get("litmus", [])) + [x for x in data.get("litmus", []) if x.get("status") == "failed"]:
        if r.get("status") == "failed" and r.get("pairing") == "membarrier-global-expedited":
            say("membarrier-global-expedited orders memory (litmus)",
                f"forbidden outcome {r.get('r1_0_r2_0', '?')} times in {r.get('trials', '?')} trials",
                "the kernel's stale runqueue state: a CPU that held the mm lazily is skipped "
                "(docs/FINDINGS.md, GLOBAL_EXPEDITED misses threads)")
    reg = [r for r in ok_rows(data.get("register", [])) if r.get("other_threads") not in ("0", "")]
    for r in reg:
        if num(r.get("register_ns")) < GRACE_PERIOD_NS:
            say("registering with other threads running waits for a grace period (milliseconds)",
                f"{fmt_ns(num(r['register_ns']))} for {r.get('mechanism')} with {r.get('other_threads')} threads",
                "rcu_expedited=1: the grace period is expedited" if rcu_exp else None)
            break
    # The kernel's findings and its design (the registration's grace
    # period) are in §Kernel and the Verdict, not here: this is the host.
    if "guest" in h.get("virtualization", ""):
        say("an IPI costs what it costs on bare metal", f"a guest ({h.get('virtualization')})",
            "every IPI is a VM exit on the sender (and on the receiver without posted interrupts): "
            "the expedited barriers cost more than on bare metal")
    # Under the kernel's probes, in one section (§Kernel and host).
    if not items:
        return ["What this host changes: nothing measured here left what the mechanism does on an "
                "ordinary host.", ""]
    if len(items) == 1:
        e, m, x = items[0]
        return [f"What this host changes: {e}, but measured here: {m}; {x}.", ""]
    return ["What this host changes: where a measurement leaves what the mechanism does on an ordinary "
            "host, and the recorded host fact that explains it:", "",
            md_table(("expected", "measured here", "explanation"), items), ""]


def find(rows, **kw):
    for r in ok_rows(rows):
        if all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


def fidelity(data, seed, h=None):
    h = h or {}
    out = []
    calls = data.get("calls", [])
    for t in range(1, 8):
        s = seed[f"v5-exp-T{t}"]
        seed_ns = num(s["value"]) / 1e7 * 1e9
        for mech in ("seed-v5-expedited", "membarrier-private-expedited"):
            r = find(calls, mechanism=mech, threads=str(t))
            if r:
                ours = num(r["ns_per_call"])
                if r.get("oversubscribed") == "1":
                    out.append((f"expedited ns/call, T={t}", fmt_ns(seed_ns), f"{pm('calls', r, 'ns_per_call')} "
                                f"({mech}), oversubscribed", "not like with like: more threads than CPUs here"))
                else:
                    out.append((f"expedited ns/call, T={t}", f"{fmt_ns(seed_ns)}",
                                f"{pm('calls', r, 'ns_per_call')} ({mech})", f"{ours / seed_ns:.2g}x of the seed's"))
                break
        else:
            if t > 3:
                continue	# beyond the run's range: the seed's rows are in seed-2010.csv
            out.append((f"expedited ns/call, T={t}", fmt_ns(seed_ns), "not measured", "-"))
    seed_nonexp = num(seed["v5-nonexp"]["value"]) / 1000 * 1e9
    lat = data.get("latency", [])
    g = next((r for r in ok_rows(lat) if r["mechanism"] in ("seed-v5-sched", "membarrier-global")), None)
    e = None
    if g:
        e = find(lat, mechanism="seed-v5-expedited", threads=g["threads"]) or \
            find(lat, mechanism="membarrier-private-expedited", threads=g["threads"])
    if g and e and num(e["p50_ns"]) > 0:
        ratio = num(g["p50_ns"]) / num(e["p50_ns"])
        out.append(("non-expedited / expedited, p50", "5000-8000x "
                    f"({fmt_ns(seed_nonexp)} per non-expedited call)",
                    f"{ratio:,.0f}x ({g['mechanism']} {fmt_ns(num(g['p50_ns']))} / "
                    f"{e['mechanism']} {fmt_ns(num(e['p50_ns']))})",
                    "within the seed's range" if 5000 <= ratio <= 8000 else
                    ("above the seed's range" if ratio > 8000 else "below the seed's range")
                    + ("" if 5000 <= ratio <= 8000 else "; " + range_reason(ratio, g, h))))
    else:
        out.append(("non-expedited / expedited", "5000-8000x", "not measured in this run", "-"))
    rcu = data.get("rcu", [])
    def rate(scheme, col):
        r = find(rcu, scheme=scheme)
        return num(r[col]) if r and col in r else math.nan
    w_m, w_s = rate("membarrier-private-expedited", "writes_per_s"), rate("signal", "writes_per_s")
    r_m, r_b = rate("membarrier-private-expedited", "reads_per_s"), rate("mb", "reads_per_s")
    out.append(("RCU write side, membarrier over signal", "400:1",
                f"{w_m / w_s:,.2g}:1" if w_s > 0 and w_m > 0 else "not measured in this run",
                "configurations differ (below)"))
    rcu_why = read_ratio_why(data.get("rcu-model") or [])
    out.append(("RCU read side, membarrier over mb", "4.5:1",
                f"{r_m / r_b:,.2g}:1" if r_b > 0 and r_m > 0 else "not measured in this run",
                rcu_why or "configurations differ (below): one reader has no other reader to share its cache lines with"))
    dis = data.get("disturb", [])
    for mech, sid in (("seed-v1-ipi-all", "v1-idle-ipi"), ("seed-v5-expedited", "v5-idle-ipi"),
                      ("membarrier-private-expedited", "v5-idle-ipi")):
        r = None
        for x in ok_rows(dis):
            if x.get("mechanism") == mech and x.get("role") == "idle" and x.get("phase") == "storm":
                r = x
        if r is None and mech.startswith("seed-"):
            continue	# needs the patched kernel: under Skipped
        out.append((f"IPIs per barrier on an idle CPU, {mech}", f"{seed[sid]['value']} (design)",
                    fmt_ci(num(r["ipis_per_barrier"]), num(r.get("ipis_per_barrier_ci95")), None, "delta")
                    if r and r.get("ipis_per_barrier") else "not measured in this run", "-"))
    seed_rows = [("memory barriers in reader", "rcu-mb"), ("signal-based scheme", "rcu-signal"),
                 ("sys_membarrier expedited", "rcu-memb-exp"), ("sys_membarrier non-expedited", "rcu-memb-nonexp")]
    rcu0 = (ok_rows(rcu) or [{}])[0]
    cfg = (f"The configurations, seed 2010 against this run: CPUs 8 (Intel Xeon E5405) against "
           f"{h.get('cpus_online', '?')} ({h.get('cpu_model', '?')}); bare metal against "
           f"{'a guest' if 'guest' in h.get('virtualization', '') else 'bare metal'}; kernel 2.6.x with the "
           f"membarrier patch against {h.get('kernel_release', '?')}; rcu readers / writers 6 / 2 against "
           f"{rcu0.get('readers', '?')} / {rcu0.get('writers', '?')}, 10 s against "
           + (f"{num(rcu0.get('duration_s')):.3g} s a repeat" if rcu0 else "-") + ". The seed's rcu reads, writes: "
           + "; ".join(f"{n}: {fmt_num(num(seed[k + '-reads']['value']))}, {fmt_num(num(seed[k + '-writes']['value']))}"
                       for n, k in seed_rows) + " (this run's rates in §rcu).")
    return ["## Fidelity to the 2010 figures", "",
            "Absolute costs do not carry across machines; the ratios the seed claims (`results/seed-2010.csv`) "
            "are compared with those measured here, like with like only.", "",
            md_table(("figure", "seed 2010", "this run", "comparison"), out), "", cfg, ""]


def range_reason(ratio, g, h):
    """Why the non-expedited / expedited ratio left the seed's range."""
    why = []
    if ratio < 5000:
        if g.get("mechanism") == "membarrier-global" and h.get("rcu_expedited") == "1":
            why.append("rcu_expedited=1 makes the non-expedited side an expedited grace period")
        if "guest" in h.get("virtualization", ""):
            why.append("in a guest every IPI is a VM exit, which makes the expedited side dearer")
        hz = h.get("hz", "")
        if hz.isdigit() and int(hz) > 250:
            why.append(f"HZ={hz} shortens grace periods")
    elif h.get("rcu_normal") == "1":
        why.append("rcu_normal=1 keeps grace periods normal")
    return ", ".join(why) if why else "**unexplained**"
