# SPDX-License-Identifier: MIT
"""Reading a results folder for analysis/report, compare and advise: the
result schema (results/schema.json) and what it says of each table, and
run.json and the CSVs checked against it (SCHEMA.md) before anything reads
them: a damaged or foreign folder is one line naming the file and the
damage (UsageError, mbguard.py).

The bottom of analysis/: it imports no module of analysis/ but mbguard and
mbpaths; the data tools' entry point for plots/plot and bench/vm is
mbtool.py, above it.
"""
import csv
import json
import math
import os
import re
import sys

# The other modules of the analysis are beside this file (python3 -I, as
# plots/plot runs it, leaves that off the path). Nothing is written into
# the install tree: no bytecode cache of them.
sys.dont_write_bytecode = True
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from mbguard import EnvError, UsageError, read_fault  # noqa: E402
from mbpaths import path_too_long  # noqa: E402


# The result schema: every table's columns with their role, type, unit,
# direction and CI pairing, as `mbbench schema` prints them from the column
# arrays in bench/exp-*.c (results/schema.json, installed with the data).
# Nothing here restates a column.
DATADIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_PATH = os.path.join(DATADIR, "results", "schema.json")


def _load_schema():
    prog = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "")
    prog = prog[len("mbbench-"):] if prog.startswith("mbbench-") else "mbbench"
    try:
        with open(SCHEMA_PATH, encoding="utf-8") as f:
            schema = json.load(f)
        tables = schema["tables"]
        for t in tables:
            for k in ("name", "key", "analysed", "control", "columns"):
                if k not in t:
                    raise KeyError(k)
            for c in t["columns"]:
                for k in ("name", "type", "role", "better", "test", "of", "ci", "min", "required", "setting"):
                    if k not in c:
                        raise KeyError(k)
    except OSError as e:
        print(f"{prog}: the result schema is missing: cannot read {SCHEMA_PATH} ({e.strerror}; "
              "reinstall membarrier-bench)", file=sys.stderr)
        sys.exit(1)
    except (ValueError, KeyError, TypeError) as e:
        print(f"{prog}: {SCHEMA_PATH} is damaged ({str(e)[:80]}; reinstall membarrier-bench)", file=sys.stderr)
        sys.exit(1)
    return tables


TABLES = {t["name"]: t for t in _load_schema()}
# The tables of a results folder that report and compare read, in order.
EXPERIMENTS = tuple(name for name, t in TABLES.items() if t["analysed"])
# Each table's columns by name.
COLUMNS = {name: {c["name"]: c for c in t["columns"]} for name, t in TABLES.items()}
# What names a point: one row per key in a run; compare matches two runs by it.
KEYS = {name: tuple(t["key"]) for name, t in TABLES.items()}
# Columns the readers rely on: a folder without one is refused with one
# line naming the file instead of a traceback.
REQUIRED = {name: tuple(c["name"] for c in t["columns"] if c["required"]) for name, t in TABLES.items()}


def ci_column(table, col, kind="half-width"):
    """The column holding the 95% CI half-width (or the interval's "lower"
    or "upper" end) of measure col of table, or None."""
    return next((c["name"] for c in TABLES[table]["columns"]
                 if c["role"] == "ci" and c["of"] == col and c["ci"] == kind), None)


def figures(table):
    """The measures of table that compare tests and report's Precision
    lists: (column, test, better), in the table's order."""
    return [(c["name"], c["test"], c["better"]) for c in TABLES[table]["columns"]
            if c["role"] == "measure" and c["test"]]


def is_control(table, row):
    """Whether row is one of table's controls, whose measures are neither
    better nor worse."""
    ctl = TABLES[table].get("control")
    return bool(ctl) and row.get(ctl["column"]) == ctl["value"]


# A number is at least its column's least value (0, or 1 for a count of
# threads or repeats); only a signed column (a count per barrier: the
# storm's less the baseline's) may be negative; none exceeds 2^64 (the
# largest counter the suite keeps), so no arithmetic on them overflows.
STATUSES = ("ok", "degraded", "skipped", "failed")
BIGGEST = 2.0 ** 64
_NUM = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", re.ASCII)
_INT = re.compile(r"-?[0-9]+", re.ASCII)
FORMAT_VERSION = 1


_PCT = re.compile(r"p([0-9]+)_ns", re.ASCII)


def pct_level(col):
    """The quantile a percentile column holds (p99_ns: 0.99, p999_ns:
    0.999), or None."""
    m = _PCT.fullmatch(col)
    return int(m.group(1)) / 10 ** len(m.group(1)) if m else None


def reaches(row, col):
    """Whether each batch behind a row's percentile column held at least one
    sample beyond it, so that the batches' spread says something about it
    (60 samples a batch give a p99 that is each batch's max). For replicates
    merged by compare (_merged) the batch is a whole run."""
    q = pct_level(col)
    s, n = num(row.get("samples", "nan")), num(row.get("repeats", "nan"))
    if q is None or math.isnan(s) or math.isnan(n) or n < 1:
        return True
    per = s if row.get("_merged") else s / n
    return per * (1 - q) >= 1


def pct_percent(col):
    """A percentile column's level as lib/stats.c writes it (p999_ns: 99.9)."""
    d = _PCT.fullmatch(col).group(1)
    return float(d[:2] + "." + d[2:]) if len(d) > 2 else float(d)


# IPI distances from the caller's CPU, nearest first (distance's levels).
LEVELS = ("smt", "core", "l3", "numa", "package")


# A proportion: a measure that counts events over trials, the columns of
# its events and trials, and its scale (litmus: per million trials). The
# schema says so only in words ("`r1_0_r2_0` per million trials"). Its
# interval is Wilson's, where both counts are known.
PROPORTIONS = {("litmus", "forbidden_per_million"): ("r1_0_r2_0", "trials", 1e6)}


def bounds(table, col):
    """The least and the greatest value col of table can hold: the schema's
    min (None: signed) and, for a proportion, its scale (None: no bound)."""
    c = COLUMNS.get(table, {}).get(col) or {}
    p = PROPORTIONS.get((table, col))
    return c.get("min"), p[2] if p else None


def ends_columns(table, col):
    """The columns holding the ends of col's 95% interval: the schema's
    lower and upper columns where the table has them (litmus's
    ..._lo95/_hi95), else the merge's COL_ci95_lo and COL_ci95_hi."""
    lo, hi = ci_column(table, col, "lower"), ci_column(table, col, "upper")
    if lo and hi:
        return lo, hi
    return f"{col}_ci95_lo", f"{col}_ci95_hi"


def per_process_columns(table):
    """The measures of table whose processes' values a merged row keeps
    (COL_per_process): each measure with a CI column."""
    if table not in TABLES:
        return []
    return [c["name"] for c in TABLES[table]["columns"] if c["role"] == "measure"
            and any(ci_column(table, c["name"], k) for k in ("half-width", "lower", "upper"))]


def per_process(row, col):
    """The values of col in each process a merged row comes from (its
    COL_per_process cell), in replicate order; [] where it has none."""
    return [v for v in (num(x) for x in (row.get(f"{col}_per_process") or "").split(";") if x != "")
            if not math.isnan(v)]


def _json_number(s, conv):
    try:
        v = conv(s)
    except ValueError:
        v = math.inf
    if not abs(v) <= BIGGEST:
        raise ValueError(f"number {s[:24]} is out of range")
    return v


def _json_constant(s):
    raise ValueError(f"{s} is not a number JSON allows")


def read_json(path):
    """A JSON file, or UsageError naming it; numbers finite and at most 2^64."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_int=lambda s: _json_number(s, int),
                             parse_float=lambda s: _json_number(s, float), parse_constant=_json_constant)
    except OSError as e:
        raise read_fault(path, e)
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to be a run.json; the folder is damaged")
    except ValueError as e:	# also UnicodeDecodeError
        raise UsageError(f"{path} cannot be read as JSON ({str(e)[:120]}); the folder is damaged")


def _is(v, kinds):
    if bool in kinds:
        return isinstance(v, bool)
    return isinstance(v, kinds) and not isinstance(v, bool)


SCALAR = (str, int, float, bool, type(None))
# run.json's keys, each with the types it may hold (SCHEMA.md, "A results
# folder"); a key that is absent is not checked. A vm folder's run.json and
# a point folder's (an experiment's JSON envelope) use some of them.
RUN_KEYS = {
    "tool": (str,), "preset": (str, type(None)), "interrupted": (bool,), "points_planned": (int,),
    "points_done": (int,), "points_failed": (list,), "order_seed": (int, type(None)), "run_order": (list,),
    "aslr": (str, type(None)), "budget_s": (int, float, type(None)), "predicted_s": (int, float, type(None)),
    "measured_s": (int, float, type(None)), "info": (dict,), "points": (list,), "host": (dict,),
    "host_sources": (dict,), "hostname": (str,), "experiment": (str,), "version": (str,),
    "end": (str,), "derived": (dict,), "notes": (list,), "load": (list,), "boot_id": (str, type(None)),
    "ab": (dict,),
}


def _check_envelope(path, where, obj):
    """The keys report and compare read from run.json or one of its envelopes."""
    for k, kinds in RUN_KEYS.items():
        if k not in obj:
            continue
        v = obj[k]
        if not any(_is(v, (t,)) for t in kinds):
            names = " or ".join("null" if t is type(None) else {"str": "a string", "int": "a whole number",
                                "float": "a number", "bool": "true or false", "list": "an array",
                                "dict": "an object"}[t.__name__] for t in kinds)
            raise UsageError(f"{path}: {where}{k} is {json.dumps(v)[:40]}, not {names}; the folder is damaged")
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
            raise UsageError(f"{path}: {where}{k} is {v}, below 0; the folder is damaged")
    for k in ("host", "host_sources", "derived"):
        for name, v in (obj.get(k) or {}).items():
            if not isinstance(v, SCALAR):
                raise UsageError(f"{path}: {where}{k}.{name} is {json.dumps(v)[:40]}, not a string or number; "
                                 "the folder is damaged")
    for n in obj.get("notes") or []:
        if not isinstance(n, str):
            raise UsageError(f"{path}: {where}notes holds {json.dumps(n)[:40]}, not a string; the folder is damaged")
    for n in obj.get("load") or []:
        if not isinstance(n, dict) or any(not isinstance(v, SCALAR) or (
                isinstance(v, (int, float)) and not isinstance(v, bool) and not 0 <= v <= BIGGEST)
                for v in n.values()):
            raise UsageError(f"{path}: {where}load holds {json.dumps(n)[:40]}, not a point's load; "
                             "the folder is damaged")


def validate_run(path, run):
    """run.json against the schema, before anything reads it."""
    if not isinstance(run, dict):
        raise UsageError(f"{path} is not a results folder's run.json (an object with info and points)")
    if "format_version" not in run:
        raise UsageError(f"{path} has no format_version: not a results folder's run.json")
    fv = run["format_version"]
    if not _is(fv, (int,)) or fv != FORMAT_VERSION:
        raise UsageError(f"{path}: format_version {json.dumps(fv)[:20]} is not supported (this mbbench reads "
                         f"{FORMAT_VERSION}; use the mbbench that wrote the folder)")
    for k in ("tool", "points"):
        if k not in run:
            raise UsageError(f"{path} has no {k}: not a results folder's run.json")
    _check_envelope(path, "", run)
    if isinstance(run.get("info"), dict):
        _check_envelope(path, "info.", run["info"])
    for i, p in enumerate(run["points"]):
        if not isinstance(p, dict):
            raise UsageError(f"{path}: points[{i}] is {json.dumps(p)[:40]}, not an object; the folder is damaged")
        _check_envelope(path, f"points[{i}].", p)



def check_folder(path):
    """A results folder given on the command line: UsageError naming the
    fix unless it is an existing directory."""
    if path == "":
        raise UsageError("the results folder is '' (empty): give the path of a results folder, "
                         "e.g. one under results/runs/ from mbbench sweep")
    why = path_too_long(path)
    if why:
        raise UsageError(f"{path[:60]}...: too long a path, {why}: give a shorter one "
                         "(move the folder, or link to it from a shorter path)")
    if os.path.isfile(path):
        parent = os.path.dirname(path) or "."
        hint = parent if os.path.isfile(os.path.join(parent, "run.json")) else "a folder from mbbench sweep"
        raise UsageError(f"{path} is a file, not a results folder: give the folder itself ({hint})")
    if not os.path.lexists(path):
        raise UsageError(f"{path} does not exist (give a results folder from mbbench sweep, "
                         "e.g. one under results/runs/)")
    if not os.path.isdir(path):
        raise UsageError(f"{path} is not a directory (give a results folder from mbbench sweep)")


def load_folder(path):
    check_folder(path)
    if path.rstrip("/").endswith(".incomplete"):
        raise UsageError(f"{path} is an incomplete run (the sweep is running or was killed); use a finished folder")
    run_json = os.path.join(path, "run.json")
    present = [e for e in EXPERIMENTS if os.path.lexists(os.path.join(path, e + ".csv"))]
    for f in ["run.json"] + [e + ".csv" for e in present]:
        p = os.path.join(path, f)
        if os.path.lexists(p) and not os.path.isfile(p):
            raise UsageError(f"{p} is not a regular file; the folder is damaged")
    if not os.path.lexists(run_json):
        if present:
            raise UsageError(f"{path} is incomplete: run.json is missing (re-run make bench)")
        raise UsageError(f"{path} is not a results folder (no run.json, no experiment CSV)")
    run = read_json(run_json)
    validate_run(run_json, run)
    data = {}
    for e in present:
        data[e] = read_csv(os.path.join(path, e + ".csv"), e)
    return run, data


def check_cell(path, n, table, col, v):
    """One CSV cell against its column in the schema; UsageError naming it.
    A column the schema does not know is not checked."""
    if v == "":
        return
    if col == "status":
        if v not in STATUSES:
            raise UsageError(f"{path}:{n}: status is '{v[:20]}', not {', '.join(STATUSES)}")
        return
    c = COLUMNS.get(table, {}).get(col)
    if c is None:
        return
    if c["type"] == "text":
        # A text column with declared values: one outside them is another
        # column's (two headers swapped), which would reach the figures.
        vals = c.get("values")
        if vals and v not in vals and not ("N" in vals and v.isdigit() and v.isascii()):
            shown = ", ".join(x if x != "N" else "a CPU number" for x in vals)
            raise UsageError(f"{path}:{n}: {col} is '{v[:24]}', not one of {shown} "
                             "(a column's values under another's name?); the folder is damaged")
        return
    least = c["min"]
    if c["type"] == "integer":
        if len(v) > 24 or not _INT.fullmatch(v) or not abs(int(v)) <= BIGGEST:
            raise UsageError(f"{path}:{n}: {col} is '{v[:20]}', not a whole number")
        if least is not None and int(v) < least:
            raise UsageError(f"{path}:{n}: {col} is {v}, below {least}")
        return
    if not _NUM.fullmatch(v) or not abs(float(v)) <= BIGGEST:
        raise UsageError(f"{path}:{n}: {col} is '{v[:20]}', not a number of at most 2^64")
    if least is not None and float(v) < least:
        raise UsageError(f"{path}:{n}: {col} is {v}, below {least}")


# A results folder's CSV is kilobytes (a full sweep on a large host, a few
# MB): one past this is not a sweep's, and reading it would take minutes
# with nothing said. Above BIG_CSV each read says so on stderr first.
MAX_CSV = 64 << 20
BIG_CSV = 8 << 20


def _merged_base(col):
    """The schema's column a merge of replicates derived col from
    (X_per_process, X_ci95_lo, X_ci95_hi: X; X_ci95_within: X_ci95)."""
    for suffix, keep in (("_per_process", ""), ("_ci95_lo", ""), ("_ci95_hi", ""), ("_within", "")):
        if col.endswith(suffix):
            return col[:-len(suffix)] + keep
    return col


def holds_other(table, header):
    """The other table whose CSV this header is (it has every required
    column of that table, columns of no other, and is not table's), or
    None: a table under another's name."""
    cols = {_merged_base(c) for c in header} - {"replicates", "processes_degraded"}
    if not cols or (REQUIRED.get(table) and set(REQUIRED[table]) <= cols and cols <= set(COLUMNS.get(table, cols))):
        return None
    for name in TABLES:
        if name != table and REQUIRED.get(name) and set(REQUIRED[name]) <= cols <= set(COLUMNS[name]):
            return name
    return None


def read_csv(path, table):
    """Rows of table's CSV, or UsageError naming the file and the damage."""
    try:
        size = os.stat(path).st_size
    except OSError as e:
        raise read_fault(path, e)
    if size > MAX_CSV:
        raise UsageError(f"{path} is {size >> 20} MB; a results folder's CSV is at most {MAX_CSV >> 20} MB "
                         "(give a folder from mbbench sweep: this one is damaged or not a sweep's)")
    prog = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "mbbench")
    if size > BIG_CSV and not prog.endswith(".py"):	# plot-check's stderr is its answer
        prog = prog[len("mbbench-"):] if prog.startswith("mbbench-") else prog
        print(f"# {prog}: reading {path} ({size >> 20} MB; about {max(1, size >> 22)} s)",
              file=sys.stderr, flush=True)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f, strict=True)
            rows = list(reader)
            header = reader.fieldnames or []
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not UTF-8 text (byte {e.start}); the folder is damaged")
    except OSError as e:
        raise read_fault(path, e)
    except csv.Error as e:
        raise UsageError(f"{path} cannot be read as CSV ({e}); the folder is damaged")
    other = holds_other(table, header)
    if other:
        raise UsageError(f"{path} holds the {other} table, not {table} (its columns are {other}.csv's); "
                         "the folder is damaged")
    missing = [c for c in REQUIRED.get(table, ()) if c not in header]
    if missing:
        raise UsageError(f"{path}: column {missing[0]} is missing; the folder is damaged or from another tool")
    dup = next((c for c in header if header.count(c) > 1), None)
    if dup is not None:
        raise UsageError(f"{path}: column {dup} appears twice; the folder is damaged")
    for n, r in enumerate(rows, 2):
        if None in r or any(v is None for v in r.values()):
            raise UsageError(f"{path}:{n}: {'more' if None in r else 'fewer'} cells than the header")
        for c, v in r.items():
            check_cell(path, n, table, c, v)
    return rows


# CPUID's padding in a fact recorded before it was trimmed (bhyve signs
# "bhyve bhyve "): a space at the end, or before a closing quote or bracket.
_PADDING = re.compile(r"\s+$|\s+(?=['\"](?:\s|$|\)))|\s+(?=[)\]])")


def host(run):
    """The host facts of a sweep's run.json, or of the first point that has
    them (a vm folder's run.json holds the guests' envelopes), without the
    padding an older folder recorded."""
    if not isinstance(run, dict):
        return {}
    info = run.get("info")
    found = {}
    if isinstance(info, dict) and isinstance(info.get("host"), dict):
        found = info["host"]
    else:
        points = run.get("points")
        found = next((p["host"] for p in (points if isinstance(points, list) else [])
                      if isinstance(p, dict) and isinstance(p.get("host"), dict)), {})
    return {k: _PADDING.sub("", v) if isinstance(v, str) else v for k, v in found.items()}


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return math.nan
    return v


def ok_rows(rows):
    return [r for r in rows if r.get("status", "ok") == "ok"]


def title(folder):
    """The figures' title: host, kernel, preset, virtualization and date,
    from the folder's run.json (a sweep's or a vm run's)."""
    try:
        run = read_json(os.path.join(folder, "run.json"))
        validate_run("run.json", run)
    except (UsageError, EnvError):
        run = {}
    points = [p for p in run.get("points", []) if isinstance(p, dict)]
    h = host(run)
    name = run.get("hostname") or h.get("hostname") or "host"
    preset = run.get("preset") or (f"vm {run['experiment']}" if run.get("experiment") else "?")
    # the latest end: the points are listed in the planned order
    end = max((p["end"] for p in points if isinstance(p.get("end"), str)), default=None) \
        or run.get("info", {}).get("end") or "?"
    virt = h.get("virtualization") or "?"
    return f"{name}, kernel {h.get('kernel_release', '?')}, {preset} preset, {virt}, {end}"


def tlb_cause(h):
    """Why a TLB shootdown interrupts no running CPU here, as the host facts
    saw it (remote_tlb_flush: a broadcast of the CPU or the architecture, or
    a hypervisor's flush hypercall; bench/host/guestfacts.c), or None where
    they saw no such cause: then it is not identified, never guessed."""
    fact = (h or {}).get("remote_tlb_flush")
    fact = " ".join(fact.split()) if isinstance(fact, str) else ""
    return fact if fact.startswith(("broadcast", "by hypercall")) else None
