#!/bin/sh
# SPDX-License-Identifier: MIT
# Two runs into one output folder: the second is refused while the first
# lives (exit 2, one line naming the fix) and never touches the first's
# files. Before, two `mbbench calls --output D` both measured, and the first
# failed at the end (its files had "appeared during the run"), its error
# naming a freed path. The lock (flock on the folder) leaves no file and
# dies with its process, SIGKILL too. Two sweeps into one --output: the
# second is refused.
. "${srcdir:-.}/tests/lib.sh"
need_python
plan 8
D=$TMP/D
"$MBBENCH" calls --mechanism null --duration 1 --repeat 2 --threads 1 --format csv --output "$D" >/dev/null 2>"$TMP/e1" &
first=$!
i=0
while [ ! -d "$D" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
"$MBBENCH" calls --mechanism fence --iterations 100 --threads 1 --format csv --output "$D" >"$TMP/o2" 2>"$TMP/e2"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/e2")" -eq 1 ] && grep -q "another mbbench run is writing there: wait for it, or choose another folder" "$TMP/e2"
ok $? "a second calls into the folder while the first runs: exit 2, one line naming the fix (rc=$rc: $(head -c 160 "$TMP/e2"))"
wait $first
rc=$?
[ $rc -eq 0 ] && [ ! -s "$TMP/e1" ] && [ "$(csv_cols "$D/calls.csv" mechanism | sort -u)" = null ]
ok $? "the first finishes with its own files only (rc=$rc $(head -c 120 "$TMP/e1"))"
[ "$(ls -A "$D" | tr '\n' ' ')" = "calls.csv calls.json " ]
ok $? "nothing else is left in the folder: $(ls -A "$D" | tr '\n' ' ')"
# A run killed with SIGKILL leaves no lock: the next run goes ahead.
mkdir "$TMP/S"
"$MBBENCH" calls --mechanism null --duration 2 --threads 1 --format csv --output "$TMP/S" >/dev/null 2>&1 &
k=$!
sleep 0.5
kill -KILL $k
wait $k 2>/dev/null
"$MBBENCH" calls --mechanism null --iterations 100 --threads 1 --format csv --output "$TMP/S" >/dev/null 2>"$TMP/e3"
rc=$?
[ $rc -eq 0 ] && [ -s "$TMP/S/calls.csv" ] && [ "$(ls -A "$TMP/S" | tr '\n' ' ')" = "calls.csv calls.json " ]
ok $? "after a SIGKILLed run the next one goes ahead, nothing else left (rc=$rc $(head -c 120 "$TMP/e3"))"
# Bad input after --output is checked makes nothing, not even the folder.
"$MBBENCH" calls --mechanism null --iterations 10 --threads 1 --placement 4097 --output "$TMP/N" >/dev/null 2>&1
[ $? -eq 2 ] && [ ! -e "$TMP/N" ]
ok $? "a refused run leaves no folder and no lock"
# Two sweeps into one --output.
SW="$MBBENCH sweep --quick --mechanism null --experiment calls,latency --budget 20"
$SW --output "$TMP/W" >/dev/null 2>"$TMP/w1" &
first=$!
i=0
while [ ! -s "$TMP/W.incomplete/commands.txt" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
$SW --output "$TMP/W" >/dev/null 2>"$TMP/w2"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/w2")" -eq 1 ] && grep -q "another sweep is writing there" "$TMP/w2"
ok $? "a second sweep into the same --output: exit 2, one line (rc=$rc: $(head -c 160 "$TMP/w2"))"
wait $first
rc=$?
[ $rc -eq 0 ] && [ -s "$TMP/W/report.md" ] && [ ! -e "$TMP/W.incomplete" ]
ok $? "the first sweep finishes its folder (rc=$rc $(grep -v '^#' "$TMP/w1" | head -c 120))"
n=$(grep -c . "$TMP/W/commands.txt")
[ "$(sort -u "$TMP/W/commands.txt" | grep -c .)" -eq "$n" ] && ! grep -q "$TMP/W/.*\.lock" "$TMP/W/commands.txt"
ok $? "its commands are its own, once each ($n)"
done_testing
