#!/bin/sh
# SPDX-License-Identifier: MIT
# The bad inputs of the newer options, one class each: a preset besides
# --ab, --plant-syscall out of range or not a number (in the sweep and in
# each experiment that takes it), and calibrate's --mechanism naming no
# mechanism (it was read as a known one that "makes none"). Each is one
# line naming the fix, exit 2, nothing written and no process left.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 4
cd "$TMP" || exit 1

# check CLASS GREP ARGS...: exit 2, one line matching GREP, no stdout, no folder, no process
bad=
check() {
	class=$1 want=$2
	shift 2
	"$MBBENCH" "$@" >out 2>err
	rc=$?
	left=$(pgrep -f "$TMP/o" 2>/dev/null | tr '\n' ' ')
	{ [ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q -- "$want" err && [ ! -s out ] &&
		[ ! -e o ] && [ ! -e o.incomplete ] && [ -z "$left" ]; } ||
		bad="$bad [$class: $*: rc $rc, $(head -c 160 err)${left:+, left $left}]"
	rm -rf o o.incomplete
}

bad=
for p in --quick --full; do
	check "another preset" "choose one preset" sweep --ab "$p" --output "$TMP/o"
	check "another preset" "choose one preset" sweep "$p" --ab --plan --output "$TMP/o"
done
[ -z "$bad" ]
ok $? "sweep --ab with another preset: one line, exit 2, nothing written (${bad:-none wrong})"

bad=
for v in 0 -5 x 1e3 10000001 99999999999 "" " 5"; do
	check "--plant-syscall '$v'" "plant-syscall" sweep --ab --plant-syscall "$v" --plan --output "$TMP/o"
done
[ -z "$bad" ]
ok $? "sweep --plant-syscall: out of range, not a number or empty: one line, exit 2 (${bad:-none wrong})"

bad=
for e in calls latency distance contend; do
	for v in 0 x 10000001 ""; do
		check "$e --plant-syscall '$v'" "plant-syscall" "$e" --plant-syscall "$v" --output "$TMP/o"
	done
done
check "doctor --plant-syscall" "unknown option" doctor --plant-syscall 5 --output "$TMP/o"
[ -z "$bad" ]
ok $? "the experiments' --plant-syscall, and doctor's lack of it: one line, exit 2 (${bad:-none wrong})"

# calibrate: a name that is no mechanism is said so, with the valid ones,
# before --at syscall judges it (scipy is needed before the options).
if "$PY" -c 'import scipy' 2>/dev/null; then
	bad=
	for m in nosuch membarrier-private-expedited,nosuch "membarrier-private-expedited,,null"; do
		check "calibrate --mechanism $m" "unknown mechanism '.*' for --mechanism (valid: membarrier-global, " \
			calibrate --plant 10 --mechanism "$m" --output "$TMP/o"
	done
	grep -q "makes none" err && bad="$bad [the unknown name was judged by --at syscall]"
	[ -z "$bad" ]
	ok $? "calibrate --mechanism with an unknown name: named unknown, the valid ones listed (${bad:-none wrong})"
else
	skip "python3-scipy not found: calibrate does not start"
fi
done_testing
