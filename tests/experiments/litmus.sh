#!/bin/sh
# SPDX-License-Identifier: MIT
# Store buffering: r1 = r2 = 0 is never seen with a correct heavy barrier on
# one side (or a fence on both); the no-barrier control does show it, which
# proves the test can see a reordering on this host.
. "${top_srcdir:-.}/tests/lib.sh"

need_cpus 2 "needs two CPUs: on one CPU no store-buffer reordering is visible"
forbidden="fence-both membarrier-private-expedited signal mprotect"
plan 9
"$MBBENCH" litmus --pairing "none,$(echo $forbidden | tr ' ' ,)" --duration 0.3 \
	--format csv >"$TMP/l.csv" 2>"$TMP/err"
ok $? "litmus exits 0 ($(head -c 160 "$TMP/err"))"
col() { # pairing column
	csv_cols "$TMP/l.csv" pairing "$2" | awk -F'\t' -v p="$1" '$1 == p { print $2 }'
}
for p in $forbidden; do
	st=$(col "$p" status)
	if [ "$st" = skipped ]; then
		skip "$p unavailable: $(col "$p" skip_reason)"
		continue
	fi
	n=$(col "$p" r1_0_r2_0)
	[ "$st" = ok ] && [ "$n" = 0 ] && [ "$(col "$p" trials)" -gt 0 ]
	ok $? "$p: r1 = r2 = 0 seen $n times in $(col "$p" trials) trials"
done
# The control, up to three budgets of 0.3 s. What it needs is trials, not
# seconds: a host too slow (or too busy) to run many in the time given
# skips with the count; one that ran plenty and never showed the
# reordering fails.
seen=0 trials=0
for i in 1 2 3; do
	seen=$(col none r1_0_r2_0)
	trials=$((trials + $(col none trials)))
	diag "control run $i: r1 = r2 = 0 in $seen of $(col none trials) trials"
	[ "${seen:-0}" -gt 0 ] && break
	"$MBBENCH" litmus --pairing none --duration 0.3 --format csv >"$TMP/l.csv" 2>/dev/null
done
if [ "${seen:-0}" -eq 0 ] && [ "$trials" -lt 100000 ]; then
	skip "the no-barrier control ran only $trials trials in three budgets of 0.3 s (a slow or busy host) and saw no r1 = r2 = 0: too few to expect one"
else
	[ "${seen:-0}" -gt 0 ]
	ok $? "the no-barrier control shows r1 = r2 = 0 ($seen times; $trials trials)"
fi
# Every measured row has a Wilson interval around its rate.
if command -v python3 >/dev/null 2>&1; then
python3 - "$TMP/l.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] == "skipped":
        continue
    lo, x, hi = (float(r[k]) for k in ("forbidden_per_million_lo95", "forbidden_per_million", "forbidden_per_million_hi95"))
    assert 0 <= lo <= x <= hi <= 1e6 and hi > 0, r
PY
ok $? "litmus: each rate lies within its Wilson 95% interval, whose upper end is above 0"
else
	skip "litmus intervals: python3 not found (apt-get install python3)"
fi
# --repeat: each pairing runs N times with fresh threads; the counts are the
# sums and the spread of the N rates is the rate's CI.
"$MBBENCH" litmus --pairing none,fence-both --duration 0.1 --repeat 3 --format csv >"$TMP/r.csv" 2>"$TMP/err"
rc=$?
csv_cols "$TMP/r.csv" pairing repeats forbidden_per_million_ci95 r1_0_r2_0 r1_0_r2_1 r1_1_r2_0 r1_1_r2_1 trials |
awk -F'\t' '{ n[$1] = $2; ci[$1] = $3; s[$1] = $4 + $5 + $6 + $7; t[$1] = $8 }
	END { exit !(n["none"] == 3 && n["fence-both"] == 3 && ci["none"] != "" && ci["none"] >= 0 &&
		ci["fence-both"] == 0 && s["none"] == t["none"] && t["none"] > 0) }'
[ $rc -eq 0 ] && [ $? -eq 0 ]
ok $? "litmus --repeat 3: repeats 3, the outcomes sum to the trials, a CI on the control's rate, 0 on fence-both ($(head -c 120 "$TMP/err"))"
"$MBBENCH" litmus --pairing none --duration 0.1 --repeat 0 >"$TMP/o" 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/o" ]
ok $? "litmus --repeat 0: exit 2 and one line ($(cat "$TMP/err"))"
done_testing
