# SPDX-License-Identifier: MIT
"""Paths the analysis tools are given and files they write: a name this
system can hold, no pseudo-filesystem, a usable TMPDIR, an output file
checked before anything is measured or read and written whole or not at
all (write_atomic)."""
import errno
import os
import signal
import stat

from mbguard import ENV_ERRNOS, SIGNALS, EnvError, UsageError, check_interrupted


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
    if not os.access(d, os.W_OK | os.X_OK):	# as the C tools (bench/harness/outpath.c): the user's to fix, exit 2
        raise UsageError(f"cannot write {path}: directory {d} is not writable (choose another path)")
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
        if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP,
                       errno.EACCES, errno.EPERM, errno.EROFS):
            raise UsageError(f"cannot write {path}: {e.strerror} (choose another path)")
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

