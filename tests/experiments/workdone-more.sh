#!/bin/sh
# SPDX-License-Identifier: MIT
# The work done beside the cost in contend, rcu and anatomy: the work
# columns are in the schema, a busy process pinned to the CPU of the thread
# the barriers should interrupt makes the point's repeats degraded (the row
# `degraded`, its reason, no figure), and an oversubscribed point is marked
# with its shares, never degraded.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/workdone-lib.sh"
plan 6

# FILE: 0 when every row is degraded, with its reason and no figure (COLUMN)
all_degraded() { # FILE FIGURE-COLUMN
	"$PY" - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
assert rows, "no rows"
for r in rows:
    assert r["status"] == "degraded", r
    # The reason names the target's CPU: "a target thread was on its CPU
    # 52%", or, when too few IPIs arrived while the targets kept most of
    # their time, "0.55 IPIs per barrier ... with the targets on their CPUs 92%".
    assert int(r["repeats_degraded"]) >= 1 and \
        ("on its CPU" in r["skip_reason"] or "on their CPUs" in r["skip_reason"]), r
    assert r[sys.argv[2]] == "", r
PY
}

work_cols contend rcu anatomy
ok $? "the work columns are in mbbench schema (contend, rcu, anatomy)"

# contend, processes mode, C=1: its spinner is on CPU 1 with the hog.
hog 30
sleep 0.2
"$MBBENCH" contend --mechanism $MECH --callers 1 --mode processes --spinners 1 --placement 0,1 \
	--repeat 2 --duration 40ms --format csv >"$TMP/contend.csv" 2>"$TMP/err" &&
	all_degraded "$TMP/contend.csv" aggregate_calls_per_s
ok $? "contend: a hog on the spinner's CPU makes the row degraded ($(csv_col "$TMP/contend.csv" skip_reason))"

# rcu: one reader on CPU 1 with the hog, the writer on CPU 0.
"$MBBENCH" rcu --scheme $MECH --readers 1 --writers 1 --placement 1,0 --repeat 2 --duration 40ms \
	--format csv >"$TMP/rcu.csv" 2>"$TMP/err" && all_degraded "$TMP/rcu.csv" reads_per_s
ok $? "rcu: a hog on the reader's CPU makes the row degraded ($(csv_col "$TMP/rcu.csv" skip_reason))"

# anatomy needs tracefs and root; without them its rows are skipped.
"$MBBENCH" anatomy --mechanism $MECH --threads 2 --placement 0,1 --barriers 400 --repeat 2 \
	--format csv >"$TMP/ana.csv" 2>"$TMP/err"
if [ "$(csv_col "$TMP/ana.csv" status)" = skipped ]; then
	skip "anatomy is skipped here: $(csv_col "$TMP/ana.csv" skip_reason)"
else
	all_degraded "$TMP/ana.csv" untraced_ns
	ok $? "anatomy: a hog on the target's CPU makes the row degraded ($(csv_col "$TMP/ana.csv" skip_reason))"
fi
kill $hog_pid 2>/dev/null
wait $hog_pid 2>/dev/null

# Oversubscribed (2 callers and a spinner on 2 CPUs): marked, never degraded.
"$MBBENCH" contend --mechanism $MECH --callers 2 --mode threads --spinners 1 --repeat 2 \
	--duration 30ms --format csv >"$TMP/over.csv" 2>"$TMP/err"
[ "$(csv_col "$TMP/over.csv" status)" = ok ] && [ "$(csv_col "$TMP/over.csv" oversubscribed)" = 1 ] &&
	[ "$(csv_col "$TMP/over.csv" repeats_degraded)" = 0 ] &&
	[ -n "$(csv_col "$TMP/over.csv" target_oncpu_share)" ]
ok $? "contend oversubscribed: ok, marked with its shares, never degraded ($(csv_cols "$TMP/over.csv" ipis_per_barrier target_oncpu_share | tr '\t' ' '))"

# --keep-degraded keeps them in the figure, counted (for checks of output).
hog 30
sleep 0.2
"$MBBENCH" contend --keep-degraded --mechanism $MECH --callers 1 --mode processes --spinners 1 \
	--placement 0,1 --repeat 2 --duration 30ms --format csv >"$TMP/keep.csv" 2>"$TMP/err"
kill $hog_pid 2>/dev/null
wait $hog_pid 2>/dev/null
[ "$(csv_col "$TMP/keep.csv" status)" = ok ] && [ "$(csv_col "$TMP/keep.csv" repeats_degraded)" -ge 1 ] &&
	[ -n "$(csv_col "$TMP/keep.csv" aggregate_calls_per_s)" ]
ok $? "--keep-degraded: the row keeps its figure and counts the degraded repeats ($(csv_cols "$TMP/keep.csv" status repeats_degraded | tr '\t' ' '))"
done_testing
