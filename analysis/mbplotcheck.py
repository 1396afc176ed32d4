# SPDX-License-Identifier: MIT
"""plots/plot's check of a results folder before it draws anything
(`mbtool.py plot-check`), and why a figure would show nothing on this
host (plot_why, which report also says)."""
import csv
import json
import math
import os
import re

from mbguard import EnvError, UsageError
from mbresults import COLUMNS, DATADIR, KEYS, LEVELS, read_csv, title


# ---------------------------------------------------------------------------
# plots/plot's check of a folder before it draws anything:
#
#   mbtool.py plot-check DIR TABLE:SCRIPT[,SCRIPT...] ...
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
# group, g=ROUND:ROLE@CPU=COLUMN.

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_GP_COLUMN = re.compile(r'\b(?:col|column|strcol)\("([A-Za-z0-9_]+)"\)|\busing\s+"([A-Za-z0-9_]+)"')
_GP_OPTIONAL = re.compile(r'\bopt(?:str)?\("([A-Za-z0-9_]+)"\)')
# The seed's RCU rows (results/seed-2010.csv) and their short names.
_SEED_RCU = (("rcu-mb", "mb"), ("rcu-signal", "signal"),
             ("rcu-memb-exp", "memb-exp"), ("rcu-memb-nonexp", "memb-nonexp"))


def _shown(v):
    v = "".join(c if " " <= c <= "~" else "?" for c in v)
    return v if len(v) <= 24 else v[:24] + "..."


def _percentile_ns(buckets, p):
    """Nearest-rank percentile P of [(lo, hi, count)], at the bucket's
    midpoint, as latency.csv takes it."""
    n = sum(c for _, _, c in buckets)
    rank, seen = max(1, math.ceil(p * n)), 0
    for lo, hi, c in buckets:
        seen += c
        if seen >= rank:
            return (lo + hi) / 2
    return buckets[-1][1]


def _seed_rcu():
    path = os.path.join(DATADIR, "results", "seed-2010.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            seed = {r["id"]: r for r in csv.DictReader(f)}
    except OSError:
        return []
    out = []
    for key, name in _SEED_RCU:
        try:
            # The seed ran each scheme for 10 s (its figure's text).
            r, w = float(seed[f"{key}-reads"]["value"]) / 10, float(seed[f"{key}-writes"]["value"]) / 10
        except (KeyError, ValueError):
            continue
        out.append(f"seed={name}:{r:.6g}:{w:.6g}")
    return out


_ANATOMY_BAR = ("setup", "delivery", "handler", "wait", "to-ipi", "after-ipi")


def _anatomy_bars(folder, rows):
    """anatomy.gp's bars: per (mechanism, T), the phase medians over every
    target and the untraced median of a barrier that sends (from
    anatomy.csv beside, when there) and the 95% CI half-width of the traced
    total's median: bar=MECH@T:NS:...:NS, "-" for none."""
    untraced = {}
    path = os.path.join(folder, "anatomy.csv")
    if os.path.isfile(path):
        for r in read_csv(path, "anatomy"):
            v = r.get("untraced_sent_p50_ns") or r.get("untraced_p50_ns") or ""
            if r.get("status") == "ok" and _finite(v):
                untraced[(r["mechanism"], r["threads"])] = v
    p50, tci = {}, {}
    for r in rows:
        if r.get("target_cpu") == "all" and r.get("phase") in _ANATOMY_BAR and _finite(r.get("p50_ns", "")):
            p50.setdefault((r["mechanism"], r["threads"]), {})[r["phase"]] = f"{float(r['p50_ns']):.6g}"
        if r.get("target_cpu") == "all" and r.get("phase") == "total" and _finite(r.get("p50_ns_ci95", "")):
            tci[(r["mechanism"], r["threads"])] = f"{float(r['p50_ns_ci95']):.6g}"
    # ...:UNTRACED:TOTAL_CI95 (the traced total's median, its CI half-width)
    return [f"bar={m}@{t}:" + ":".join(ph.get(k, "-") for k in _ANATOMY_BAR) + ":" + untraced.get((m, t), "-")
            + ":" + tci.get((m, t), "-") for (m, t), ph in p50.items()]


def _finite(v):
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def _plot_extra(table, rows, folder=""):
    """The table's own words of its "extra" line (see above)."""
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    if table == "anatomy-phases":
        return _anatomy_bars(folder, rows)
    if table == "distance":
        return [lv for lv in LEVELS if any(r["level"] == lv for r in ok)]
    if table == "register":
        return [str(n) for n in sorted({int(r["other_threads"]) for r in ok})]
    if table == "latency-histogram":
        hists = {}
        for r in ok:
            k = f"{r['mechanism']}@{r.get('threads') or 0}"
            hists.setdefault(k, []).append((int(r["bucket_lo_ns"]), int(r["bucket_hi_ns"]), int(r["count"])))
        out = []
        for k, b in hists.items():
            b.sort()
            if not sum(c for _, _, c in b):
                continue
            out.append(f"{k}:{_percentile_ns(b, 0.5):.12g}:{_percentile_ns(b, 0.99):.12g}:{b[-1][1]}:"
                       f"{sum(c for _, _, c in b)}")
        return out
    if table == "rcu":
        return [f"rw={r['readers']}:{r['writers']}" for r in ok[:1]] + _seed_rcu()
    if table == "disturb":
        storm = [r for r in ok if r["phase"] == "storm" and r["role"] != "caller"]
        wheres, cpus = {}, {}
        for r in storm:
            wheres.setdefault(r["role"], set()).add(r.get("where", ""))
            cpus.setdefault(r["role"], set()).add(r["cpu"])
        cols, groups = [], []
        for r in storm:
            if len(wheres[r["role"]]) > 1:
                c = f"{r['role']}/{r['where']}"
            elif len(cpus[r["role"]]) > 1:
                c = f"{r['role']}@{r['cpu']}"
            else:
                c = r["role"]
            if c not in cols:
                cols.append(c)
            g = f"g={r['round']}:{r['role']}@{r['cpu']}={cols.index(c) + 1}"
            if g not in groups:
                groups.append(g)
        return [f"col={c}" for c in cols] + groups
    return []


def _plot_table(folder, table, scripts):
    path = os.path.join(folder, table + ".csv")
    rows = read_csv(path, table)
    with open(path, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f), [])
    optional = []
    for script in scripts:
        with open(os.path.join(DATADIR, "plots", script), encoding="utf-8") as f:
            text = f.read()
        for m in _GP_COLUMN.finditer(text):
            col = m.group(1) or m.group(2)
            if col not in header:
                raise UsageError(f"{path}: column {col} is missing; the folder is damaged or from another tool")
        optional += [c for c in _GP_OPTIONAL.findall(text) if c in header and c not in optional]
    namecol = next(c for c in KEYS[table] if COLUMNS[table][c]["type"] == "text")
    names, panels = [], []
    for n, r in enumerate(rows, 2):
        for c, v in r.items():
            if _CONTROL.search(v):
                raise UsageError(f"{path}:{n}: a control character in {c}; the folder is damaged")
        if not _NAME.fullmatch(r[namecol]):
            raise UsageError(f"{path}:{n}: {namecol} '{_shown(r[namecol])}' is not a name "
                             "(letters, digits and . _ + -)")
        ok = r.get("status", "ok") == "ok"	# latency-histogram.csv: every row is measured
        if ok and r[namecol] not in names:
            names.append(r[namecol])
        if table == "disturb":
            for c in ("role", "where"):
                if r.get(c) and not _NAME.fullmatch(r[c]):
                    raise UsageError(f"{path}:{n}: {c} '{_shown(r[c])}' is not a name")
            if r["role"] in ("foreign-rt", "foreign-sleep") and ok and r["role"] not in panels:
                panels.append(r["role"])
    out = [f"names {table} " + " ".join(names),
           f"extra {table} " + " ".join([f"+{c}" for c in optional] + _plot_extra(table, rows, folder))]
    if table == "disturb":
        out += [f"panels {table} " + " ".join(panels)]
    why = plot_why(table, rows)
    if why:
        out += [f"why {table} {why}"]
    return out


def plot_why(table, rows):
    """Why a figure would show nothing on this host, in place of it: contend
    with no point past C=1 that has a CPU for each thread, distance with a
    single level measured. "" to draw it."""
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    if table == "contend" and ok:
        cs = {int(r["callers"]) for r in ok if r.get("oversubscribed") != "1"}
        if len(cs) <= 1:
            return ("every point past C=1 has more threads than this host's CPUs (the scheduler's time-sharing, "
                    "not contention): C=1 alone is in report.md and contend.csv")
    if table == "distance" and ok:
        lv = {r["level"] for r in ok}
        if len(lv) == 1:
            return (f"this host has one IPI distance ({lv.pop()}): one point per mechanism, in report.md and "
                    "distance.csv")
    return ""


def plot_check(argv):
    folder, specs = argv[0], argv[1:]
    try:
        p = os.path.join(folder, "run.json")
        try:
            with open(p, encoding="utf-8") as f:
                run = json.load(f)
        except (OSError, ValueError, RecursionError) as e:
            raise UsageError(f"{p} cannot be read as JSON ({str(e).splitlines()[0][:120]}); the folder is damaged")
        if not isinstance(run, dict) or not isinstance(run.get("info", {}), dict) \
                or not isinstance(run.get("points", []), list):
            raise UsageError(f"{p} is not a results folder's run.json (an object with info and points)")
        try:
            t = title(folder)
        except Exception:  # noqa: BLE001 - a title is never worth a failed figure
            t = "host ?"
        out = ["title " + " ".join(t.split()).replace(" )", ")")]
        for spec in specs:
            table, _, scripts = spec.partition(":")
            if os.path.lexists(os.path.join(folder, table + ".csv")):
                out += _plot_table(folder, table, scripts.split(","))
    except (UsageError, EnvError) as e:
        out = ["error " + " ".join(str(e).split())]
    print("\n".join(out))
    return 0

