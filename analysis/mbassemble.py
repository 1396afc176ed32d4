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



def assemble(folder, preset, planned, interrupted, seed=None, timing=None, aslr=None, replicates=1, facts=None):
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
    run.update(facts or {})	# the boot and the run's place in an A/B (finish.ab_facts)
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
