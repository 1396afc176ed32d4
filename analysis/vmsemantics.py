# SPDX-License-Identifier: MIT
"""mbbench vm semantics' tables: semantics.csv and semantics.md from the
guests' doctor and disturb folders (mbtool.py vm-semantics)."""

import csv
import glob
import math
import os

from mbmerge import merge_replicates
from mbresults import COLUMNS, num


# semantics.csv and semantics.md: what each barrier did in each
# architecture's guest (mbbench vm semantics), side by side.
#
#   mbtool.py vm-semantics OUT GUEST...   (GUEST: ARCH for Debian's stock
#   kernel, ARCH-fixed or ARCH-unfixed for the patched one)

ROLE_WORDS = (("self-spin", "a CPU running a thread of the caller's process"),
              ("self-sleep", "a sleeping thread's CPU (of the caller's process)"),
              ("idle", "an idle CPU"),
              ("foreign-spin", "a CPU running another (registered) process"),
              ("foreign-rt", "a CPU running another process's RT thread"),
              ("foreign-sleep", "a CPU where another process sleeps"))


def _guest(name):
    """A guest's folder name: ARCH (Debian's stock kernel) or ARCH-BUILD
    (the patched kernel: unfixed or fixed), or, with vm semantics
    --source, ARCH-SOURCE-BUILD (BUILD stock too)."""
    arch, _, rest = name.partition("-")
    src, _, build = rest.rpartition("-")
    return arch, build or "stock"


def _source(name):
    """The kernel source of an ARCH-SOURCE-BUILD guest (e.g. 7.3), else ''."""
    return name.partition("-")[2].rpartition("-")[0]


def vm_semantics(argv):
    out, guests = argv[0], argv[1:]
    cols = list(COLUMNS["semantics"])
    res, probes, measured = [], {}, []
    for g in guests:
        arch, build = _guest(g)
        d = os.path.join(out, g)
        try:
            with open(os.path.join(d, "release")) as f:
                release = f.read().strip()
        except OSError:
            release = ""
        reps = []
        for path in sorted(glob.glob(os.path.join(d, "disturb.*", "disturb.csv"))):
            with open(path, newline="") as f:
                reps.append(list(csv.DictReader(f)))
        try:
            with open(os.path.join(d, "doctor", "doctor.csv"), newline="") as f:
                probes[g] = (release, list(csv.DictReader(f)))
        except OSError:
            probes[g] = (release, [])
        if reps:
            measured.append(g)
        elif not probes[g][1]:
            res.append(dict(arch=arch, kernel_build=build, kernel=release, mechanism="-", role="-",
                            status="skipped",
                            skip_reason=f"the {arch} guest ({build} kernel) measured nothing (see stderr and {g}/console.log)"))
        for r in merge_replicates("disturb", reps) if reps else []:
            if r["phase"] != "storm" or r["role"] == "caller":
                continue
            ok = r["status"] == "ok"
            sig = num(r.get("signals", "")) if ok else math.nan
            nb = num(r.get("barriers", "")) if ok else math.nan
            tlb = r.get("tlb_per_barrier", "") if ok else ""
            res.append(dict(guest=g, arch=arch, kernel_build=build, kernel=release, mechanism=r["mechanism"],
                            role=r["role"], cpu=r["cpu"],
                            barriers=r["barriers"] if ok else "",
                            ipis_per_barrier=r["ipis_per_barrier"] if ok else "",
                            ipis_per_barrier_ci95=r.get("ipis_per_barrier_ci95", "") if ok else "",
                            tlb_per_barrier=tlb,
                            tlb_note="" if tlb != "" or not ok else
                            ("no TLB-shootdown IPIs on this architecture (broadcast TLBI)" if arch == "arm64"
                             else "no TLB-shootdown row on riscv64 (an SBI remote fence, or a function-call "
                             "IPI)" if arch == "riscv64" else "not observable (no TLB count)"),
                            signals_per_barrier=f"{sig / nb:.3f}" if nb > 0 and not math.isnan(sig) else "",
                            oncpu_fraction=r.get("oncpu_fraction", "") if ok else "",
                            replicates=r.get("replicates", "") if ok else "",
                            status=r["status"], skip_reason=r["skip_reason"]))
    tmp = os.path.join(out, "semantics.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="", extrasaction="ignore")
        w.writeheader()
        w.writerows(res)
    os.replace(tmp, os.path.join(out, "semantics.csv"))
    _semantics_md(out, guests, measured, res, probes)


# Mechanisms that order the process's other threads by interrupting the
# CPUs that run them: each must interrupt a CPU running one of them.
# (MEMBARRIER_CMD_GLOBAL and seed-v5-sched wait for a grace period
# instead, the fence orders only its own thread, signals show as
# signals.)
IPI_BARRIERS = ("membarrier-private-expedited", "membarrier-global-expedited", "seed-v1-ipi-all",
                "seed-v5-expedited", "mprotect")


def _semantics_findings(guests, measured, res, probes, name):
    """What the table and the doctor lines say, in sentences: the
    IPI-reliant barriers that interrupt a running thread's CPU on one
    architecture and not on another, and where doctor's lazy-mm probe
    found the GLOBAL_EXPEDITED bug."""
    def spin(g, m):
        r = next((x for x in res if x.get("guest") == g and x["mechanism"] == m and x["role"] == "self-spin"
                  and x["status"] == "ok"), None)
        return num(r["ipis_per_barrier"]) if r else math.nan
    out = []
    mechs = sorted({x["mechanism"] for x in res if x["mechanism"].startswith(IPI_BARRIERS)})
    # Per kernel build, the architectures side by side.
    diffs, none = [], []
    for m in mechs:
        per = []
        for src, build in dict.fromkeys((_source(g), b) for g in measured for b in ("stock", "unfixed", "fixed")):
            gs = [g for g in measured if _guest(g)[1] == build and _source(g) == src
                  and not math.isnan(spin(g, m))]
            hit = [g for g in gs if spin(g, m) >= 0.75]
            miss = [g for g in gs if spin(g, m) <= 0.2]
            if hit and miss:
                per.append(", ".join(f"{name(g)} {spin(g, m):+.3f}" for g in hit + miss))
            for g in miss:
                none.append((g, m))
        if per:
            diffs.append(f"{m} ({'; '.join(per)})")
    kdiffs = []
    for m in mechs:
        for arch in dict.fromkeys(_guest(g)[0] for g in measured):
            gs = [g for g in measured if _guest(g)[0] == arch and not math.isnan(spin(g, m))]
            hit = [g for g in gs if spin(g, m) >= 0.75]
            miss = [g for g in gs if spin(g, m) <= 0.2]
            if hit and miss:
                why = ""
                if (m == "membarrier-global-expedited" and any(_guest(g)[1] == "fixed" for g in hit)
                        and any(_guest(g)[1] == "unfixed" for g in miss)):
                    why = (": the fix's doing, the unfixed and fixed kernels being one tree but for it (the "
                           "caller's thread runs on a CPU that held the process's mm lazily with a stale state)")
                kdiffs.append(f"{m} ({', '.join(f'{name(g)} {spin(g, m):+.3f}' for g in hit + miss)}){why}")
    if kdiffs:
        out += ["**What differs between the kernels.** On one architecture, these interrupt a CPU running a "
                "thread of the caller's process on one kernel and not on another: " + "; ".join(kdiffs) + ".",
                ""]
    if diffs:
        out += ["**What differs between the architectures.** A barrier that works by interrupting the CPUs "
                "that run the process's threads must interrupt a CPU running one of them (IPIs per barrier "
                "there, 1 for a barrier). These do so on "
                + ("one architecture and not on the other" if len({_guest(g)[0] for g in measured}) < 3
                   else "some architectures and not on others") + ": "
                + "; ".join(diffs) + ".", ""]
    if none:
        out += ["**Orders nothing there:** " + "; ".join(f"{m} on {name(g)}" for g, m in none)
                + ": it interrupted no CPU running a thread of the caller's process (at most 0.2 IPIs per "
                "barrier), so that thread's stores and loads are not ordered by it.", ""]
    out += _source_findings(guests, measured, probes, spin, mechs, name)
    out += _arch_answers(guests, measured, res, probes, spin, name)
    lazy = {g: next((r.get("result") for r in probes.get(g, ("", []))[1] if r.get("probe") == "lazy-mm"), None)
            for g in guests}
    aff = [name(g) for g in guests if lazy[g] == "affected"]
    okg = [name(g) for g in guests if lazy[g] == "ok"]
    if aff:
        out += ["**The GLOBAL_EXPEDITED lazy-mm bug** (doctor's lazy-mm: a CPU that held the process's mm "
                "lazily gets no IPI): affected on " + ", ".join(aff)
                + ("; ok on " + ", ".join(okg) if okg else "") + ".", ""]
    return out


def _arch_answers(guests, measured, res, probes, spin, name):
    """Each architecture's answers, in a sentence each: does mprotect
    interrupt a running thread's CPU (and the cause doctor saw), does the
    seed's v5 reach it (which needs the kernel's mm_cpumask), is SYNC_CORE
    offered and interrupting, does the lazy-mm bug reproduce and does the
    fix take it away."""
    def probe(g, p, col="result"):
        return next((r.get(col, "") for r in probes.get(g, ("", []))[1] if r.get("probe") == p), "")

    def reach(m, gs):
        v = [(g, spin(g, m)) for g in gs if not math.isnan(spin(g, m))]
        return ", ".join(f"{name(g)} {x:+.3f}" for g, x in v)

    def skipped(m, gs):
        return next((x["skip_reason"] for x in res if x.get("guest") in gs and x["mechanism"] == m
                     and x["status"] != "ok"), "")
    out = []
    for arch in dict.fromkeys(_guest(g)[0] for g in guests):
        gs = [g for g in measured if _guest(g)[0] == arch]
        said = []
        mp = reach("mprotect", gs)
        if mp:
            ev = next((probe(g, "mprotect-barrier", "evidence") for g in gs if probe(g, "mprotect-barrier")), "")
            cause = ev.partition("; remote TLB flushes: ")[2]
            said.append(f"mprotect reaches a running thread's CPU {mp} IPIs per barrier"
                        + (f" (doctor mprotect-barrier: {', '.join(sorted({probe(g, 'mprotect-barrier') for g in gs} - {''}))}"
                           f"; remote TLB flushes: {cause})" if cause else ""))
        v5 = reach("seed-v5-expedited", gs)
        if v5:
            said.append(f"the seed's v5 (IPIs to mm_cpumask) {v5}: it "
                        + ("reaches the thread's CPU, so the kernel keeps mm_cpumask"
                           if all(spin(g, "seed-v5-expedited") >= 0.75 for g in gs
                                  if not math.isnan(spin(g, "seed-v5-expedited")))
                           else "does not reach it everywhere (the kernel may keep no mm_cpumask)"))
        sc = reach("membarrier-private-expedited-sync-core", gs)
        scw = sorted({probe(g, "sync-core") for g in gs} - {""})
        if sc:
            said.append(f"SYNC_CORE is offered and reaches the thread's CPU {sc}"
                        + (f" (doctor sync-core: {', '.join(scw)})" if scw else ""))
        elif skipped("membarrier-private-expedited-sync-core", gs):
            said.append("SYNC_CORE is not measured: " + skipped("membarrier-private-expedited-sync-core", gs))
        lazy = {g: probe(g, "lazy-mm") for g in guests if _guest(g)[0] == arch and probe(g, "lazy-mm")}
        if lazy:
            said.append("doctor lazy-mm " + ", ".join(f"{lazy[g]} on {name(g)}" for g in lazy)
                        + ("; the fixed kernel is the unfixed tree with the same fix as every other "
                           "architecture's, applied unchanged" if any(_guest(g)[1] == "fixed" for g in lazy) else ""))
        if said:
            out += [f"**On {arch}:** " + "; ".join(said) + ".", ""]
    return out


def _source_findings(guests, measured, probes, spin, mechs, name):
    """With guests of several kernel sources (vm semantics --source
    6.1,7.3): for each architecture and kernel build, what differs between
    the sources, in a sentence: the barriers that reach a running thread's
    CPU on one and not on the other, and doctor's answers that differ; or
    that nothing does."""
    srcs = list(dict.fromkeys(_source(g) for g in guests if _source(g)))
    if len(srcs) < 2:
        return []
    diffs, same, undecided = [], [], []
    for arch in dict.fromkeys(_guest(g)[0] for g in guests):
        for build in ("stock", "unfixed", "fixed"):
            gs = [g for g in guests if _guest(g) == (arch, build)]
            if len({_source(g) for g in gs}) < 2:
                continue
            what = []
            for m in mechs:
                v = {g: spin(g, m) for g in gs if g in measured and not math.isnan(spin(g, m))}
                hit = [g for g in v if v[g] >= 0.75]
                miss = [g for g in v if v[g] <= 0.2]
                if hit and miss:
                    what.append(f"{m} ({', '.join(f'{_source(g)} {v[g]:+.3f}' for g in hit + miss)})")
                for g in v:
                    if g not in hit and g not in miss:
                        undecided.append(f"{m} on {arch} {_source(g)} ({build}: {v[g]:+.3f}, between 0.2 and "
                                         "0.75 IPIs per barrier on a running thread's CPU)")
            answers = {}
            for g in gs:
                for r in probes.get(g, ("", []))[1]:
                    answers.setdefault(r.get("probe"), {})[_source(g)] = r.get("result")
            for probe, by in answers.items():
                # "cannot tell" is no answer: it differs from nothing.
                told = {k: v for k, v in by.items() if v != "cannot tell"}
                if len(told) > 1 and len(set(told.values())) > 1:
                    what.append(f"doctor {probe}: " + ", ".join(f"{k} {v}" for k, v in told.items()))
                elif len(told) < len(by):
                    undecided.append(f"doctor {probe} on {arch} {', '.join(k for k in by if k not in told)} ({build})")
            label = f"{arch} ({build})"
            if what:
                diffs.append(f"{label}: " + "; ".join(what))
            else:
                same.append(label)
    out = []
    between = " and ".join(srcs)
    if diffs:
        out += [f"**What differs between {between}.** " + "; ".join(diffs) + ".", ""]
    if same:
        out += [f"**The same on {between}:** " + ", ".join(same) + ": every barrier reaches the same kinds "
                "of CPU (a running thread's CPU: at least 0.75 IPIs per barrier on both, or at most 0.2 on "
                "both), and doctor's probes answer alike.", ""]
    if undecided:
        out += ["Not compared (no verdict there: the probe could not tell, or the barrier reached a running "
                "thread's CPU in some processes and not in others): "
                + "; ".join(undecided) + ".", ""]
    return out


def _semantics_md(out, guests, measured, res, probes):
    def cell(g, m, role):
        r = next((x for x in res if x.get("guest") == g and x["mechanism"] == m and x["role"] == role), None)
        if r is None:
            return "-"
        if r["status"] != "ok":
            return "skipped: " + r["skip_reason"]
        v, h = num(r["ipis_per_barrier"]), num(r["ipis_per_barrier_ci95"])
        s = f"{v:+.3f}" + (f" ± {h:.3f}" if not math.isnan(h) else "")
        if r.get("signals_per_barrier"):
            s += f", {num(r['signals_per_barrier']):.2f} signals"
        return s

    def name(g):
        arch, build = _guest(g)
        src = _source(g)
        if build == "stock" and all(_guest(x)[1] == "stock" for x in guests):
            return f"{arch} {src}".strip()
        return f"{arch} {src} ({build})" if src else f"{arch} ({build})"

    def kernel(g):
        rel = probes.get(g, ("", []))[0] or "?"
        return f"Debian's {rel}" if _guest(g)[1] == "stock" else rel
    mechs = []
    for r in res:
        if r["mechanism"] != "-" and r["mechanism"] not in mechs:
            mechs.append(r["mechanism"])
    cols = measured or [g for g in guests]
    lines = ["# What each barrier does, by architecture", "",
             "IPIs per barrier received by each kind of CPU (the storm's less the baseline's, ± 95% CI over the "
             "guest's processes; `semantics.csv` has the barriers counted, the signals and the on-CPU share). "
             "Guests: " + "; ".join(f"{name(g)} on {kernel(g)}" + ("" if g in measured else " (doctor only)")
                                    for g in guests)
             + ", each under QEMU TCG. Under TCG the times mean nothing; which CPUs a barrier interrupts is the "
             "kernel's doing and is real. A signal is not a function-call IPI: it shows as signals.", ""]
    lines.append("| mechanism | CPU | " + " | ".join(name(g) for g in cols) + " |")
    lines.append("|---|---|" + "---|" * len(cols))
    words = dict(ROLE_WORDS)
    # A mechanism no guest could run is one line under the table, not a
    # row per kind of CPU.
    absent = [m for m in mechs if all(x["status"] != "ok" for x in res if x["mechanism"] == m)]
    for m in mechs:
        if m in absent:
            continue
        for role, _ in ROLE_WORDS:
            if any(x["mechanism"] == m and x["role"] == role for x in res):
                lines.append(f"| {m} | {words[role]} | " + " | ".join(cell(g, m, role) for g in cols) + " |")
    lines.append("")
    if absent:
        lines += ["Not measured: " + "; ".join(
            f"{m} ({next(x['skip_reason'] for x in res if x['mechanism'] == m)})" for m in absent) + ".", ""]
    lines += _semantics_findings(guests, measured, res, probes, name)
    dead = [x for x in res if x["mechanism"] == "-"]
    if dead:
        lines += ["Not measured: " + "; ".join(x["skip_reason"] for x in dead) + ".", ""]
    for g in guests:
        rel_g, rows = probes.get(g, ("", []))
        if rows:
            lines.append(f"mbbench doctor on {name(g)} ({rel_g}): " + "; ".join(
                f"{r.get('probe')}: {r.get('result')}" for r in rows) + ".")
    lines.append("")
    weak = [a for a in ("arm64", "riscv64") if any(os.path.basename(g).startswith(a) for g in guests)]
    if weak:
        lines += [f"TCG runs {' and '.join(('an ' if a == 'arm64' else 'a ') + a for a in weak)} guest on this host with the host's own "
                  "ordering where it is stronger (x86 keeps loads and stores in order except a store before a "
                  "later load): a litmus test in the guest can show the store buffering both allow, never the "
                  f"reorderings only {' and '.join(weak)} allow{'s' if len(weak) == 1 else ''}.", ""]
    tmp = os.path.join(out, "semantics.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(lines))
    os.replace(tmp, os.path.join(out, "semantics.md"))
