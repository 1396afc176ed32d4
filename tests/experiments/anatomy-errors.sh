#!/bin/sh
# SPDX-License-Identifier: MIT
# anatomy's bad input: one line on stderr naming the fix, exit 2, nothing
# written (no --output folder, no --save-events file).
. "${top_srcdir:-.}/tests/lib.sh"

mkdir "$TMP/adir"
# name|args (split on spaces)
cases="barriers 0|anatomy --barriers 0
barriers 1|anatomy --barriers 1
barriers garbage|anatomy --barriers many
barriers huge|anatomy --barriers 99999999999
barriers below repeat|anatomy --barriers 5 --repeat 10
repeat 0|anatomy --repeat 0
threads 0|anatomy --threads 0
unknown mechanism|anatomy --mechanism nosuch
behaviour is not an option|anatomy --behaviour sleep
duration is not an option|anatomy --duration 1
stray argument|anatomy extra
save-events under a missing directory|anatomy --save-events $TMP/missing/ev.txt --output $TMP/out1
save-events naming a directory|anatomy --save-events $TMP/adir --output $TMP/out2
save-events in /proc|anatomy --save-events /proc/self/mbbench-ev.txt
output under a missing directory|anatomy --output $TMP/missing/dir --save-events $TMP/ev3.txt
contenders 0|anatomy --contenders 0 --output $TMP/out1 --save-events $TMP/ev3.txt
contenders 1|anatomy --contenders 1 --output $TMP/out1
contenders negative|anatomy --contenders -3 --output $TMP/out1
contenders huge|anatomy --contenders 100000 --output $TMP/out1 --save-events $TMP/ev3.txt
contenders garbage|anatomy --contenders two --output $TMP/out1"

n=$(printf '%s\n' "$cases" | wc -l)
plan $((n * 2 + 1))
while IFS='|' read -r name args; do
	usage_error "$name" "$args"
	[ ! -s "$TMP/out" ] && [ ! -e "$TMP/missing" ] && [ ! -e "$TMP/out1" ] && [ ! -e "$TMP/out2" ] &&
		[ ! -e "$TMP/ev3.txt" ] && [ -z "$(ls -A "$TMP/adir")" ]
	ok $? "$name: nothing written"
done <<CASES
$cases
CASES

# An existing --save-events file is kept without --force.
echo keep >"$TMP/ev.txt"
"$MBBENCH" anatomy --save-events "$TMP/ev.txt" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ "$(cat "$TMP/ev.txt")" = keep ]
ok $? "an existing --save-events file without --force: exit 2, kept ($(head -c 160 "$TMP/err"))"
done_testing
