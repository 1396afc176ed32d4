#!/bin/sh
# SPDX-License-Identifier: MIT
# A list that names a point twice (--threads 1,1 or 2,1-2, --callers 1,1,
# a mechanism, role, level, scheme or pairing twice) measures it once,
# where it first appears, in every command that takes a list (mbbench(1),
# --threads): never a refusal, never a point measured twice.
. "${srcdir:-.}/tests/lib.sh"
plan 9
rows() { # FILE COLUMNS...: the named cells, one row a line
	csv_cols "$@" | tr '\t' ' '
}
"$MBBENCH" calls --mechanism null --iterations 100 --threads 2,1-2,2 --format csv >"$TMP/c.csv" 2>"$TMP/e"
ok $? "calls --threads 2,1-2,2 runs ($(head -c 120 "$TMP/e"))"
[ "$(rows "$TMP/c.csv" threads | tr '\n' ' ')" = "2 1 " ]
ok $? "each count once, in the order first given: $(rows "$TMP/c.csv" threads | tr '\n' ' ')"
"$MBBENCH" calls --mechanism null,fence,null --iterations 100 --threads 1,1 --format csv >"$TMP/m.csv" 2>"$TMP/e"
[ $? -eq 0 ] && [ "$(rows "$TMP/m.csv" mechanism threads | tr '\n' '|')" = "null 1|fence 1|" ]
ok $? "a mechanism and a count given twice: one row each ($(rows "$TMP/m.csv" mechanism threads | tr '\n' '|'))"
"$MBBENCH" contend --mechanism fence --duration 0.01 --repeat 1 --mode threads --callers 1,1 --format csv >"$TMP/k.csv" 2>"$TMP/e"
[ $? -eq 0 ] && [ "$(rows "$TMP/k.csv" callers | sort -u | tr '\n' ' ')" = "1 " ] &&
	[ "$(rows "$TMP/k.csv" callers mode | sort | uniq -d)" = "" ]
ok $? "contend --callers 1,1 runs C=1 once ($(head -c 120 "$TMP/e"))"
"$MBBENCH" register --mechanism membarrier-private-expedited --threads 0,0,1 --repeat 1 --format csv >"$TMP/r.csv" 2>"$TMP/e"
rc=$?
[ $rc -eq 0 ] && [ "$(rows "$TMP/r.csv" other_threads | tr '\n' ' ')" = "0 1 " ] || rows "$TMP/r.csv" status | grep -qx skipped
ok $? "register --threads 0,0,1 (other threads): 0 and 1 once (rc=$rc $(head -c 120 "$TMP/e"))"
"$MBBENCH" rcu --scheme mb,mb --duration 0.01 --repeat 1 --format csv >"$TMP/u.csv" 2>"$TMP/e"
[ $? -eq 0 ] && [ "$(rows "$TMP/u.csv" scheme | sort | uniq -d)" = "" ]
ok $? "rcu --scheme mb,mb: one row per point ($(head -c 120 "$TMP/e"))"
"$MBBENCH" plan --quick --threads 2,1-2 --callers 1,1 --mechanism null,null --format lines >"$TMP/p" 2>"$TMP/e"
[ $? -eq 0 ] && grep -q -- '--threads 2,1 ' "$TMP/p" && ! grep -q -- '--callers 1,1' "$TMP/p"
ok $? "plan merges --threads, --callers and --mechanism ($(grep -m1 -o -- '--threads [^ ]*' "$TMP/p"))"
"$MBBENCH" sweep --plan --threads 1,1 --callers 1,1 >"$TMP/s" 2>"$TMP/e"
[ $? -eq 0 ] && grep -q '^# threads (calls): 1$' "$TMP/s" && grep -q '^# callers (contend): 1$' "$TMP/s"
ok $? "sweep --plan plans each count once ($(grep '^# threads' "$TMP/s"))"
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	"$MBBENCH" disturb --mechanism null --roles idle,idle --duration 0.01 --format csv >"$TMP/d.csv" 2>"$TMP/e"
	ok $? "disturb --roles idle,idle is one role ($(head -c 120 "$TMP/e"))"
else
	skip "disturb --roles needs 2 CPUs"
fi
done_testing
