# SPDX-License-Identifier: MIT
"""Shared reading of a results folder for results/report and results/compare.

A results folder is what bench/run-all (make bench) writes: one CSV per
experiment, run.json, topology.xml, commands.txt. These tools only read it.
"""
import csv
import json
import math
import os
import sys

EXPERIMENTS = ("calls", "latency", "disturb", "contend", "register", "rcu", "litmus")


class UsageError(Exception):
    """Bad input: reported on one line, exit status 2."""


def fail(prog, msg):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(2)


def load_folder(path):
    if not os.path.isdir(path):
        raise UsageError(f"{path} is not a directory (give a results folder from make bench)")
    if path.rstrip("/").endswith(".incomplete"):
        raise UsageError(f"{path} is an incomplete run (the sweep is running or was killed); use a finished folder")
    run_json = os.path.join(path, "run.json")
    csvs = [e for e in EXPERIMENTS if os.path.isfile(os.path.join(path, e + ".csv"))]
    if not os.path.isfile(run_json):
        if csvs:
            raise UsageError(f"{path} is incomplete: run.json is missing (re-run make bench)")
        raise UsageError(f"{path} is not a results folder (no run.json, no experiment CSV)")
    try:
        with open(run_json) as f:
            run = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"{run_json} cannot be read as JSON ({e}); the folder is damaged")
    data = {}
    for e in csvs:
        with open(os.path.join(path, e + ".csv"), newline="") as f:
            data[e] = list(csv.DictReader(f))
    hist = os.path.join(path, "latency-histogram.csv")
    if os.path.isfile(hist):
        with open(hist, newline="") as f:
            data["latency-histogram"] = list(csv.DictReader(f))
    return run, data


def host(run):
    try:
        return run["info"]["host"]
    except (KeyError, TypeError):
        return {}


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return math.nan
    return v


def ok_rows(rows):
    return [r for r in rows if r.get("status", "ok") == "ok"]


def fmt_ns(v):
    if v is None or math.isnan(v):
        return "-"
    if v >= 1e6:
        return f"{v / 1e6:.3g} ms"
    if v >= 1e3:
        return f"{v / 1e3:.3g} µs"
    return f"{v:.3g} ns"


def fmt_num(v):
    if v is None or math.isnan(v):
        return "-"
    if abs(v) >= 1e9:
        return f"{v / 1e9:.3g} G"
    if abs(v) >= 1e6:
        return f"{v / 1e6:.3g} M"
    if abs(v) >= 1e3:
        return f"{v / 1e3:.3g} k"
    return f"{v:.3g}"


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise UsageError(f"cannot write {path}: directory {d} does not exist")
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise UsageError(f"cannot write {path}: {e.strerror} (choose a writable destination)")
