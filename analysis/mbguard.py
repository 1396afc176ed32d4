# SPDX-License-Identifier: MIT
"""How the analysis tools stop: bad input is one line naming the file and
the damage (UsageError, exit 2), a fault of the machine (no file
descriptors, a full or read-only disk, an I/O error) one line and exit 1
(EnvError), ^C, SIGTERM or SIGHUP one line and 128 + the signal
(Interrupted). guard() runs a tool's main under those rules;
MBBENCH_DEBUG=1 shows the traceback of what it did not foresee.
"""
import codecs
import errno
import os
import signal
import sys


class UsageError(Exception):
    """Bad input (arguments, a damaged or foreign folder): one line, exit 2."""


class EnvError(Exception):
    """A fault of the machine, not of the input: one line, exit 1."""


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


# What the tools print beyond ASCII, and what a terminal whose charset
# lacks it (a Latin-1 or ASCII locale) gets instead: the locale's own
# character where it has one (Latin-1 has µ, ± and ×), else these.
ASCII_FOR = {"µ": "u", "±": "+/-", "≥": ">=", "≤": "<=", "×": "x", "−": "-", "–": "-", "—": "--",
             "→": "->", "≈": "~", "…": "...", "’": "'", "‘": "'", "“": '"', "”": '"', "²": "^2",
             "·": ".", "°": " deg", "\u00a0": " "}


def _ascii_for(err):
    """The codec error handler "mbb-ascii": ASCII_FOR's text, else "?"."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(ASCII_FOR.get(c, "?") for c in err.object[err.start:err.end]), err.end


codecs.register_error("mbb-ascii", _ascii_for)


def locale_streams():
    """stdout and stderr in the locale's charset, each character it lacks
    written as ASCII_FOR says: output never fails on the charset."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="mbb-ascii")
        except (AttributeError, ValueError, OSError):
            pass	# not a text stream we can change: left as it is


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
    locale_streams()
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
