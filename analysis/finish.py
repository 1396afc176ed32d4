# SPDX-License-Identifier: MIT
"""The sweep's finishing: a measured folder DIR.incomplete becomes the
results folder DIR, named so only when every file is written.

usage: finish.py MBBENCH DIR.incomplete DIR      (after measuring)
       finish.py MBBENCH --assemble GIVEN          (mbbench sweep --assemble GIVEN)

bench/sweep runs it (through `env --block-signal`, so ^C and SIGTERM wait
until they can be noted): it reads raw/sweep.txt and raw/points.txt, which
the measuring wrote, and checks them; assembles run.json and the CSVs
(mbassemble.assemble); runs `mbbench plot` and `mbbench report` on the
folder through a link with its final name; checks every file; and renames
the folder. ^C or SIGTERM while it works finishes the current step, then
the folder keeps its .incomplete name with run.json marked interrupted
(exit 130 or 143). Bad input to --assemble is one line and exit 2; a
failure one line naming the folder, which stays DIR.incomplete, and exit 1.
The messages are the sweep's ("sweep: ...").
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing written into the install tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbassemble import AssembleError, assemble  # noqa: E402
from mbpaths import usable_tmpdir  # noqa: E402

PROG = "sweep"
SIGNALS = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated")}
fstop = None    # 130 or 143 once ^C or SIGTERM arrived
folder = None   # the folder being finished, once the input is checked


def say(msg):
    try:
        print(msg, file=sys.stderr, flush=True)
    except OSError:
        pass


def die(msg):
    say(f"{PROG}: {msg}")
    sys.exit(2)


def fail(msg):
    """Before the folder is checked, one line; after, it names the folder,
    which keeps its .incomplete name with no .tmp file left."""
    if folder is None:
        say(f"{PROG}: {msg}")
        sys.exit(1)
    say(f"{PROG}: {msg}; the folder stays {folder}")
    for root, _, files in os.walk(folder):
        for f in files:
            if f.endswith(".tmp"):
                try:
                    os.unlink(os.path.join(root, f))
                except OSError:
                    pass
    sys.exit(1)


def on_signal(signum, frame):
    global fstop
    fstop, what = SIGNALS[signum]
    say(f"# {PROG}: {what}; finishing the current step")


def read_sweep(d):
    """raw/sweep.txt as a dict, and the file that is not what a measuring
    sweep writes (None if both are)."""
    s = {}
    try:
        with open(os.path.join(d, "raw", "sweep.txt"), encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                k, sep, v = line.partition(" ")
                if line.startswith("found"):
                    k, sep, v = "found", " ", line[5:]
                if sep:
                    s.setdefault(k, v)
    except OSError:
        return s, "raw/sweep.txt"
    s["skipped"] = s.get("skipped") or "0"
    # A folder measured before replicates: one run per point.
    s.setdefault("replicates", "1")
    s.setdefault("runs", s.get("planned", ""))
    s.setdefault("found", "")
    s.setdefault("boot_id", "-")	# a folder measured before the boot was recorded
    s.setdefault("ab", "-")
    counts = [s.get(k, "") for k in ("planned", "replicates", "runs", "done", "failed", "skipped", "measured",
                                     "seed", "budget")]
    pred = s.get("predicted", "")
    if not all(c.isdigit() and c.isascii() for c in counts) \
            or any(len(s[k]) > 6 for k in ("planned", "replicates", "runs", "done", "failed", "skipped")) \
            or s.get("preset") not in ("quick", "full", "ab") or s.get("stop") not in ("0", "130", "143") \
            or not pred or pred.strip("0123456789.") or pred.count(".") > 1 \
            or s["found"].strip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789: _.-") \
            or len(s["boot_id"]) > 64 or s["boot_id"].strip("0123456789abcdef-") \
            or not (s["ab"] == "-" or (s["ab"][:2] in ("A:", "B:") and s["ab"][2:].isdigit()
                                       and s["ab"][2:3] != "0" and len(s["ab"]) <= 5)):
        return s, "raw/sweep.txt"
    try:
        with open(os.path.join(d, "raw", "points.txt"), encoding="utf-8", errors="replace") as f:
            for line in f:
                p = line.split()
                if len(p) < 3 or p[2] not in ("ok", "finding", "failed", "skipped") \
                        or not (p[0].isascii() and p[0].isalpha() and p[0].islower()) \
                        or p[1].strip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"):
                    return s, "raw/points.txt"
    except OSError:
        return s, "raw/points.txt"
    return s, None


def ab_facts(s):
    """What run.json records of the run's boot and of its place in an A/B
    (sweep --ab-run SIDE:PAIR): side, pair and its position in the ABBA
    order (pair k is A then B where k is odd, B then A where it is even)."""
    out = {"boot_id": None if s["boot_id"] == "-" else s["boot_id"]}
    if s["ab"] != "-":
        side, pair = s["ab"][0], int(s["ab"][2:])
        first = (side == "A") == (pair % 2 == 1)
        out["ab"] = {"side": side, "pair": pair, "position": 2 * (pair - 1) + (1 if first else 2), "order": "ABBA"}
    return out


def try_assemble(s, interrupted):
    """run.json and the CSVs; the reason they could not be written, or None."""
    try:
        assemble(folder, s["preset"], int(s["planned"]), interrupted, int(s["seed"]),
                 {"budget": float(s["budget"]), "predicted": float(s["predicted"]),
                  "measured": float(s["measured"])}, s.get("aslr") or None, int(s["replicates"]), ab_facts(s))
    except AssembleError as e:
        return str(e)
    except (OSError, ValueError, RecursionError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def stopped_finishing(s):
    """A signal while finishing: the folder keeps its .incomplete name and
    its run.json says interrupted."""
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    err = try_assemble(s, True)
    if err:
        fail(f"run.json could not be written: {err}")
    say(f"{PROG}: interrupted while finishing; the folder stays {folder} "
        f"(finish it with: mbbench sweep --assemble {folder})")
    sys.exit(fstop)


def first_error(text):
    """The first line of a step's messages that is not a note."""
    return next((line for line in text.split("\n") if line and not line.startswith("#")), "no message")


def shielded(argv):
    """A step run with ^C and SIGTERM ignored, so it completes: its exit
    status and its messages (stdout is dropped)."""
    def ignore():
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
    try:
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           preexec_fn=ignore, check=False)
    except OSError as e:
        return 126, f"cannot run {argv[0]}: {e.strerror}"
    return p.returncode, p.stderr.decode("utf-8", "replace")


def last_calibration(final):
    """The newest `mbbench calibrate` of this host and kernel beside the
    folder (a calibrate-*/calibration.json in its parent, its default place),
    copied in as calibration.json so that the report can say what an A/B
    can see here. Nothing when there is none."""
    parent = os.path.dirname(os.path.abspath(final))
    try:
        with open(os.path.join(folder, "run.json")) as f:
            h = json.load(f).get("info", {}).get("host", {})
        best = None
        for d in os.listdir(parent):
            p = os.path.join(parent, d, "calibration.json")
            if d.startswith("calibrate-") and os.path.isfile(p):
                with open(p) as f:
                    c = json.load(f)
                if (isinstance(c, dict) and c.get("hostname") == h.get("hostname")
                        and c.get("kernel_release") == h.get("kernel_release")
                        and (best is None or str(c.get("date", "")) > str(best.get("date", "")))):
                    best = c
        if best is not None:
            tmp = os.path.join(folder, "calibration.json.tmp")
            with open(tmp, "w") as f:
                json.dump(best, f, indent=1)
            os.replace(tmp, os.path.join(folder, "calibration.json"))
    except (OSError, ValueError):
        pass	# a calibration that cannot be read is none: the report says so


def finish(s, final, mbbench):
    # Figures and a report of a stopped finishing are made again.
    try:
        for old in ("plots", "report.md", "appendix.md"):
            old = os.path.join(folder, old)
            if os.path.isdir(old) and not os.path.islink(old):
                shutil.rmtree(old)
            elif os.path.lexists(old):
                os.unlink(old)
    except OSError:
        fail("cannot remove the earlier figures, report.md and appendix.md")
    err = try_assemble(s, s["stop"] != "0")
    if err:
        fail(f"run.json and the CSVs could not be written: {err}")
    if fstop:
        stopped_finishing(s)
    last_calibration(final)
    # plot and report take finished folders only: they see this one through
    # a link with its final name, in a directory of this run's own.
    tmpdir = usable_tmpdir()
    try:
        view_dir = tempfile.mkdtemp(prefix="mbbench-sweep.", dir=tmpdir)
    except OSError:
        fail(f"cannot create a temporary directory in {tmpdir}")
    try:
        view = os.path.join(view_dir, os.path.basename(final))
        try:
            os.symlink(folder if folder.startswith("/") else os.getcwd() + "/" + folder, view)
        except OSError:
            fail(f"cannot create a link in {view_dir}")
        if shutil.which("gnuplot"):
            rc, err = shielded([mbbench, "plot", view])
            if fstop:
                stopped_finishing(s)
            if rc:
                fail(f"the figures could not be written: {first_error(err)}")
            notes = "\n".join(line for line in err.split("\n") if line.startswith("#"))
            if notes:
                say(notes)
        else:
            say(f"# {PROG}: figures skipped: gnuplot not found (apt-get install gnuplot-nox)")
        rc, err = shielded([mbbench, "report", view])
        if fstop:
            stopped_finishing(s)
        if rc:
            fail(f"report.md could not be written: {first_error(err)}")
    finally:
        shutil.rmtree(view_dir, ignore_errors=True)
    for f in ("run.json", "report.md", "appendix.md", "topology.xml", "commands.txt"):
        try:
            if os.stat(os.path.join(folder, f)).st_size > 0:
                continue
        except OSError:
            pass
        fail(f"{f} is missing or empty")
    for root, dirs, files in os.walk(folder):
        tmp = next((f for f in sorted(dirs + files) if f.endswith(".tmp")), None)
        if tmp:
            fail(f"{os.path.join(root, tmp)} was left behind")
    if fstop:
        stopped_finishing(s)
    if os.path.lexists(final):
        fail(f"{final} exists already (another sweep finished there)")
    msg = f"{s['done']}/{s['planned']} points" if s["replicates"] == "1" else \
        f"{s['done']}/{s['runs']} runs of {s['planned']} points, each in {s['replicates']} processes"
    if s["skipped"] != "0":
        msg += f", {s['skipped']} skipped"
    line = f"# results: {final} ({msg}, {s['measured']} s measuring; {s['predicted']} s predicted)\n"
    try:
        data = os.fsencode(line)
        while data:
            data = data[os.write(1, data):]
    except OSError:
        fail("cannot write to standard output")
    try:
        os.rename(folder, final)
    except OSError:
        fail(f"cannot rename {folder} to {final}")
    if s["found"]:
        say(f"# {PROG}: correctness failures found in:{s['found']} (report.md lists them first)")
    if s["stop"] != "0":
        sys.exit(int(s["stop"]))
    if fstop:
        sys.exit(fstop)
    if s["failed"] != "0":
        say(f"{PROG}: {s['failed']} of {s['runs']} runs could not be measured "
            "(run.json lists them under points_failed)")
        sys.exit(1)
    sys.exit(0)


def assemble_path(given):
    """--assemble's folder made absolute (from the physical current
    directory, no trailing '/'), short enough for every file the sweep
    writes in it: each name at most NAME_MAX with ".incomplete", the whole
    at most PATH_MAX less 270 (the rule of check_sweep_folder in
    bench/harness/outpath.c for --output)."""
    if any(ord(c) < 32 or ord(c) == 127 for c in given):
        die("--assemble: the name has a control character (choose another)")
    try:
        path = (given if given.startswith("/") else os.path.join(os.getcwd(), given)).rstrip("/")
    except OSError:
        fail("cannot read the current directory")
    names = [len(os.fsencode(n)) for n in path.split("/")]
    if len(os.fsencode(path)) + 270 > 4096 or max(names[:-1] + [names[-1] + 11]) > 255:
        die("--assemble is too long a path for the files the sweep writes in it "
            f"(a name at most 244 characters, a path at most {4096 - 270}): choose a shorter one")
    return path


def main(argv):
    global folder
    for sig in SIGNALS:
        signal.signal(sig, on_signal)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(SIGNALS))
    if len(argv) != 3:
        die("usage: finish.py MBBENCH (DIR.incomplete DIR | --assemble GIVEN)")
    mbbench = argv[0]
    if argv[1] != "--assemble":
        folder, final = argv[1], argv[2]
        s, damage = read_sweep(folder)
        if damage:
            fail(f"{folder}/{damage} is damaged (not what a --measure-only sweep writes)")
        return finish(s, final, mbbench)
    given = argv[2]
    d = assemble_path(given)
    # A symbolic link to the folder: the folder itself is renamed.
    if os.path.islink(d) and os.path.isdir(d):
        try:
            d = os.path.realpath(d)
        except OSError:
            die(f"--assemble {given}: cannot resolve the link")
    if not os.path.isdir(d):
        die(f"--assemble {given}: no such folder (give the folder a --measure-only sweep left)")
    if not d.endswith(".incomplete"):
        die(f"--assemble {d}: not a folder left by --measure-only (its name ends in .incomplete)")
    final = d[:-len(".incomplete")]
    if not os.path.isfile(os.path.join(d, "raw", "sweep.txt")):
        die(f"--assemble {d}: no raw/sweep.txt (not a folder left by sweep --measure-only)")
    s, damage = read_sweep(d)
    if damage:
        die(f"--assemble {d}: {damage} is damaged (not what a --measure-only sweep writes)")
    if os.path.lexists(final):
        die(f"--assemble {d}: {final} exists already (move it away)")
    folder = d
    return finish(s, final, mbbench)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
