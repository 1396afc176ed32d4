# SPDX-License-Identifier: MIT
"""Writing a results folder from what its points left in raw/: the sweep's
run.json and per-experiment CSVs (assemble, called by analysis/finish.py),
and mbbench vm's guests aggregated into vmscale.csv or isolation.csv and
an A/B's kernels side by side in ab.csv (vm_aggregate, vm_ab: run as
`mbtool.py vm-aggregate` and `mbtool.py vm-ab`)."""
import csv
import glob
import io
import json
import math
import os
import shutil

from mbguard import EnvError
from mbmerge import merge_replicates, merged_csv
from mbresults import BIGGEST, COLUMNS, KEYS, TABLES, num
from mbstats import mean_interval


# ---------------------------------------------------------------------------
# Assembling a results folder (the sweep's last step, called by
# analysis/finish.py): the one place that writes run.json and the
# per-experiment CSVs, so the shell loop never prints JSON by hand.
#
#   assemble(DIR, preset, planned, interrupted, seed, timing, aslr)
#
# reads DIR/raw/points.txt, one line per point tried, in order:
#   EXPERIMENT NAME STATE [REASON...]
# STATE is ok (measured), finding (measured; a row's own correctness check
# failed), failed (not measured: REASON says why) or skipped (the host cannot
# run it, e.g. one usable CPU: REASON says why). A measured point's
# files are DIR/raw/EXPERIMENT-NAME/*.csv and EXPERIMENT.json; DIR/raw/info.json
# holds the host facts. Writes DIR/<table>.csv and DIR/run.json, each under
# a temporary name first; on an error raises AssembleError (one line),
# leaving no temporary file.

class AssembleError(Exception):
    """The folder could not be written or read: one line, exit 1."""


def _read_manifest(path):
    points = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                parts = line.rstrip("\n").split(" ", 3)
                if len(parts) < 3 or parts[2] not in ("ok", "finding", "failed", "skipped"):
                    raise AssembleError(f"{path}:{n}: not 'EXPERIMENT NAME STATE [REASON]'")
                points.append({"experiment": parts[0], "name": parts[1], "state": parts[2],
                               "reason": parts[3] if len(parts) > 3 else ""})
    except OSError as e:
        raise AssembleError(f"cannot read {path}: {e.strerror}")
    return points


def _read_load(path):
    """raw/load.txt (bench/sweep's loadrecord): one line per point run,
    EXPERIMENT NAME LOAD_BEFORE LOAD_AFTER STEAL TOTAL, "-" where the host
    had no figure. None for a folder without it (an older sweep's)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise AssembleError(f"cannot read {path}: {e.strerror}")
    out = []
    for n, line in enumerate(lines, 1):
        parts = line.split()
        if len(parts) != 6:
            raise AssembleError(f"{path}:{n}: not 'EXPERIMENT NAME LOAD_BEFORE LOAD_AFTER STEAL TOTAL'")
        vals = []
        for v, conv in zip(parts[2:], (float, float, int, int)):
            try:
                x = None if v == "-" else conv(v)
            except ValueError:
                raise AssembleError(f"{path}:{n}: '{v[:20]}' is not a number or -")
            if x is not None and not 0 <= x <= BIGGEST:
                raise AssembleError(f"{path}:{n}: {v[:20]} is out of range")
            vals.append(x)
        out.append({"point": f"{parts[0]}:{parts[1]}", "load_before": vals[0], "load_after": vals[1],
                    "steal_jiffies": vals[2], "total_jiffies": vals[3]})
    return out


def _write_all(outputs):
    """Write {path: text}: every file under a temporary name, then rename
    them all, so the folder gets all of them or none."""
    tmps = []
    try:
        for path, text in outputs.items():
            tmp = f"{path}.tmp"
            tmps.append(tmp)
            with open(tmp, "w", newline="") as f:
                f.write(text)
        for path in outputs:
            os.replace(f"{path}.tmp", path)
    except OSError as e:
        for t in tmps:
            try:
                os.unlink(t)
            except OSError:
                pass
        raise AssembleError(f"cannot write {e.filename or 'the folder'}: {e.strerror}")


def split_replicate(name):
    """A sweep's run name, "MECH.N" for replicate N of a point: (MECH, N);
    a name without a number (a point run once): (name, 0)."""
    base, dot, n = name.rpartition(".")
    if dot and base and n.isdigit():
        return base, int(n)
    return name, 0



def assemble(folder, preset, planned, interrupted, seed=None, timing=None, aslr=None, replicates=1):
    raw = os.path.join(folder, "raw")
    points = _read_manifest(os.path.join(raw, "points.txt"))
    run_order = [f"{p['experiment']}:{p['name']}" for p in points]
    # The CSVs keep the planned order (raw/plan.txt), whatever order ran.
    try:
        with open(os.path.join(raw, "plan.txt")) as f:
            plan = {tuple(line.split()[:2]): i for i, line in enumerate(f) if line.strip()}
        points.sort(key=lambda p: (plan.get((p["experiment"], split_replicate(p["name"])[0]), len(plan)),
                                   split_replicate(p["name"])[1]))
    except OSError:
        pass
    load = _read_load(os.path.join(raw, "load.txt"))
    # tables: CSV name -> (header line, [(point, {replicate: lines})])
    tables, envelopes = {}, []
    for p in points:
        if p["state"] in ("failed", "skipped"):
            continue
        pdir = os.path.join(raw, f"{p['experiment']}-{p['name']}")
        point = (p["experiment"], split_replicate(p["name"])[0])
        rep = split_replicate(p["name"])[1]
        try:
            with open(os.path.join(pdir, p["experiment"] + ".json")) as f:
                envelopes.append(json.load(f))
            for name in sorted(os.listdir(pdir)):
                if not name.endswith(".csv"):
                    continue
                with open(os.path.join(pdir, name), newline="") as f:
                    lines = f.read().splitlines(keepends=True)
                if not lines:
                    continue
                head, groups = tables.setdefault(name, (lines[0], []))
                if lines[0] != head:
                    raise AssembleError(f"{pdir}/{name}: its header differs from the other points'")
                if not groups or groups[-1][0] != point:
                    groups.append((point, {}))
                groups[-1][1].setdefault(rep, []).extend(lines[1:])
        except OSError as e:
            raise AssembleError(f"cannot read {e.filename}: {e.strerror}")
        except ValueError as e:
            raise AssembleError(f"{pdir}/{p['experiment']}.json is not valid JSON ({e})")
    try:
        with open(os.path.join(raw, "info.json")) as f:
            info = json.load(f)
    except OSError as e:
        raise AssembleError(f"cannot read {e.filename}: {e.strerror}")
    except ValueError as e:
        raise AssembleError(f"{raw}/info.json is not valid JSON ({e})")
    done = {(p["experiment"], split_replicate(p["name"])[0]) for p in points if p["state"] in ("ok", "finding")}

    def listed(state):
        """Each point once, with the replicates in that state."""
        out = {}
        for p in points:
            if p["state"] == state:
                base, rep = split_replicate(p["name"])
                e = out.setdefault((p["experiment"], base), {"experiment": p["experiment"], "name": base,
                                                             "reason": p["reason"], "replicates": []})
                if rep:
                    e["replicates"].append(rep)
        return list(out.values())
    run = {
        "format_version": 1,
        "tool": "mbbench sweep",
        "preset": preset,
        "interrupted": interrupted,
        "points_planned": planned,
        "points_done": len(done),
        # Each point (but a "first" one) ran in this many processes; its CIs
        # come from their means (the replicates column of each CSV).
        "replicates": replicates,
        "points_failed": listed("failed"),
        "points_skipped": listed("skipped"),
        "order_seed": seed,
        "run_order": run_order,
        # Address-space randomization for the points: off gives every run of
        # one build the same memory layout.
        "aslr": aslr,
        # The time model's prediction against the sweep's measuring time.
        "budget_s": (timing or {}).get("budget"),
        "predicted_s": (timing or {}).get("predicted"),
        "measured_s": (timing or {}).get("measured"),
        "info": info,
        "points": envelopes,
    }
    if load is not None:
        # The host's load around each point tried, in the order they ran.
        run["load"] = load
    outputs = {}
    for name, (head, groups) in tables.items():
        if all(len(reps) == 1 and 0 in reps for _, reps in groups):
            outputs[os.path.join(folder, name)] = head + "".join(line for _, reps in groups for lines in reps.values()
                                                                   for line in lines)
        else:
            table = name[:-len(".csv")]
            hist = tables.get(f"{table}-histogram.csv")
            hist = (hist[0], dict(hist[1])) if hist and f"{table}-histogram" in TABLES else None
            try:
                outputs[os.path.join(folder, name)] = merged_csv(table, head, groups, hist)
            except EnvError as e:
                raise AssembleError(str(e))
    _mark_findings(folder, outputs)
    outputs[os.path.join(folder, "run.json")] = json.dumps(run, indent=2) + "\n"
    _write_all(outputs)


# The rows a kernel finding of doctor.csv concerns: {probe: (mechanism, the
# tables and the column that names the mechanism)}.
FINDING_ROWS = {"lazy-mm": ("membarrier-global-expedited",
                            (("calls.csv", "mechanism"), ("anatomy.csv", "mechanism"), ("litmus.csv", "pairing")))}


def _mark_findings(folder, outputs):
    """kernel_finding of the rows whose figures a doctor finding of this
    folder explains: GLOBAL_EXPEDITED's where lazy-mm read affected."""
    doc = outputs.get(os.path.join(folder, "doctor.csv"))
    if not doc:
        return
    found = {r.get("probe") for r in csv.DictReader(io.StringIO(doc)) if r.get("result") == "affected"}
    for probe, (mech, where) in FINDING_ROWS.items():
        if probe not in found:
            continue
        for name, col in where:
            path = os.path.join(folder, name)
            if path not in outputs:
                continue
            rows = list(csv.reader(io.StringIO(outputs[path])))
            if not rows or "kernel_finding" not in rows[0] or col not in rows[0]:
                continue
            k, c = rows[0].index("kernel_finding"), rows[0].index(col)
            for r in rows[1:]:
                if len(r) == len(rows[0]) and r[c] == mech:
                    r[k] = probe
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows(rows)
            outputs[path] = out.getvalue()


# ---------------------------------------------------------------------------
# mbbench vm (bench/vm): the guests' disturb points aggregated into
# vmscale.csv or isolation.csv with run.json, and the kernels of an A/B run
# side by side in ab.csv.
#
#   mbresults.py vm-aggregate WHAT OUT SMPS ISOLATE KERNEL_NAME BZIMAGE
#   mbresults.py vm-ab OUT CSV_NAME KERNEL...

def vm_aggregate(argv):
    what, out, smps, isolate, kname, kernel = argv[0], argv[1], argv[2].split(), argv[3], argv[4], argv[5]

    def cpus(spec):
        s = set()
        for part in spec.split(","):
            a, _, b = part.partition("-")
            s.update(range(int(a), int(b or a) + 1))
        return s

    def rows(path):
        with open(path, newline="") as f:
            return list(csv.DictReader(f))

    def replicate_sets(pattern):
        """{point dir: [rows of each replicate's disturb.csv]}: a guest ran
        each point in several processes, DIR.1, DIR.2, ... (one, DIR, in
        folders from before replicates)."""
        sets = {}
        for path in sorted(glob.glob(pattern)):
            d = os.path.basename(os.path.dirname(path))
            sets.setdefault(d.split(".")[0], []).append(rows(path))
        return sets

    def mean_ci(vals):
        m, h, _, _, _ = mean_interval(vals)
        return m, "" if math.isnan(h) else f"{h:.3f}"

    res = []
    if what == "scale":
        cols = list(COLUMNS["vmscale"])
        # A failed guest's rows: the mechanisms the other guests ran (from
        # their own CSVs, not a list restated here), or one "-" row.
        ran = []
        for path in sorted(glob.glob(f"{out}/raw/smp*/k*/disturb.csv")):
            for r in rows(path):
                if r["mechanism"] not in ran:
                    ran.append(r["mechanism"])
        for n in smps:
            got = replicate_sets(f"{out}/raw/smp{n}/k*/disturb.csv")
            if not got:
                for m in ran or ["-"]:
                    res.append(dict(smp=n, mechanism=m, status="skipped", skip_reason=f"the -smp {n} guest failed (see stderr)"))
                continue
            for kdir in sorted(got, key=lambda d: int(d[1:])):
                k = kdir[1:]
                by = {}
                for rep in got[kdir]:
                    mine = {}
                    for r in rep:
                        mine.setdefault(r["mechanism"], []).append(r)
                    for m, rs in mine.items():
                        by.setdefault(m, []).append(rs)
                for m, reps in by.items():
                    sums, barriers, why = [], 0, ""
                    for rs in reps:
                        storm = [r for r in rs if r["phase"] == "storm" and r["role"] != "caller"]
                        if not storm or any(r["status"] != "ok" for r in storm):
                            why = why or next((r["skip_reason"] for r in rs if r["status"] != "ok"), "no storm rows")
                            continue
                        def total(role=None):
                            return sum(float(r["ipis_per_barrier"] or 0) for r in storm if role in (None, r["role"]))
                        sums.append((total(), total("self-spin"), total("idle")))
                        barriers += int(storm[0]["barriers"] or 0)
                    if not sums:
                        res.append(dict(smp=n, k=k, mechanism=m, status="skipped", skip_reason=why))
                        continue
                    tot, tot_ci = mean_ci([v[0] for v in sums])
                    res.append(dict(smp=n, k=k, mechanism=m, barriers=barriers,
                                    ipis_per_barrier_total=f"{tot:.3f}", ipis_per_barrier_total_ci95=tot_ci,
                                    ipis_per_barrier_self=f"{mean_ci([v[1] for v in sums])[0]:.3f}",
                                    ipis_per_barrier_idle=f"{mean_ci([v[2] for v in sums])[0]:.3f}",
                                    expected_v1=int(n) - 1, expected_v5=k, replicates=len(sums),
                                    status="ok"))
        name = "vmscale.csv"
    else:
        cols = list(COLUMNS["isolation"])
        iso = cpus(isolate)
        d = f"{out}/raw/smp4"
        reps = replicate_sets(f"{d}/iso*/disturb.csv").get("iso", [])
        dist = merge_replicates("disturb", reps) if reps else []
        if not dist:
            res.append(dict(mechanism="-", status="skipped", skip_reason="the isolation guest failed (see stderr)"))
        for r in dist:
            if r["phase"] != "storm":
                continue
            ok = r["status"] == "ok"
            res.append(dict(mechanism=r["mechanism"], cpu=r["cpu"], role=r["role"],
                            isolated="yes" if r["cpu"] and int(r["cpu"]) in iso else "no",
                            barriers=r["barriers"] if ok else "", ipis_per_barrier=r["ipis_per_barrier"] if ok else "",
                            ipis_per_barrier_ci95=r.get("ipis_per_barrier_ci95", "") if ok else "",
                            replicates=r.get("replicates", "") if ok else "",
                            status=r["status"], skip_reason=r["skip_reason"]))
        name = "isolation.csv"
    tmp = f"{out}/{name}.tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(res)
    os.replace(tmp, f"{out}/{name}")

    # run.json: what ran, and every guest's own mbbench envelope, which is
    # also each point folder's run.json, so that analysis/compare can read it.
    guests = []
    for path in sorted(glob.glob(f"{out}/raw/*/*/disturb.json")):
        try:
            with open(path) as f:
                guests.append(json.load(f))
            shutil.copyfile(path, os.path.join(os.path.dirname(path), "run.json"))
        except (OSError, ValueError):
            pass
    run = {"format_version": 1, "tool": "bench/vm", "experiment": what,
           "hostname": os.uname().nodename + " (QEMU guest)",
           "smp": [int(n) for n in smps] if what == "scale" else [4],
           "isolate": isolate if what == "isolation" else None,
           "accelerator_note": "QEMU under TCG unless run-vm's KVM probe succeeded; see run-vm's stderr",
           "kernel": {"name": kname, "bzimage": kernel},
           "points": guests}
    with open(f"{out}/run.json.tmp", "w") as f:
        json.dump(run, f, indent=1)
    os.replace(f"{out}/run.json.tmp", f"{out}/run.json")



# Columns ab.csv also carries, one per kernel, when a kernel's CSV has them
# (contend's serialization factor).
_AB_EXTRA = ("serialization_factor",)


def vm_ab(argv):
    out, name, kernels = argv[0], argv[1], argv[2:]
    table = name[:-len(".csv")]
    keys = KEYS[table]
    # The table's first measure (vmscale: IPIs per barrier; contend: the
    # aggregate rate; anatomy: the untraced ns per barrier).
    fig = next(c["name"] for c in TABLES[table]["columns"] if c["role"] == "measure")
    figs = [fig]
    table, order = {}, []
    for k in kernels:
        with open(os.path.join(out, k, name), newline="") as f:
            rd = csv.DictReader(f)
            figs += [c for c in _AB_EXTRA if c in (rd.fieldnames or []) and c not in figs]
            for r in rd:
                key = tuple(r.get(c, "") for c in keys)
                if key not in table:
                    table[key] = {}
                    order.append(key)
                for c in figs:
                    table[key][(c, k)] = r.get(c, "") or "" if r["status"] == "ok" else ""
    with open(os.path.join(out, "ab.csv.tmp"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(keys) + [f"{c}_{k}" for c in figs for k in kernels])
        for key in order:
            w.writerow(list(key) + [table[key].get((c, k), "") for c in figs for k in kernels])
    os.replace(os.path.join(out, "ab.csv.tmp"), os.path.join(out, "ab.csv"))



# ---------------------------------------------------------------------------
# plots/plot's check of a folder before it draws anything:
#
#   mbresults.py plot-check DIR TABLE:SCRIPT[,SCRIPT...] ...
#
# (SCRIPT: a file of plots/ beside analysis/)
# prints "title T" (the figures' title), then for each TABLE whose CSV is
# in DIR "names TABLE N1 N2 ..." (the first text key column of the measured
# rows, in file order), "extra TABLE W1 W2 ..." (what a figure needs beyond
# the CSV's rows: "+COL" for each optional column its scripts read as
# opt("COL") that the CSV has, then the table's own words, below) and, for
# disturb, "panels disturb ..." (the victim roles measured). A damaged
# folder is one line "error MSG" instead (plot exits 2 with it).
# The CSV is read as report and compare read it, and must also hold every
# column its figures' scripts read with column(), strcol() or using; a name
# that reaches gnuplot must be a plain name.
#
# The table's own words: distance the levels measured, in the order of
# the levels; register the other_threads counts measured; latency-histogram
# one MECH@T:P50:P99:MAX:SAMPLES per histogram (the percentiles as
# latency.csv takes them, nearest rank at the bucket's midpoint; the max the
# top of the highest bucket); rcu rw=READERS:WRITERS of its first measured
# row and the seed's published RCU figures as
# seed=NAME:READS_PER_S:WRITES_PER_S; disturb the grid's columns as col=ROLE
# (or ROLE/WHERE where a role ran both near and far) and, for each storm


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
    (the patched kernel: unfixed or fixed)."""
    arch, _, build = name.partition("-")
    return arch, build or "stock"


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
                             else "not observable (no TLB count)"),
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
        for build in ("stock", "unfixed", "fixed"):
            gs = [g for g in measured if _guest(g)[1] == build and not math.isnan(spin(g, m))]
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
                "there, 1 for a barrier). These do so on one architecture and not on the other: "
                + "; ".join(diffs) + ".", ""]
    if none:
        out += ["**Orders nothing there:** " + "; ".join(f"{m} on {name(g)}" for g, m in none)
                + ": it interrupted no CPU running a thread of the caller's process (at most 0.2 IPIs per "
                "barrier), so that thread's stores and loads are not ordered by it.", ""]
    lazy = {g: next((r.get("result") for r in probes.get(g, ("", []))[1] if r.get("probe") == "lazy-mm"), None)
            for g in guests}
    aff = [name(g) for g in guests if lazy[g] == "affected"]
    okg = [name(g) for g in guests if lazy[g] == "ok"]
    if aff:
        out += ["**The GLOBAL_EXPEDITED lazy-mm bug** (doctor's lazy-mm: a CPU that held the process's mm "
                "lazily gets no IPI): affected on " + ", ".join(aff)
                + ("; ok on " + ", ".join(okg) if okg else "") + ".", ""]
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
        return arch if build == "stock" and all(_guest(x)[1] == "stock" for x in guests) else f"{arch} ({build})"

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
    lines += ["", "TCG runs an arm64 guest on this host with the host's own ordering where it is stronger "
              "(x86 keeps loads and stores in order except a store before a later load): a litmus test in the "
              "guest can show the store buffering both allow, never the reorderings only arm64 allows.", ""]
    tmp = os.path.join(out, "semantics.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(lines))
    os.replace(tmp, os.path.join(out, "semantics.md"))
