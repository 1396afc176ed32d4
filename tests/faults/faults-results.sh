#!/bin/sh
# SPDX-License-Identifier: MIT
# report and compare under faults: stdout on a full device, a file limit of
# 4, ^C or SIGTERM at any moment, no python3, an output path that is not a
# regular file, a full or read-only disk. Each gives one line and its exit
# status (1 for a fault, 2 for bad input, 128 + the signal), never a
# traceback, and never leaves a temporary file or a part of a report.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 9
cd "$TMP" || exit 1
"$MBBENCH" sweep --quick --keep-degraded --mechanism null --output "$TMP/good" >/dev/null 2>"$TMP/sweep.err"
ok $? "a small folder ($(tail -n 1 "$TMP/sweep.err"))"
# The whole report as the folder gets it (its last line names appendix.md,
# the appendix beside a report.md).
mkdir -p "$TMP/w" "$TMP/nf"
"$MBBENCH" report "$TMP/good" --output "$TMP/w/report.md" 2>"$TMP/whole.err"
cp "$TMP/w/report.md" "$TMP/whole.md" 2>/dev/null
[ -s "$TMP/whole.md" ] || diag "report of the undamaged folder failed: $(cat "$TMP/whole.err")"
no_tmp() { [ -z "$(find "$TMP/good" "$@" -name '*.tmp')" ]; }
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && ! grep -q -e Traceback -e 'Exception ignored' "$1"; }

# 1. stdout cannot be written: one line, exit 1 (was exit 120 and two
# lines); --help too.
"$MBBENCH" compare "$TMP/good" "$TMP/good" >/dev/full 2>"$TMP/full.err"
r1=$?
"$MBBENCH" report --help >/dev/full 2>"$TMP/fullh.err"
r2=$?
[ $r1 -eq 1 ] && [ $r2 -eq 1 ] && one_line "$TMP/full.err" && one_line "$TMP/fullh.err"
ok $? "compare and report --help >/dev/full: exit $r1 and $r2, one line ($(cat "$TMP/full.err"))"

# 2. A file limit of 4 (stdin, stdout, stderr and one more; the test
# driver's descriptors closed first): the whole report, or one line and
# exit 1. The interpreter itself is found first on PATH, not a shim script
# that needs descriptors of its own.
if command -v prlimit >/dev/null 2>&1; then
	real=$("$PY" -c 'import sys; print(sys.executable)')
	PATH="$(dirname "$real"):$PATH" "$PY" -c 'import os, sys; os.closerange(3, 65536); os.execvp(sys.argv[1], sys.argv[1:])' \
		prlimit --nofile=4:4 "$MBBENCH" report "$TMP/good" --output "$TMP/nf/report.md" 2>"$TMP/nf.err"
	rc=$?
	{ [ $rc -eq 0 ] && cmp -s "$TMP/nf/report.md" "$TMP/whole.md" && [ -s "$TMP/nf/appendix.md" ] && [ ! -s "$TMP/nf.err" ]; } ||
		{ [ $rc -eq 1 ] && one_line "$TMP/nf.err" && [ ! -e "$TMP/nf/report.md" ] && [ ! -e "$TMP/nf/appendix.md" ]; }
	r=$?
	msg=$(tail -n 1 "$TMP/nf.err")
	ok $r "report under RLIMIT_NOFILE=4: exit $rc, ${msg:-the whole report}"
else
	skip "report under RLIMIT_NOFILE: needs prlimit (util-linux)"
fi

# 3-4. SIGINT and SIGTERM to report's process group at moments spread over
# an undisturbed run (python3 starting, reading, writing): each run ends
# with the whole report.md and exit 0, or none and 128 + the signal with
# one line (or killed by it, silently, before python3 starts); no other
# file is left in the folder.
for sig in INT TERM; do
	rm -f "$TMP/good/report.md"
	"$PY" - "$sig" "$MBBENCH" "$TMP/good" "$TMP/whole.md" <<'PY' >"$TMP/sig.log"
import os, signal, subprocess, sys, time
sig, mb, folder, whole = getattr(signal, "SIG" + sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
out = os.path.join(folder, "report.md")
want = open(whole, "rb").read()
def run(delay):
    # A new process group, SIGINT at its default (a background job of a
    # non-interactive shell starts with it ignored).
    p = subprocess.Popen([mb, "report", folder], stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if delay is not None:
        time.sleep(delay)
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
    err = p.communicate()[1].decode(errors="replace")
    return p.returncode, err
before = set(os.listdir(folder)) - {"report.md"}
t0 = time.monotonic()
run(None)
span = time.monotonic() - t0
bad, seen = [], {}
for i in range(16):
    if os.path.exists(out):
        os.unlink(out)
    d = span * i / 16
    rc, err = run(d)
    got = open(out, "rb").read() if os.path.exists(out) else None
    tmps = sorted(set(os.listdir(folder)) - before - {"report.md"})
    # (killed by the signal itself only before Python started: nothing said)
    fine = (rc == 0 and got == want and err == "") or \
        (rc == 128 + sig and got is None and err.count("\n") == 1 and "Traceback" not in err) or \
        (rc == -sig and got is None and err == "")
    seen[rc] = seen.get(rc, 0) + 1
    if not fine or tmps:
        bad.append(f"after {d:.3f}s: exit {rc}, report.md {'whole' if got == want else 'partial' if got else 'absent'}, "
                   f"left {tmps}, stderr {err.strip()[-160:]!r}")
print("exits " + " ".join(f"{k}:{v}" for k, v in sorted(seen.items())))
print("\n".join("# " + b for b in bad))
sys.exit(1 if bad else 0)
PY
	r=$?
	grep '^#' "$TMP/sig.log"
	[ $r -eq 0 ] && no_tmp
	ok $? "SIG$sig to report at 16 moments of a run: whole or none, one line ($(head -n 1 "$TMP/sig.log"))"
done

# 5. No python3: one line naming the package and the interpreter looked
# for, exit 1 (was /usr/bin/env's message and 127). A helper make wrote
# names configure's python3 on its #! line, which need not be on PATH: a
# PATH without python3 still runs it (a sweep measured, then stopped at
# its report). The missing interpreter: a copy of mbbench beside a report
# helper whose #! line names one that is not there.
mkdir "$TMP/nopy" "$TMP/nointerp"
PATH="$TMP/nopy" "$MBBENCH" report "$TMP/good" --output "$TMP/np.md" 2>"$TMP/np.err"
rc=$?
case $(head -n 1 "$(dirname "$MBBENCH")/mbbench-report") in
*/env*) want=1 ;;	# a helper that runs python3 from PATH
*) want=0 ;;
esac
cp "$MBBENCH" "$TMP/nointerp/mbbench" &&
	sed '1s|^#!.*|#!/nonexistent/python3 -S|' "$(dirname "$MBBENCH")/mbbench-report" >"$TMP/nointerp/mbbench-report" &&
	chmod +x "$TMP/nointerp/mbbench-report"
"$TMP/nointerp/mbbench" report "$TMP/good" --output "$TMP/ni.md" 2>"$TMP/ni.err"
rc2=$?
[ $rc -eq $want ] && { [ $want -eq 0 ] || [ ! -e "$TMP/np.md" ]; } &&
	[ $rc2 -eq 1 ] && one_line "$TMP/ni.err" && grep -q 'apt-get install python3' "$TMP/ni.err" &&
	grep -q '/nonexistent/python3' "$TMP/ni.err" && [ ! -e "$TMP/ni.md" ]
ok $? "report without python3 on PATH: exit $rc (its #! python3 is configure's); without its python3: exit $rc2, $(cat "$TMP/ni.err")"

# 6. An --output that is not a regular file (a FIFO, a symlink) is refused
# with exit 2 and left as it was (a rename replaced it).
mkfifo "$TMP/fifo" && ln -s "$TMP/whole.md" "$TMP/link"
"$MBBENCH" report "$TMP/good" --output "$TMP/fifo" 2>"$TMP/fifo.err"
r1=$?
"$MBBENCH" compare "$TMP/good" "$TMP/good" --output "$TMP/link" 2>"$TMP/link.err"
r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ -p "$TMP/fifo" ] && [ -L "$TMP/link" ] &&
	one_line "$TMP/fifo.err" && one_line "$TMP/link.err"
ok $? "report --output FIFO, compare --output SYMLINK: exit $r1 and $r2, both kept ($(cat "$TMP/fifo.err"))"

# 7-8. A full disk and a read-only one: one line, exit 1 (a fault, not bad
# input), the earlier file there as it was, no temporary left.
if [ "$(id -u)" -eq 0 ] && mkdir "$TMP/full" && mount -t tmpfs -o size=4k tmpfs "$TMP/full" 2>/dev/null; then
	echo earlier >"$TMP/full/r.md"
	"$MBBENCH" report "$TMP/good" --output "$TMP/full/r.md" 2>"$TMP/enospc.err"
	rc=$?
	[ $rc -eq 1 ] && one_line "$TMP/enospc.err" && [ "$(cat "$TMP/full/r.md")" = earlier ] &&
		[ "$(ls -A "$TMP/full")" = r.md ]
	ok $? "report on a full disk: exit $rc, $(cat "$TMP/enospc.err")"
	mount -o remount,ro "$TMP/full"
	"$MBBENCH" compare "$TMP/good" "$TMP/good" --output "$TMP/full/r.md" 2>"$TMP/erofs.err"
	rc=$?
	# A read-only mount is an output the user cannot write: choose another
	# path, exit 2, as every tool (the C tools' outpath.c too).
	[ $rc -eq 2 ] && one_line "$TMP/erofs.err" && [ "$(cat "$TMP/full/r.md")" = earlier ]
	ok $? "compare on a read-only disk: exit $rc, $(cat "$TMP/erofs.err")"
	umount "$TMP/full"
else
	skip "report on a full disk: needs root to mount a small tmpfs"
	skip "compare on a read-only disk: needs root to mount a small tmpfs"
fi
done_testing
