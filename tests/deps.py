#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every program the suite's scripts run must come from a package that
`./bootstrap --deps` installs or that a minimal Debian 12 always has, or the
script must check for it and name its package: a machine that happens to
have the program hides the gap (make headers_install needs rsync; the tests
need pgrep). Prints TAP.

usage: tests/deps.py TOP_SRCDIR
"""
import os
import re
import shutil
import subprocess
import sys

# The scripts, and what each runs: words in command position, minus shell
# builtins, keywords and the functions the scripts define.
SCRIPTS = ["bootstrap", ".ci/run", "bench/common.sh", "bench/ab-plan.sh", "bench/sweep", "bench/vm", "bench/vm-semantics.sh", "plots/plot",
           "kernel-patch/build-kernel", "kernel-patch/check-kernel", "kernel-patch/common.sh",
           "kernel-patch/check-lib.sh", "kernel-patch/check-arch.sh", "kernel-patch/with-signoff.sh",
           "kernel-patch/make-initramfs", "kernel-patch/run-vm", "tests/lib.sh",
           "tests/check-fresh", "fuzz/run-fuzz"]
TEST_DIR = "tests"
# Run inside the test guest, where busybox provides every command.
GUEST = {"kernel-patch/init.sh", "kernel-patch/guest-checks.sh"}

# What a program is and which Debian package has it.
PACKAGE = {
    "apt-get": "apt", "ar": "binutils", "autoreconf": "autoconf", "automake": "automake",
    "awk": "mawk", "basename": "coreutils", "cat": "coreutils", "chmod": "coreutils", "chown": "coreutils",
    "chroot": "coreutils", "clang": "clang", "cmp": "diffutils", "cp": "coreutils",
    "cpio": "cpio", "cut": "coreutils", "date": "coreutils", "dd": "coreutils",
    "debootstrap": "debootstrap", "df": "coreutils", "diff": "diffutils",
    "dirname": "coreutils", "dpkg": "dpkg", "dpkg-query": "dpkg", "du": "coreutils",
    "env": "coreutils", "find": "findutils", "flock": "util-linux", "gcc": "gcc",
    "getconf": "libc-bin", "git": "git", "gnuplot": "gnuplot-nox", "grep": "grep",
    "gzip": "gzip", "head": "coreutils", "hostname": "hostname", "id": "coreutils",
    "kill": "procps", "ln": "coreutils", "ls": "coreutils",
    "lstopo": "hwloc", "lstopo-no-graphics": "hwloc", "make": "make",
    "mkdir": "coreutils", "mktemp": "coreutils", "mount": "mount", "mountpoint": "util-linux",
    "mv": "coreutils", "nproc": "coreutils", "od": "coreutils", "paste": "coreutils",
    "patch": "patch", "perl": "perl-base", "pgrep": "procps", "pkill": "procps",
    "printf": "coreutils", "ps": "procps", "python3": "python3",
    "qemu-system-x86_64": "qemu-system-x86", "qemu-system-aarch64": "qemu-system-arm",
    "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu", "apt-cache": "apt", "dpkg-deb": "dpkg",
    "qemu-system-riscv64": "qemu-system-misc", "riscv64-linux-gnu-gcc": "gcc-riscv64-linux-gnu",
    "readlink": "coreutils", "rm": "coreutils",
    "rmdir": "coreutils", "sed": "sed", "seq": "coreutils", "setsid": "util-linux",
    "sh": "dash", "sha256sum": "coreutils", "sleep": "coreutils", "sort": "coreutils",
    "stat": "coreutils", "tail": "coreutils", "tar": "tar", "taskset": "util-linux",
    "tee": "coreutils", "timeout": "coreutils", "touch": "coreutils", "tr": "coreutils",
    "umount": "mount", "uname": "coreutils", "uniq": "coreutils", "unshare": "util-linux",
    "wc": "coreutils", "xargs": "findutils", "xz": "xz-utils", "bash": "bash",
    "chrt": "util-linux", "nice": "coreutils", "prlimit": "util-linux",
    "setpriv": "util-linux", "setarch": "util-linux", "linux64": "util-linux", "su": "util-linux", "runuser": "util-linux",
    "yes": "coreutils", "true": "coreutils", "false": "coreutils", "test": "coreutils",
    "oslat": "rt-tests", "cyclictest": "rt-tests", "numactl": "numactl",
    "busybox": "busybox-static", "truncate": "coreutils", "sync": "coreutils",
    "fallocate": "util-linux", "bc": "bc", "flex": "flex", "bison": "bison",
    "rsync": "rsync", "ldd": "libc-bin", "file": "file", "strip": "binutils",
    "objdump": "binutils", "nm": "binutils", "gunzip": "gzip", "zcat": "gzip",
    "xzcat": "xz-utils", "expr": "coreutils", "realpath": "coreutils",
    "whoami": "coreutils", "logger": "bsdutils", "split": "coreutils",
    "iconv": "libc-bin", "locale": "libc-bin", "localedef": "libc-bin", "mknod": "coreutils", "mkfifo": "coreutils",
    "comm": "coreutils", "shuf": "coreutils", "fold": "coreutils",
    "tac": "coreutils", "base64": "coreutils", "readelf": "binutils", "install": "coreutils",
}
# Programs that other programs run (the kernel build): never seen in a script.
INDIRECT = {"rsync": "make headers_install", "bc": "the kernel build", "flex": "the kernel build",
            "bison": "the kernel build", "libelf-dev": "the kernel build",
            "libssl-dev": "the kernel build", "xz-utils": "tar -xJf of the kernel source",
            "patch": "build-kernel", "make": "everything", "gcc": "everything",
            "busybox-static": "make-initramfs", "linux-source-6.1": "build-kernel",
            "qemu-system-x86": "run-vm", "procps": "the tests (pgrep, ps)",
            "qemu-system-arm": "run-vm --arch arm64 (its QEMU is $QEMU)",
            "gcc-aarch64-linux-gnu": "cross-mbbench (its compiler is $triplet-gcc)",
            "libc6-dev-arm64-cross": "cross-mbbench's static libc",
            "qemu-system-misc": "run-vm --arch riscv64 (its QEMU is $QEMU)",
            "gcc-riscv64-linux-gnu": "cross-mbbench and build-kernel --arch riscv64 ($triplet-gcc, $CROSS_PREFIX)",
            "libc6-dev-riscv64-cross": "cross-mbbench's static libc for riscv64",
            "hwloc": "lstopo (topology.xml)", "gnuplot-nox": "the figures",
            "python3": "report, compare and the tests"}
# Needed only by developer targets that check for them and name the package.
DEV_ONLY = set()
# Priority: required in Debian 12: what debootstrap --variant=minbase gives.
MINBASE = set("""apt base-files base-passwd bash bsdutils coreutils dash debconf debianutils
diffutils dpkg e2fsprogs findutils grep gzip hostname init-system-helpers libc-bin login mawk
mount ncurses-base ncurses-bin passwd perl-base sed sensible-utils sysvinit-utils tar tzdata
util-linux""".split())
# The suite's own programs.
SELF = {"mbbench", "mbbench-static", "mbbench-fresh", "mbb-guest-checks", "mbb-csv"}
BUILTINS = set("""pwd printf kill test true false alias bg break case cd command continue do done echo elif else esac eval exec
exit export fi for function getopts hash if in jobs local read readonly return set shift
source then trap type ulimit umask unalias unset until wait while [ [[ ]] . : ! { } time
declare typeset let mapfile select shopt pushd popd""".split())


def bootstrap_deps(top):
    text = open(os.path.join(top, "bootstrap")).read()
    m = re.search(r'^DEPS="([^"]*)"', text, re.M)
    return set(m.group(1).split()) if m else set()


def strip_heredocs(lines):
    out, end = [], None
    for line in lines:
        if end is not None:
            if line.strip() == end:
                end = None
            continue
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if m and "<<<" not in line:
            end = m.group(1)
        out.append(line)
    return out


def blank_strings(text):
    """The code with comments and the text of strings removed (newlines
    kept), and the commands inside $( ) kept, even within double quotes."""
    out, i, n = [], 0, len(text)
    stack = ["code"]        # code (with its paren depth below) or dq
    depth = [0]
    joined = 0              # continuation lines joined to the current one
    while i < n:
        c, top = text[i], stack[-1]
        if c == "\\":
            if text[i + 1:i + 2] == "\n":
                out.append(" ")
                joined += 1
            i += 2
            continue
        if c == "\n" and joined:
            out.append("\n" * joined)
            joined = 0
        if text.startswith("$((", i):
            j, d = i + 3, 2
            while j < n and d:
                d += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            out.append("0" + "\n" * text.count("\n", i, j))
            i = j
            continue
        if text.startswith("$(", i):
            stack.append("code")
            depth.append(0)
            out.append("$(")
            i += 2
            continue
        if top == "dq":
            if c == '"':
                stack.pop()
                depth.pop()
                out.append('"')
            elif c == "\n":
                out.append(c)
            i += 1
            continue
        if c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            out.append("''" + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == '"':
            stack.append("dq")
            depth.append(0)
            out.append('"')
            i += 1
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;"):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "(":
            depth[-1] += 1
            out.append(c)
            i += 1
        elif c == ")":
            if depth[-1] == 0 and len(stack) > 1:
                stack.pop()
                depth.pop()
                out.append(";")
            else:
                depth[-1] -= 1
                out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def script_text(path):
    return "\n".join(strip_heredocs(open(path, errors="replace").read().split("\n")))


def functions(text):
    return set(re.findall(r"^\s*([\w-]+)\s*\(\)", text, re.M))


def commands(path, funcs):
    """Words in command position, with the line they are on."""
    found = {}
    for n, line in enumerate(blank_strings(script_text(path)).split("\n"), 1):
        line = re.sub(r"^\s*[^\s()=;]+(\s*\|\s*[^\s()=;]+)*\)", "", line)  # a case pattern
        line = re.sub(r"\bcase\s+\S+\s+in\s+[^\s()=;]+(\s*\|\s*[^\s()=;]+)*\)", ";", line)  # one on the case line
        for seg in re.split(r"\|\||&&|[;|&`]|\$\(|\(|\bthen\b|\bdo\b|\belse\b|\bif\b|\bwhile\b|\buntil\b|!\s|\btimeout\s+\S+|\bexec\b|\bcommand -v\b|\benv(?:\s+-\S+)*\b", line):
            words = seg.split()
            while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                words.pop(0)
            if not words:
                continue
            w = words[0]
            if not re.match(r"^[a-z][a-z0-9_.+-]*$", w) or w in BUILTINS or w in funcs:
                continue
            found.setdefault(w, n)
    return found


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    deps = bootstrap_deps(top)
    scripts = [s for s in SCRIPTS if os.path.isfile(os.path.join(top, s))]
    for d, _, files in sorted(os.walk(os.path.join(top, TEST_DIR))):
        rel = os.path.relpath(d, top)
        scripts += sorted(os.path.join(rel, f) for f in files
                          if f.endswith(".sh") and os.path.join(rel, f) not in scripts)
    tests = []
    unknown, missing = [], []
    funcs = set()   # functions of one script are seen by those that source it
    for s in scripts:
        funcs |= functions(script_text(os.path.join(top, s)))
    for s in scripts:
        for w, n in commands(os.path.join(top, s), funcs).items():
            if w in SELF:
                continue
            pkg = PACKAGE.get(w)
            if pkg is None:
                unknown.append(f"{s}:{n}: {w}")
            elif pkg not in deps and pkg not in MINBASE and w not in DEV_ONLY:
                missing.append(f"{s}:{n}: {w} ({pkg})")
    tests.append((not unknown, "every program the scripts run is known with its package"
                  + (f" (unknown, add to tests/deps.py: {', '.join(unknown[:8])})" if unknown else "")))
    tests.append((not missing, "every program the scripts run comes from bootstrap --deps or minbase"
                  + (f" (add to bootstrap's DEPS: {', '.join(missing[:8])})" if missing else "")))
    lack = sorted(p for p in INDIRECT if p not in deps and p not in MINBASE)
    tests.append((not lack, "what the kernel build and the figures need is in bootstrap --deps"
                  + (f" (missing: {', '.join(lack)})" if lack else "")))
    # The map's packages, checked against this host's dpkg where it has both.
    wrong = []
    if shutil.which("dpkg"):
        for w, pkg in sorted(PACKAGE.items()):
            path = shutil.which(w)
            if not path:
                continue
            owners = set()
            for p in {path, os.path.realpath(path), "/usr" + path if not path.startswith("/usr") else path[4:]}:
                r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
                owners |= {o.strip() for line in r.stdout.splitlines() for o in line.split(":")[0].split(",")}
            owners = {o.split(":")[0] for o in owners}
            if owners and pkg not in owners and not any(o.startswith(pkg) for o in owners):
                wrong.append(f"{w}: {pkg}, dpkg says {'/'.join(sorted(owners))}")
        tests.append((not wrong, "the package map agrees with dpkg -S on this host"
                      + (f" ({'; '.join(wrong[:6])})" if wrong else "")))
    else:
        tests.append((None, "dpkg not found: the package map is not checked"))
    print(f"1..{len(tests)}")
    bad = 0
    for i, (good, what) in enumerate(tests, 1):
        if good is None:
            print(f"ok {i} # SKIP {what}")
        elif good:
            print(f"ok {i} - {what}")
        else:
            print(f"not ok {i} - {what}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
