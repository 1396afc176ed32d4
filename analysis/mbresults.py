# SPDX-License-Identifier: MIT
"""Shared reading of a results folder for analysis/report and analysis/compare.

A results folder is what bench/sweep (make bench) writes: one CSV per
experiment, run.json, topology.xml, commands.txt. These tools only read it,
and check it against SCHEMA.md before they do: a damaged or foreign folder
is one line naming the file and the damage (exit 2), a fault of the machine
(no file descriptors, a full or read-only disk, an I/O error) one line and
exit 1, ^C or SIGTERM one line and 128 + the signal. guard() runs a tool's
main under those rules; MBBENCH_DEBUG=1 shows the traceback of what it
did not foresee.
"""
import csv
import errno
import glob
import io
import json
import math
import os
import re
import shutil
import signal
import stat
import sys

if __name__ == "__main__":	# run as a script (plot-check, vm-aggregate): mbstats imports it by name
    sys.modules.setdefault("mbresults", sys.modules[__name__])

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


class UsageError(Exception):
    """Bad input (arguments, a damaged or foreign folder): one line, exit 2."""


class EnvError(Exception):
    """A fault of the machine, not of the input: one line, exit 1."""


SCIPY_MISSING = "python3-scipy not found: apt-get install python3-scipy"
_scipy = []	# (numpy, scipy.stats) once imported, or the reason they cannot be


def _load_scipy():
    import numpy
    import scipy.stats
    return numpy, scipy.stats


def _import_scipy():
    """numpy and scipy.stats, imported once for every tool, or why they
    cannot be. The tools run python3 -S, which leaves the system's
    site-packages (python3-scipy's) off the path: they are added where
    scipy is not found without them."""
    try:
        try:
            return _load_scipy()
        except ImportError:
            import site	# under -S, importing site adds nothing by itself
            sys.path += [d for d in site.getsitepackages() if os.path.isdir(d) and d not in sys.path]
            return _load_scipy()
    except ImportError as e:
        if isinstance(e, ModuleNotFoundError) and (e.name or "").split(".")[0] in ("numpy", "scipy"):
            return SCIPY_MISSING
        return f"cannot load python3-scipy ({str(e)[:120]})"
    except OSError as e:	# e.g. no file descriptor left for a shared library
        return f"cannot load python3-scipy: {e.strerror or e}"


def scipy_stats():
    """scipy.stats, or EnvError naming the package to install (exit 1)."""
    if not _scipy:
        # Signals wait until the import is done: one arriving inside it
        # can land in code scipy generates and prints on an error.
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
            _scipy.append(_import_scipy())
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    if isinstance(_scipy[0], str):
        # A signal raised inside numpy's import reads as a failed import:
        # it is the signal.
        check_interrupted()
        raise EnvError(_scipy[0])
    return _scipy[0][1]


def numpy_module():
    scipy_stats()
    return _scipy[0][0]


# The statistics (scipy's, chosen per quantity) are in mbstats.py, beside
# this file (python3 -I, as plots/plot runs it, leaves that off the path).
# Nothing is written into the install tree: no bytecode cache of it.
sys.dont_write_bytecode = True
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from mbstats import hist_percentile, mean_interval, mean_sd, percentile_interval, wilson  # noqa: E402


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived: what was being written is removed."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


# Faults of the machine: a read that fails with one of these is not the
# folder's fault.
ENV_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EIO, errno.ENOBUFS, errno.EAGAIN}


def read_fault(path, e):
    """The exception for an OSError reading a folder's file: the machine's
    fault (exit 1) or the folder's (exit 2)."""
    if e.errno in ENV_ERRNOS:
        return EnvError(f"cannot read {path}: {e.strerror}")
    return UsageError(f"cannot read {path}: {e.strerror}; the folder is damaged or unreadable")


def die(prog, msg):
    """Bad input or a missing prerequisite: one line, exit 2 (die in
    bench/common.sh and lib/util.h; UsageError raised through guard)."""
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(2)


def fail(prog, msg):
    """Something that should have worked failed: one line, exit 1 (fail in
    bench/common.sh and lib/util.h; EnvError raised through guard)."""
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(1)


SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_caught = []	# the signal that arrived, also where its exception was lost


def _on_signal(signum, frame):
    for s in SIGNALS:
        signal.signal(s, signal.SIG_IGN)	# the cleanup runs once, uninterrupted
    _caught.append(signum)
    raise Interrupted(signum)


def _unraisable(u):
    """An Interrupted raised where Python cannot pass it on (a callback) is
    seen again by check_interrupted() before anything is written."""
    if not isinstance(u.exc_value, Interrupted):
        sys.__unraisablehook__(u)


def check_interrupted():
    if _caught:
        raise Interrupted(_caught[0])


def _quiet_stdout():
    """After stdout failed: nothing more goes there, so Python's own flush
    at exit neither fails again nor changes the exit status."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    except OSError:
        pass


def write_stdout(text):
    """Write text to stdout and flush it; a failure is one line, exit 1."""
    check_interrupted()
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as e:
        _quiet_stdout()
        raise EnvError(f"cannot write to standard output: {e.strerror}")


def guard(prog, main, argv, what="nothing was written"):
    """Run main(argv) under the rules above and return the exit status;
    what says what a signal leaves behind. The tool blocks SIGINT, SIGTERM
    and SIGHUP from its start; they are unblocked here, with handlers that
    remove what was being written."""
    for s in SIGNALS:
        if signal.getsignal(s) != signal.SIG_IGN:	# one the caller ignores stays ignored
            signal.signal(s, _on_signal)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)	# a closed pipe ends us, as any filter
    sys.unraisablehook = _unraisable
    debug = os.environ.get("MBBENCH_DEBUG", "") not in ("", "0")
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
        rc = main(argv)
        check_interrupted()
        return rc
    except UsageError as e:
        msg, rc = str(e), 2
    except EnvError as e:
        msg, rc = str(e), 1
    except Interrupted as e:
        msg, rc = f"interrupted by {signal.Signals(e.signum).name}; {what}", 128 + e.signum
    except MemoryError:
        msg, rc = "out of memory", 1
    except OSError as e:
        if debug:
            raise
        where = f"{e.filename}: " if e.filename else ""
        msg, rc = f"{where}{e.strerror or e}", 1
    except RecursionError:
        if debug:
            raise
        msg, rc = "the input is nested too deeply (a damaged folder?)", 2
    except Exception as e:  # noqa: BLE001 - the last guard: one line, not a traceback
        if debug:
            raise
        msg, rc = (f"internal error: {type(e).__name__}: {str(e)[:200]} (please report it; "
                   "MBBENCH_DEBUG=1 shows where)"), 1
    try:
        print(f"{prog}: {msg}", file=sys.stderr)
    except OSError:
        pass
    return rc


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
    "end": (str,), "derived": (dict,), "notes": (list,), "load": (list,),
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


def path_too_long(path, room=0, last_room=0):
    """Why path cannot be a name on this system (a name over NAME_MAX, the
    last less last_room, the whole over PATH_MAX less room), or None."""
    names = [len(os.fsencode(n)) for n in path.split("/")]
    longest = max(names, default=0)
    if longest > 255:
        return f"a name in it is {longest} characters long (at most 255)"
    if names and names[-1] + last_room > 255:
        return f"its last name is {names[-1]} characters long (at most {255 - last_room} here)"
    if len(os.fsencode(os.path.abspath(path))) + room > 4095:
        return f"it is {len(os.fsencode(os.path.abspath(path)))} characters long (at most {4095 - room})"
    return None


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
    if c is None or c["type"] == "text":
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


def host(run):
    """The host facts of a sweep's run.json, or of the first point that has
    them (a vm folder's run.json holds the guests' envelopes)."""
    if not isinstance(run, dict):
        return {}
    info = run.get("info")
    if isinstance(info, dict) and isinstance(info.get("host"), dict):
        return info["host"]
    points = run.get("points")
    for p in points if isinstance(points, list) else []:
        if isinstance(p, dict) and isinstance(p.get("host"), dict):
            return p["host"]
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


# Honest digits: a figure is printed to the decimal place its 95% CI
# supports (the CI with two significant digits when they start with 1 or 2,
# else one), and with no CI at all from fewer than MIN_CI_SAMPLES repeats
# (two significant digits and n instead). Every table of report that prints
# a CI goes through fmt_ci.
MIN_CI_SAMPLES = 5
# A CI from the means of separate processes (a sweep's replicates, each the
# mean of its own repeats) is shown from 3 of them: Student's t over 2
# degrees of freedom (4.30) already widens it for so few.
MIN_CI_PROCESSES = 3


def ci_n(row, col=None):
    """The samples behind a row's CI, for fmt_ci: the processes it was
    measured in (replicates) where there are several, else its repeats;
    with col, also the ends of col's interval where the merge made it
    asymmetric (COL_ci95_lo and COL_ci95_hi: fmt_ci prints them)."""
    procs = num(row.get("replicates", "nan"))
    out = {"n": procs, "procs": True} if procs >= 2 else {"n": num(row.get("repeats", "nan")), "procs": False}
    if col is not None:
        lo, hi = num(row.get(f"{col}_ci95_lo")), num(row.get(f"{col}_ci95_hi"))
        if not (math.isnan(lo) or math.isnan(hi)):
            out.update(lo=lo, hi=hi)
    return out


_SCALES = {"ns": ((1e6, "ms"), (1e3, "µs"), (1, "ns")),
           "num": ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""))}


def _ci_digits(ci):
    """The decimal exponent of the last digit a CI of ci keeps."""
    e = math.floor(math.log10(ci))
    lead = ci / 10 ** e
    return e - 1 if lead < 3 else e


def _fixed(v, exp):
    """v rounded to 10^exp, printed with exactly the digits that keeps."""
    v = round(v / 10 ** exp) * 10 ** exp
    return f"{v:.{max(0, -exp)}f}"


def fmt_ci(v, ci=None, n=None, unit="ns", procs=False, lo=None, hi=None):
    """A measure and its 95% CI half-width as "21.5 ± 2.4 µs": both in the
    value's unit, rounded to the CI's second significant digit (its first
    when that is 3 or more). Where the interval is asymmetric (lo and hi:
    a bootstrap's that a t-interval below 0 gave way to, a pooled
    percentile's) it is "6.1 [0.4, 14] ns" instead, to the digits of its
    half-length. The one rule for intervals: a quantity that cannot be
    negative (a cost, a rate: units "ns" and "num") never gets an interval
    below 0, so a symmetric one that would reach below is cut at 0 ("4
    [0, 8] k": the interval meets what the quantity can be, which keeps
    its coverage). Fewer than MIN_CI_SAMPLES repeats (n), or no CI: two
    significant digits and "(n=3)". unit: "ns" (ns, µs, ms), "num" (k, M,
    G), "count" (a count per barrier, never below 0) or "delta" (a
    difference of two counts per barrier, the storm's less the baseline's:
    signed, "+0.98 ± 0.02", and said so where the baseline's is higher)."""
    if v is None or math.isnan(v):
        return "-"
    if unit in ("count", "delta"):
        scale, suffix, sep = 1, "", ""
    else:
        scale, suffix = next(((d, u) for d, u in _SCALES[unit] if abs(v) >= d), _SCALES[unit][-1])
        sep = " " if suffix else ""
    sign = "+" if unit == "delta" and v >= 0 else ""
    few = n is not None and not math.isnan(n) and n < (MIN_CI_PROCESSES if procs else MIN_CI_SAMPLES)
    if ci is None or math.isnan(ci) or math.isinf(ci) or few or ci < 0:
        if v == 0:
            txt = "0"
        else:
            e = math.floor(math.log10(abs(v) / scale)) - 1
            txt = _fixed(v / scale, min(e, 0) if unit not in ("count", "delta") or abs(v) < 1 else e)
            if unit not in ("count", "delta") and abs(v / scale) >= 10:
                txt = f"{float(f'{v / scale:.2g}'):g}"
        extra = (f" (n={int(n)}{' processes' if procs else ''})" if few else
                 " (no CI)" if unit in ("count", "delta") else "")
        return f"{sign}{txt}{sep}{suffix}{extra}"
    if unit == "count" and v < 0:
        v = 0.0		# a count's mean below 0 is its noise
    if (lo is None or hi is None or math.isnan(lo) or math.isnan(hi) or hi <= lo) and unit != "delta" \
            and v >= 0 and ci >= v and ci > 0:
        lo, hi = 0.0, v + ci	# cut at 0: see the rule above
    if lo is not None and hi is not None and not (math.isnan(lo) or math.isnan(hi)) and hi > lo:
        exp = _ci_digits((hi - lo) / 2 / scale)
        return f"{_fixed(v / scale, exp)} [{_fixed(max(lo, 0.0) / scale, exp)}, {_fixed(hi / scale, exp)}]{sep}{suffix}"
    if ci == 0:
        return "0" if v == 0 else f"{sign}{v / scale:.3g}{sep}{suffix} (no spread" + (f" in n={int(n)})" if n and not math.isnan(n) else ")")
    exp = _ci_digits(ci / scale)
    mid = _fixed(v / scale, exp)
    txt = f"{'+' if unit == 'delta' and not mid.startswith('-') else ''}{mid} ± {_fixed(ci / scale, exp)}{sep}{suffix}"
    if unit == "delta" and v + ci < 0:
        txt += " (the baseline's higher)"
    return txt


def overlap(a, b):
    """Whether two (value, CI half-width) intervals overlap; a missing CI
    overlaps everything (nothing can be told)."""
    (va, ca), (vb, cb) = a, b
    if any(math.isnan(x) for x in (va, ca, vb, cb)):
        return True
    return abs(va - vb) <= ca + cb


def md_cell(c):
    """A table cell as Markdown shows it: text from a folder cannot end the
    cell or the table (| and line breaks)."""
    return " ".join(str(c).split("\n")).replace("\r", " ").replace("|", "\\|")


def md_table(header, rows):
    out = ["| " + " | ".join(md_cell(c) for c in header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(md_cell(c) for c in r) + " |")
    return "\n".join(out)


# The kernel's pseudo-filesystems by statfs(2) f_type (linux/magic.h): the
# rule of pseudo_fs() in lib/util.c and check_pseudo in bench/common.sh.
PSEUDO_FS = {0x9fa0: "proc", 0x62656572: "sysfs", 0x64626720: "debugfs", 0x74726163: "tracefs",
             0x27e0eb: "cgroup", 0x63677270: "cgroup2", 0x73636673: "securityfs", 0x6165676c: "pstore",
             0xcafe4a11: "bpf", 0x62656570: "configfs", 0x1cd1: "devpts", 0xde5e81e4: "efivarfs",
             0x42494e4d: "binfmt_misc", 0x65735543: "fusectl", 0x19800202: "mqueue", 0x6e736673: "nsfs",
             0xf97cff8c: "selinuxfs"}


def _fs_magic(path):
    try:
        import ctypes
        import ctypes.util
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        buf = ctypes.create_string_buffer(512)
        if libc.statfs(os.fsencode(path), buf) != 0:
            return None
        return ctypes.c_ulong.from_buffer(buf).value & 0xffffffff
    except (OSError, AttributeError, ImportError):
        return None


def pseudo_fs(path):
    """Where path (its nearest existing part) is a pseudo-filesystem:
    "/proc", "/sys", "/dev" (not /dev/shm) or "a sysfs file system" and its
    kind wherever mounted; None for a real one."""
    p = os.path.abspath(path)
    while not os.path.lexists(p) and p != "/":
        p = os.path.dirname(p)
    real = os.path.realpath(p)
    for top in ("/proc", "/sys", "/dev"):
        if (real == top or real.startswith(top + "/")) and not real.startswith("/dev/shm"):
            return top
    name = PSEUDO_FS.get(_fs_magic(real))
    return f"a {name} file system" if name else None


def usable_tmpdir():
    """$TMPDIR when it is a directory this process may write in, else /tmp
    (unset, empty or missing: the helpers just work, as mktemp's users do
    with bench/common.sh's fallback). It is exported for the children."""
    t = os.environ.get("TMPDIR", "")
    if not (t.startswith("/") and os.path.isdir(t) and os.access(t, os.W_OK | os.X_OK)):
        t = os.environ["TMPDIR"] = "/tmp"
        import tempfile
        tempfile.tempdir = None	# gettempdir() looks again
    return t


def check_pseudo(flag, path):
    """UsageError when path is on a pseudo-filesystem: nothing is written."""
    fs = pseudo_fs(path)
    if fs:
        raise UsageError(f"{flag} {path} is in {fs}, which holds no results "
                         "(choose a path on a disk, e.g. under results/)")


def option_value(flag, value, what="a value"):
    """An option's value from the command line: UsageError when it is
    empty (as every helper refuses it, naming what to give)."""
    if value == "":
        raise UsageError(f"{flag} needs {what}, not an empty one (see --help)")
    return value


def check_output(path):
    """An output file name given on the command line: UsageError unless it
    can be a regular file in an existing directory."""
    if path == "":
        raise UsageError("--output needs a file name, not ''")
    why = path_too_long(path, 32, 24)	# room for the temporary name
    if why:
        raise UsageError(f"--output {path[:60]}...: too long a path, {why}: choose a shorter name")
    check_pseudo("--output", path)
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise UsageError(f"cannot write {path}: directory {d} does not exist")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        if e.errno in ENV_ERRNOS:	# the machine's fault: exit 1
            raise EnvError(f"cannot write {path}: {e.strerror}")
        raise UsageError(f"cannot write {path}: {e.strerror}")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path} exists and is not a regular file (give a file name to write)")


def write_atomic(path, text):
    """Write path under a temporary name in its directory, then rename it
    over path: a reader sees the old file or the whole new one, never part.
    The temporary is removed on any failure or signal."""
    check_output(path)
    d = os.path.dirname(os.path.abspath(path))
    data = text.encode("utf-8")
    tmp, fd = None, -1
    try:
        for n in range(100):
            tmp = os.path.join(d, f".{os.path.basename(path)}.{os.getpid()}.{n}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
                break
            except FileExistsError:
                continue
        else:
            tmp = None
            raise EnvError(f"cannot write {path}: no free temporary name in {d}")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            check_interrupted()
            os.replace(tmp, path)
            tmp = None
            for s in SIGNALS:	# written: a signal now changes nothing
                signal.signal(s, signal.SIG_IGN)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP):
            raise UsageError(f"cannot write {path}: {e.strerror}")
        raise EnvError(f"cannot write {path}: {e.strerror}")
    finally:
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


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


def _fmt_merged(v, integer=False):
    if math.isnan(v):
        return ""
    return str(int(round(v))) if integer else f"{v:.7g}"


def _serialization_merged(rows):
    """contend's serialization_factor of merged rows: a ratio of the merged
    aggregate means (C over C=1 of the same mechanism and mode), never a
    mean of the replicates' ratios, with its CI from the merged aggregates'
    half-widths (between replicates). Rows whose replicates gave no factor
    (threads mode, skipped with a reason) keep theirs."""
    ones = {(r.get("mechanism"), r.get("mode")): r for r in rows
            if r.get("callers") == "1" and r.get("status", "ok") == "ok"}
    for r in rows:
        one = ones.get((r.get("mechanism"), r.get("mode")))
        if r.get("serialization_factor", "") == "" or one is None or r.get("status", "ok") != "ok":
            continue
        a, a1 = num(r.get("aggregate_calls_per_s")), num(one.get("aggregate_calls_per_s"))
        if not (a > 0 and a1 > 0):
            continue
        f = 1.0 if r is one else a / a1
        r["serialization_factor"] = _fmt_merged(f)
        h, h1 = num(r.get("aggregate_calls_per_s_ci95")), num(one.get("aggregate_calls_per_s_ci95"))
        if "serialization_factor_ci95" in r:
            r["serialization_factor_ci95"] = ("" if r is one or math.isnan(h) or math.isnan(h1) else
                                              _fmt_merged(f * math.sqrt((h / a) ** 2 + (h1 / a1) ** 2)))


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


def _pct_percent(col):
    """A percentile column's level as lib/stats.c writes it (p999_ns: 99.9)."""
    d = _PCT.fullmatch(col).group(1)
    return float(d[:2] + "." + d[2:]) if len(d) > 2 else float(d)


def _pooled_histogram(point, hists):
    """The buckets [(lo, hi, count)] of one point's histograms added up over
    its processes (hists: each process's histogram rows), or None where a
    process has none for it."""
    pooled = {}
    for rows in hists:
        mine = [h for h in rows if all(h.get(c, "") == v for c, v in point.items())]
        if not mine:
            return None
        for h in mine:
            lo, hi, n = int(h["bucket_lo_ns"]), int(h["bucket_hi_ns"]), int(h["count"] or 0)
            b = pooled.setdefault(lo, [lo, hi, 0])
            b[2] += n
    return sorted(tuple(b) for b in pooled.values() if b[2] > 0) or None


def _merge_percentiles(table, row, ok, hists):
    """A latency row's percentiles from the histogram of all its processes
    (their bucket counts added up), never a mean of the processes' own:
    each the nearest rank at the bucket's midpoint, within the exact min
    and max (the least of the processes' mins, the greatest of their
    maxes); the mean weighted by samples. Its 95% interval holds both the
    order statistics of the pooled samples (binomial, on the bucket CDF)
    and the processes' own spread (the pooled figure -/+ Student's t over
    their percentiles), never below 0: COL_ci95_lo and _hi, and the
    half-width the farther end."""
    hcols = COLUMNS.get(f"{table}-histogram", {})
    point = {c: row.get(c, "") for c in KEYS.get(f"{table}-histogram", ()) if not c.startswith("bucket")}
    buckets = _pooled_histogram(point, hists)
    if not buckets or "count" not in hcols:
        return
    mins = [num(r.get("min_ns")) for r in ok]
    maxs = [num(r.get("max_ns")) for r in ok]
    least = min((v for v in mins if not math.isnan(v)), default=buckets[0][0])
    most = max((v for v in maxs if not math.isnan(v)), default=buckets[-1][1])
    if "min_ns" in row:
        row["min_ns"] = _fmt_merged(least)
    if "max_ns" in row:
        row["max_ns"] = _fmt_merged(most)
    means, samples = [num(r.get("mean_ns")) for r in ok], [num(r.get("samples")) for r in ok]
    if "mean_ns" in row and not any(math.isnan(v) for v in means + samples) and sum(samples) > 0:
        row["mean_ns"] = _fmt_merged(sum(m * s for m, s in zip(means, samples)) / sum(samples))
    for col in COLUMNS[table]:
        if col not in row or COLUMNS[table][col]["role"] != "measure" or pct_level(col) is None:
            continue
        p = _pct_percent(col)
        est = hist_percentile(buckets, p, least, most)
        lo, hi = percentile_interval(buckets, p, least, most)
        floor = bounds(table, col)[0]
        _, h, _, _, _ = mean_interval([num(r.get(col)) for r in ok])
        if not math.isnan(h):
            lo, hi = min(lo, est - h), max(hi, est + h)
        if floor is not None:
            lo = max(lo, floor)
        row[col] = _fmt_merged(est)
        ci = ci_column(table, col)
        if ci and ci in row:
            row[ci] = _fmt_merged(max(est - lo, hi - est))
        lo_col, hi_col = ends_columns(table, col)
        row[lo_col], row[hi_col] = _fmt_merged(lo), _fmt_merged(hi)


def _merge_proportion(table, row, col):
    """A proportion's merged figure: its events over its trials, all
    processes' added up, with Wilson's interval; False where the row does
    not hold both counts."""
    k_col, n_col, scale = PROPORTIONS[(table, col)]
    k, n = num(row.get(k_col)), num(row.get(n_col))
    if math.isnan(k) or math.isnan(n) or n < 1 or not 0 <= k <= n:
        return False
    lo, hi = wilson(k, n)
    row[col] = _fmt_merged(k / n * scale)
    lo_col, hi_col = ends_columns(table, col)
    row[lo_col], row[hi_col] = _fmt_merged(lo * scale), _fmt_merged(hi * scale)
    return True


def merge_replicates(table, reps, hists=None):
    """One table's rows of one point measured in several processes: reps is
    a list of row lists, one per replicate (hists, where the table has a
    histogram table, the same replicates' histogram rows). Rows are matched
    by the table's key. A measure is the mean of the replicates'; its CI
    half-width comes from their spread (Student t over the replicates), and
    the replicates' own, within-process, half-widths are averaged into
    COLUMN_within; each measure with a CI keeps its processes' values in
    COLUMN_per_process (';'-joined, in replicate order). Where mean - t
    half-width would run below what the column holds (a cost's 0), the
    interval is the bootstrap's of the mean over the processes, in
    COLUMN_ci95_lo and COLUMN_ci95_hi (or the table's own interval
    columns); a proportion with its counts (litmus) is its events over its
    trials with Wilson's interval; a latency row with histograms takes its
    percentiles from their sum (_merge_percentiles). The standard deviation
    and cv are the processes'. Counts add up; text keeps the first
    replicate's (ns_per_repeat joins them all). A row with status failed in
    any replicate is kept as that replicate's (a finding stays a finding);
    skipped replicates are left out. `replicates` says how many processes a
    row's figures come from."""
    cols = COLUMNS.get(table, {})
    keys = KEYS.get(table, ())
    groups, order = {}, []
    for i, rows in enumerate(reps):
        for r in rows:
            k = tuple(r.get(c, "") for c in keys)
            if k not in groups:
                groups[k] = []
                order.append(k)
            groups[k].append((i, r))
    measured = per_process_columns(table)
    out = []
    for k in order:
        rs = [r for _, r in groups[k]]
        failed = [r for r in rs if r.get("status") == "failed"]
        ok = [r for r in rs if r.get("status", "ok") == "ok"]
        # A process whose repeats never measured the point (a degraded
        # row) gives no figure, but its degraded repeats are counted.
        degraded = [r for r in rs if r.get("status") == "degraded"]
        if failed or not ok:
            row = dict(failed[0] if failed else (degraded or rs)[0])
            row["replicates"] = str(len(failed) if failed else len(rs))
            if not failed and degraded:
                row["repeats_degraded"] = str(sum(int(num(r.get("repeats_degraded")) or 0) for r in degraded
                                                  if not math.isnan(num(r.get("repeats_degraded")))))
            out.append(row)
            continue
        row = dict(ok[0])
        n = len(ok)
        row["replicates"] = str(n)
        for c, spec in cols.items():
            if c not in row:
                continue
            role = spec["role"]
            vals = [num(r.get(c)) for r in ok]
            good = [v for v in vals if not math.isnan(v)]
            if role == "measure":
                row[c] = _fmt_merged(sum(good) / len(good)) if good else ""
            elif role == "count":
                row[c] = _fmt_merged(sum(good), spec["type"] == "integer") if good else ""
            elif role == "ci" and n >= 2 and spec["ci"] == "half-width":
                _, h, _, _, _ = mean_interval([num(r.get(spec["of"])) for r in ok])
                if not math.isnan(h):
                    row[c] = _fmt_merged(h)
                    row[c + "_within"] = _fmt_merged(sum(good) / len(good)) if good else ""
            elif c == "ns_per_repeat":
                row[c] = ";".join(r[c] for r in ok if r.get(c))
        if not row.get("degraded_reason") and "degraded_reason" in row:
            row["degraded_reason"] = next((r["degraded_reason"] for r in rs if r.get("degraded_reason")), "")
        if degraded and "repeats_degraded" in row:
            extra = sum(int(v) for v in (num(r.get("repeats_degraded")) for r in degraded) if not math.isnan(v))
            row["repeats_degraded"] = str(int(num(row["repeats_degraded"]) if row["repeats_degraded"] else 0) + extra)
            row["processes_degraded"] = str(len(degraded))
            if not row.get("degraded_reason"):
                row["degraded_reason"] = degraded[0].get("degraded_reason", "")
        for c in measured:
            if c not in row:
                continue
            row[c + "_per_process"] = ";".join(r.get(c, "") for r in ok)
            if n < 2 or c in ("calls_per_s", "serialization_factor"):	# derived below
                continue
            least = bounds(table, c)[0]
            _, h, lo, hi, how = mean_interval([num(r.get(c)) for r in ok], least)
            lo_col, hi_col = ends_columns(table, c)
            if lo_col in cols and how:	# the table's own interval columns: the merged one
                row[lo_col], row[hi_col] = _fmt_merged(lo), _fmt_merged(hi)
            elif how == "bootstrap":
                row[lo_col], row[hi_col] = _fmt_merged(lo), _fmt_merged(hi)
            if (table, c) in PROPORTIONS:
                _merge_proportion(table, row, c)
        if n >= 2:
            # The spread is the processes': their standard deviation, and
            # the cv of the table's first measure compare tests as a mean.
            for c in cols:
                if c.endswith("_stddev") and c in row and c[:-len("_stddev")] in cols:
                    sd = mean_sd([v for v in (num(r.get(c[:-len("_stddev")])) for r in ok) if not math.isnan(v)])[1]
                    row[c] = _fmt_merged(sd)
            fig = next((c for c, test, _ in figures(table) if test == "mean" and c in row), None) \
                if table in TABLES else None
            if "cv" in row and fig:
                m, sd = mean_sd([v for v in (num(r.get(fig)) for r in ok) if not math.isnan(v)])
                row["cv"] = _fmt_merged(sd / m) if m > 0 and not math.isnan(sd) else row["cv"]
        if hists is not None and n >= 1:
            mine = [hists[i] for i, r in groups[k] if r.get("status", "ok") == "ok" and i < len(hists)]
            if len(mine) == n:
                _merge_percentiles(table, row, ok, mine)
        # calls_per_s is 1e9 / ns_per_call (the schema says so), the mean
        # cost as a rate, never a mean of rates; so are its interval's ends.
        ns = num(row.get("ns_per_call"))
        if "calls_per_s" in row and ns > 0:
            row["calls_per_s"] = _fmt_merged(1e9 / ns)
            h = num(row.get("ns_per_call_ci95"))
            row["calls_per_s_ci95"] = _fmt_merged(1e9 / ns * h / ns) if not math.isnan(h) else ""
            hw = num(row.get("ns_per_call_ci95_within"))
            if "calls_per_s_ci95_within" in row:
                row["calls_per_s_ci95_within"] = _fmt_merged(1e9 / ns * hw / ns) if not math.isnan(hw) else ""
            lo, hi = num(row.get("ns_per_call_ci95_lo")), num(row.get("ns_per_call_ci95_hi"))
            if lo > 0 and hi > 0:
                row["calls_per_s_ci95_lo"], row["calls_per_s_ci95_hi"] = _fmt_merged(1e9 / hi), _fmt_merged(1e9 / lo)
        out.append(row)
    if table == "contend":
        _serialization_merged(out)
    if "cumulative_fraction" in cols:
        # A histogram: the merged counts give the fractions again, per point.
        point = [c for c in keys if c in cols and cols[c]["role"] == "key" and not c.startswith("bucket")]
        total = {}
        for r in out:
            total[tuple(r.get(c) for c in point)] = total.get(tuple(r.get(c) for c in point), 0) + int(r["count"] or 0)
        seen = {}
        for r in sorted(out, key=lambda r: (tuple(r.get(c) for c in point), int(r.get("bucket_lo_ns") or 0))):
            p = tuple(r.get(c) for c in point)
            seen[p] = seen.get(p, 0) + int(r["count"] or 0)
            r["cumulative_fraction"] = _fmt_merged(seen[p] / total[p]) if total[p] else ""
        # Each point's buckets in order (a bucket only a later replicate
        # filled would otherwise come after the others).
        first = {}
        for r in out:
            first.setdefault(tuple(r.get(c) for c in point), len(first))
        out.sort(key=lambda r: (first[tuple(r.get(c) for c in point)], int(r.get("bucket_lo_ns") or 0)))
    return out


def merged_columns(table, fields):
    """The columns a merged CSV adds to a table's fields: replicates, each
    CI half-width's _within, each measure's _per_process, and the ends of
    an interval the merge may make asymmetric (_ci95_lo, _ci95_hi)."""
    cols = COLUMNS.get(table, {})
    extra = ["replicates"] + (["processes_degraded"] if "repeats_degraded" in fields else []) \
        + [c + "_within" for c in fields if cols.get(c, {}).get("ci") == "half-width"]
    for c in per_process_columns(table):
        if c in fields:
            extra.append(c + "_per_process")
            lo, hi = ends_columns(table, c)
            if lo not in cols:
                extra += [lo, hi]
    return [c for c in extra if c not in fields]


def _merged_csv(table, head, groups, hist_groups=None):
    """The CSV text of a table whose points ran in several processes:
    groups is [(point, {replicate: [lines]})] in the plan's order;
    hist_groups, where the table has a histogram table, that table's
    (head, {point: {replicate: [lines]}})."""
    fields = next(csv.reader([head]))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields + merged_columns(table, fields), restval="",
                       lineterminator="\n")
    w.writeheader()
    for point, reps in groups:
        order = sorted(reps)
        rows = [list(csv.DictReader(io.StringIO(head + "".join(reps[i])))) for i in order]
        hists = None
        if hist_groups is not None:
            hhead, hreps = hist_groups[0], hist_groups[1].get(point, {})
            if all(i in hreps for i in order):
                hists = [list(csv.DictReader(io.StringIO(hhead + "".join(hreps[i])))) for i in order]
        w.writerows(merge_replicates(table, rows, hists))
    return buf.getvalue()


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
                outputs[os.path.join(folder, name)] = _merged_csv(table, head, groups, hist)
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
# group, g=ROUND:ROLE@CPU=COLUMN.

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_GP_COLUMN = re.compile(r'\b(?:col|column|strcol)\("([A-Za-z0-9_]+)"\)|\busing\s+"([A-Za-z0-9_]+)"')
_GP_OPTIONAL = re.compile(r'\bopt(?:str)?\("([A-Za-z0-9_]+)"\)')
_LEVELS = ("smt", "core", "l3", "numa", "package")
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
        return [lv for lv in _LEVELS if any(r["level"] == lv for r in ok)]
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
    why = _plot_why(table, rows)
    if why:
        out += [f"why {table} {why}"]
    return out


def _plot_why(table, rows):
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


def _main(argv):
    if argv and argv[0] == "plot-check":
        return plot_check(argv[1:])
    if argv and argv[0] in ("vm-aggregate", "vm-ab"):
        try:
            (vm_aggregate if argv[0] == "vm-aggregate" else vm_ab)(argv[1:])
        except (OSError, ValueError, KeyError, IndexError, EnvError) as e:
            print(f"vm-sweep: cannot aggregate the guests' results: {e}", file=sys.stderr)
            return 1
        return 0
    import argparse
    ap = argparse.ArgumentParser(prog="mbresults.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("title", help="print the figures' title for a results folder")
    t.add_argument("folder")
    args = ap.parse_args(argv)
    print(title(args.folder))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
