#!/bin/sh
# SPDX-License-Identifier: MIT
# A results folder argument that is empty, too long for the system, or a
# file (compare given run.json), and an output path too long: one line that
# names the fix ("give ...", "choose ..."), exit 2, nothing written, in
# every command that takes one. Before, these said "is not a directory" or
# "File name too long" and left the reader to guess.
. "${srcdir:-.}/tests/lib.sh"
need_python
R=$(cd "${srcdir:-.}" && pwd)/results/reference/vm-quick-20261203T141826Z
need_reference "$R"
mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 1
long=$TMP/$(printf '%0300d' 0)
deep=$TMP$(printf '/%0200d' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21)
try() { # NAME FIX-WORDS CMD...
	_n=$1 _w=$2
	shift 2
	"$@" </dev/null >"$TMP/out" 2>"$TMP/err"
	_rc=$? _l=$(wc -l <"$TMP/err")
	[ $_rc -eq 2 ] && [ "$_l" -eq 1 ] && grep -Eq "$_w" "$TMP/err" && [ -z "$(ls -A)" ] && [ ! -s "$TMP/out" ]
	ok $? "$_n: one line naming the fix, exit 2 (rc=$_rc, $_l lines: $(cut -c 1-70,300- "$TMP/err" | head -c 220))"
}
plan 20
for c in report plot; do
	try "$c ''" "give the path of a results folder" "$MBBENCH" $c ''
	try "$c FILE" "is a file, not a results folder: give the folder itself \\($R\\)" "$MBBENCH" $c "$R/run.json"
	try "$c LONG-NAME" "too long a path.*give a shorter one" "$MBBENCH" $c "$long"
	try "$c LONG-PATH" "too long a path.*give a shorter one" "$MBBENCH" $c "$deep"
done
try "compare '' RUN" "give the path of a results folder" "$MBBENCH" compare '' "$R"
try "compare FILE RUN" "is a file, not a results folder: give the folder itself \\($R\\)" "$MBBENCH" compare "$R/run.json" "$R"
try "compare RUN FILE" "is a file, not a results folder: give the folder itself" "$MBBENCH" compare "$R" "$R/calls.csv"
try "compare LONG RUN" "too long a path.*give a shorter one" "$MBBENCH" compare "$long" "$R"
try "advise --results FILE" "is a file, not a results folder: give the folder itself" "$MBBENCH" advise --validate --results "$R/rcu.csv"
try "advise --results LONG" "too long a path.*give a shorter one" "$MBBENCH" advise --validate --results "$deep"
try "report --output LONG" "too long a path.*choose a shorter name" "$MBBENCH" report "$R" --output "$long"
try "compare --output LONG" "too long a path.*choose a shorter name" "$MBBENCH" compare "$R" "$R" --output "$long"
try "calibrate --output LONG" "too long a path.*choose a shorter name" "$MBBENCH" calibrate --plant 5 --output "$long"
try "sweep --output LONG" "too long a path.*choose a shorter one" "$MBBENCH" sweep --output "$long"
try "calls --output LONG" "choose a shorter one" "$MBBENCH" calls --mechanism null --iterations 10 --output "$long"
try "calls --json LONG-PATH" "choose a shorter one" "$MBBENCH" calls --mechanism null --iterations 10 --json "$deep"
done_testing
