#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep and `mbbench vm` against bad input, locales, limits, paths,
# signals and a full disk. The promises: bad input is one line and exit 2
# before anything is created; a fault or a signal while the folder is
# finished leaves it under its .incomplete name and exits non-zero; a point
# the host cannot run is skipped, not failed. Cheap: one measured folder
# (--measure-only, the null mechanism) is copied for each finishing case.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 30
# Absolute: the cases run from their own directories.
MBBENCH=$(cd "$(dirname "$MBBENCH")" && pwd)/$(basename "$MBBENCH")
SWEEP="$MBBENCH sweep --quick"

# bad NAME ARGS...: sweep ARGS from an empty directory: exit 2, one line
# naming WORD ($want), nothing created.
bad() {
	d=$TMP/bad-$1
	shift
	mkdir -p "$d"
	(cd "$d" && $SWEEP "$@") >"$d.out" 2>"$d.err"
	rc=$?
	left=$(ls -A "$d" | tr '\n' ' ')
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$d.err")" -eq 1 ] && [ -z "$left" ] && grep -q -- "$want" "$d.err"
	ok $? "sweep $*: exit $rc, one line, nothing created (${left:-nothing}): $(head -n 2 "$d.err" | tr '\n' ' ')"
}

# 1-8. Bad input.
want=--mechanism; bad m-empty --mechanism ''
want=--output; bad o-empty --output ''
want='--quick and --full'; bad presets --quick --full --mechanism null
want='--out-root'; bad both --mechanism null --output o --out-root r
want="without spaces"; bad m-space --mechanism 'null fence'
mkdir -p "$TMP/adir"
want="not an executable file"; bad mb-dir --mechanism null --mbbench "$TMP/adir"
ln -s "$TMP/nowhere" "$TMP/dangling"
want="symbolic link to nothing"; bad dangling --mechanism null --output "$TMP/dangling"
long=$TMP/$(printf '%0200d' 0)/$(printf '%0200d' 0)
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do long=$long/$(printf '%0200d' 0); done
want="too long"; bad long --mechanism null --output "$long/run"
# 9. The dangling link is left as it was.
[ -L "$TMP/dangling" ] && [ ! -e "$TMP/nowhere" ] && [ ! -e "$TMP/nowhere.incomplete" ] &&
	[ ! -e "$TMP/dangling.incomplete" ]
ok $? "a dangling --output link: nothing created at either end"

# 10. A name that starts with '-' is a name, not an option of dirname.
mkdir "$TMP/dash"
(cd "$TMP/dash" && $SWEEP --plan --mechanism null --output -run) >/dev/null 2>"$TMP/dash.err"
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$TMP/dash.err" ]
ok $? "--plan --output -run: exit $rc, no message ($(head -n 1 "$TMP/dash.err"))"

# 11. --mbbench NAME is ./NAME, never a program found on PATH.
mkdir -p "$TMP/rel" "$TMP/pathbin"
for w in rel pathbin; do
	printf '#!/bin/sh\necho >>"%s/%s.used"\nexec "%s" "$@"\n' "$TMP" "$w" "$MBBENCH" >"$TMP/$w/mbb"
	chmod +x "$TMP/$w/mbb"
done
(cd "$TMP/rel" && PATH="$TMP/pathbin:$PATH" $SWEEP --plan --mechanism null --mbbench mbb) >/dev/null 2>"$TMP/rel.err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$TMP/rel.used" ] && [ ! -e "$TMP/pathbin.used" ]
ok $? "--mbbench mbb runs ./mbb, not mbb on PATH: exit $rc $(head -n 1 "$TMP/rel.err")"

# 12-13. A decimal-comma locale: the options written are 0.1, the budget
# 1.5m is 90 s (a locale built under $TMP; skipped where it cannot be).
loc=
if command -v localedef >/dev/null 2>&1; then
	mkdir -p "$TMP/loc"
	localedef -i de_DE -f UTF-8 "$TMP/loc/de_DE.UTF-8" >/dev/null 2>&1
	LOCPATH=$TMP/loc LC_ALL=de_DE.UTF-8 awk 'BEGIN { printf "%g", 0.5 }' 2>/dev/null | grep -q '0,5' && loc=de_DE.UTF-8
fi
if [ -n "$loc" ]; then
	LOCPATH=$TMP/loc LC_ALL=$loc $SWEEP --plan --mechanism null --budget 1.5m >"$TMP/loc.plan" 2>"$TMP/loc.err"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q '^# plan: .*budget 90 s' "$TMP/loc.plan" && ! grep -q -- '--duration [0-9]*,' "$TMP/loc.plan" &&
		grep -q -- '--duration 0\.' "$TMP/loc.plan"
	ok $? "$loc: the plan reads 1.5m as 90 s and writes 0.x durations: exit $rc, $(head -n 1 "$TMP/loc.plan")"
	LOCPATH=$TMP/loc LC_ALL=$loc $SWEEP --measure-only --mechanism null --output "$TMP/locrun" >/dev/null 2>"$TMP/locrun.err"
	rc=$?
	[ "$rc" -eq 0 ] && [ "$(grep -Ec ' (ok|finding)$' "$TMP/locrun.incomplete/raw/points.txt")" -eq 21 ] &&
		! grep -q -- '--duration [0-9]*,' "$TMP/locrun.incomplete/commands.txt"
	ok $? "$loc: every point measured: exit $rc ($(grep -v '^#' "$TMP/locrun.err" | head -n 1))"
else
	skip "a decimal-comma locale: localedef cannot build de_DE.UTF-8 here (apt-get install locales)"
	skip "a decimal-comma locale: localedef cannot build de_DE.UTF-8 here (apt-get install locales)"
fi

# 14. An open-file limit too low to run: one line naming it.
if command -v prlimit >/dev/null 2>&1; then
	mkdir "$TMP/nf"
	(cd "$TMP/nf" && "$PY" -c 'import os, sys; os.closerange(3, 65536); os.execvp(sys.argv[1], sys.argv[1:])' \
		prlimit --nofile=12:12 $SWEEP --mechanism null) >/dev/null 2>"$TMP/nf.err"
	rc=$?
	[ "$rc" -ne 0 ] && [ "$(wc -l <"$TMP/nf.err")" -eq 1 ] && grep -q 'limit is 12' "$TMP/nf.err" &&
		[ -z "$(ls -A "$TMP/nf")" ]
	ok $? "RLIMIT_NOFILE=12: exit $rc, one line: $(head -n 2 "$TMP/nf.err" | tr '\n' ' ')"
else
	skip "RLIMIT_NOFILE: needs prlimit (util-linux)"
fi

# 15-17. --output a link to an empty folder: the results are that folder;
# with one usable CPU of several, a plan with disturb and anatomy (which
# need two) is refused before anything is made: a folder with them missing
# would read as finished (seed-v1-ipi-all: skipped rows off the patched
# kernel, so it is quick).
mkdir "$TMP/target"
ln -s "$TMP/target" "$TMP/link"
pin=
cpu=$(awk '/^Cpus_allowed_list:/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status 2>/dev/null)
command -v taskset >/dev/null 2>&1 && [ -n "$cpu" ] && taskset -c "$cpu" true 2>/dev/null && pin="taskset -c $cpu"
$SWEEP --mechanism seed-v1-ipi-all --output "$TMP/link" >"$TMP/link.out" 2>"$TMP/link.err"
rc=$?
[ -L "$TMP/link" ] && [ -s "$TMP/target/run.json" ] && [ -s "$TMP/target/report.md" ] &&
	[ ! -e "$TMP/target/link.incomplete" ] && [ ! -e "$TMP/link.incomplete" ] &&
	grep -q "^# results: $(cd -P "$TMP/target" && pwd -P) " "$TMP/link.out"
ok $? "--output LINK: the folder it points to holds the results, and the message names it: $(cat "$TMP/link.out")"
if [ -n "$pin" ] && [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	$pin $SWEEP --mechanism seed-v1-ipi-all --output "$TMP/pinned" >/dev/null 2>"$TMP/pinned.err"
	r=$?
	[ "$r" -eq 2 ] && [ "$(wc -l <"$TMP/pinned.err")" -eq 1 ] && grep -q "affinity mask.*widen it" "$TMP/pinned.err" &&
		[ ! -e "$TMP/pinned" ] && [ ! -e "$TMP/pinned.incomplete" ]
	ok $? "$pin: a plan needing two CPUs is refused up front, exit $r ($(head -n 1 "$TMP/pinned.err"))"
else
	skip "one usable CPU: needs taskset (util-linux)"
fi
[ "$rc" -eq 0 ]
ok $? "--output LINK: exit $rc"

# One measured folder; each finishing case below works on a copy.
$SWEEP --measure-only --mechanism null --output "$TMP/m" >/dev/null 2>"$TMP/m.err" ||
	diag "the measured folder: $(grep -v '^#' "$TMP/m.err" | head -n 1)"
# wrap WHEN ACTION: an mbbench that does ACTION before running subcommand WHEN.
wrap() {
	cat >"$TMP/wrap-$1" <<EOS
#!/bin/sh
[ "\$1" != "$1" ] || { $2; }
exec "$MBBENCH" "\$@"
EOS
	chmod +x "$TMP/wrap-$1"
}
# final_check NAME: exit non-zero, one line, NAME.incomplete kept, no NAME.
final_check() {
	[ "$rc" -ne 0 ] && [ "$(grep -vc '^#' "$TMP/$2.err")" -eq 1 ] && [ -d "$1.incomplete" ] && [ ! -e "$1" ] &&
		[ -z "$(find "$1.incomplete" -name '*.tmp')" ]
}

# 18-19. --assemble with damage in raw/sweep.txt: exit 2, one line, nothing written.
for what in 's/^planned .*/planned x/' 's/^stop .*/stop 7/'; do
	rm -rf "$TMP/dmg.incomplete"
	cp -r "$TMP/m.incomplete" "$TMP/dmg.incomplete"
	sed -i "$what" "$TMP/dmg.incomplete/raw/sweep.txt"
	$MBBENCH sweep --assemble "$TMP/dmg.incomplete" >/dev/null 2>"$TMP/dmg.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/dmg.err")" -eq 1 ] && [ ! -e "$TMP/dmg.incomplete/run.json" ] && [ ! -e "$TMP/dmg" ]
	ok $? "--assemble, raw/sweep.txt '$what': exit $rc, one line: $(head -n 2 "$TMP/dmg.err" | tr '\n' ' ')"
done

# 20. ^C to the process group while report.md is written: the folder keeps
# its .incomplete name, run.json says interrupted, exit 130.
wrap report 'kill -INT 0; sleep 0.2'
cp -r "$TMP/m.incomplete" "$TMP/int.incomplete"
"$PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' $MBBENCH sweep --mbbench "$TMP/wrap-report" --assemble "$TMP/int.incomplete" \
	>/dev/null 2>"$TMP/int.err"
rc=$?
"$PY" -c 'import json, sys; assert json.load(open(sys.argv[1]))["interrupted"] is True' "$TMP/int.incomplete/run.json" 2>/dev/null
r=$?
[ "$rc" -eq 130 ] && [ "$r" -eq 0 ] && [ ! -e "$TMP/int" ] && ! grep -q Traceback "$TMP/int.err"
ok $? "^C while report.md is written: exit $rc, int.incomplete kept and marked interrupted ($(grep -v '^#' "$TMP/int.err" | head -n 1))"

# 21-28. A full disk while finishing (root: a small tmpfs).
mkdir "$TMP/fs"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=4m tmpfs "$TMP/fs" 2>/dev/null; then
	fill='cat /dev/zero >"'$TMP/fs'/filler" 2>/dev/null'
	for step in plot report; do
		rm -rf "$TMP/fs/"*
		cp -r "$TMP/m.incomplete" "$TMP/fs/$step.incomplete"
		wrap "$step" "$fill"
		$MBBENCH sweep --mbbench "$TMP/wrap-$step" --assemble "$TMP/fs/$step.incomplete" >"$TMP/fs-$step.out" 2>"$TMP/fs-$step.err"
		rc=$?
		final_check "$TMP/fs/$step" "fs-$step"
		ok $? "a full disk at $step: exit $rc, one line, $step.incomplete kept: $(grep -v '^#' "$TMP/fs-$step.err" | head -n 2 | tr '\n' ' ')"
		! grep -q '^# results' "$TMP/fs-$step.out"
		ok $? "a full disk at $step: no '# results' line ($(cat "$TMP/fs-$step.out"))"
	done
	# The disk full before assembling, then read-only: one line each.
	rm -rf "$TMP/fs/"*
	cp -r "$TMP/m.incomplete" "$TMP/fs/asm.incomplete"
	cat /dev/zero >"$TMP/fs/filler" 2>/dev/null
	$MBBENCH sweep --assemble "$TMP/fs/asm.incomplete" >/dev/null 2>"$TMP/fs-asm.err"
	rc=$?
	final_check "$TMP/fs/asm" fs-asm
	ok $? "--assemble on a full disk: exit $rc, one line: $(head -n 2 "$TMP/fs-asm.err" | tr '\n' ' ')"
	rm -f "$TMP/fs/filler"
	mount -o remount,ro "$TMP/fs"
	$MBBENCH sweep --assemble "$TMP/fs/asm.incomplete" >/dev/null 2>"$TMP/fs-ro.err"
	rc=$?
	final_check "$TMP/fs/asm" fs-ro
	ok $? "--assemble on a read-only disk: exit $rc, one line: $(head -n 2 "$TMP/fs-ro.err" | tr '\n' ' ')"
	mount -o remount,rw "$TMP/fs"
	# A whole sweep on a disk with room for the points, not for the figures.
	rm -rf "$TMP/fs/"*
	umount "$TMP/fs"
	if mount -t tmpfs -o size=360k tmpfs "$TMP/fs" 2>/dev/null; then
		$SWEEP --mechanism null,fence --output "$TMP/fs/run" >"$TMP/fs-run.out" 2>"$TMP/fs-run.err"
		rc=$?
		if [ -s "$TMP/fs/run/report.md" ]; then
			[ "$rc" -eq 0 ]
		else
			[ "$rc" -ne 0 ] && [ ! -e "$TMP/fs/run" ]
		fi
		ok $? "a sweep on a 360 KB disk: exit $rc, finished only with every file: $(grep -v '^#' "$TMP/fs-run.err" | head -n 1)"
		umount "$TMP/fs"
	else
		skip "a sweep on a 360 KB disk: cannot mount a tmpfs"
	fi
else
	for i in 1 2 3 4 5 6 7; do skip "a full disk: needs root to mount a small tmpfs"; done
fi

# 28-30. vm: bad lists are one line and exit 2 naming the option, before
# anything is built (no static mbbench is given, so nothing could be).
for a in "--smp=" "--isolate=00" "--isolate=3-1"; do
	mkdir -p "$TMP/vm"
	(cd "$TMP/vm" && $MBBENCH vm isolation "${a%%=*}" "${a#*=}" --mbbench-static "$TMP/none") >/dev/null 2>"$TMP/vm.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/vm.err")" -eq 1 ] && grep -q -- "${a%%=*}" "$TMP/vm.err" &&
		[ -z "$(ls -A "$TMP/vm")" ]
	ok $? "vm isolation ${a%%=*} '${a#*=}': exit $rc, one line: $(head -n 2 "$TMP/vm.err" | tr '\n' ' ')"
done
done_testing
