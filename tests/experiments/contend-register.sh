#!/bin/sh
# SPDX-License-Identifier: MIT
# Concurrent callers and registration cost: real short runs, parsed back;
# bad input gets exit 2 and writes nothing.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON3:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
plan 9
if mechanism_available membarrier-private-expedited; then
	"$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited,signal --callers 1,2 \
		--mode both --duration 0.1 --repeat 2 --format csv >"$TMP/c.csv" 2>"$TMP/err"
	ok $? "contend with 1 and 2 callers, threads and processes, ran"
	"$PY" - "$TMP/c.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 8, len(rows)
for r in rows:
    assert r["status"] == "ok", r
    agg = float(r["aggregate_calls_per_s"])
    assert math.isfinite(agg) and agg > 0, r
    assert float(r["per_caller_min_calls_per_s"]) <= float(r["per_caller_max_calls_per_s"])
two = [r for r in rows if r["callers"] == "2"]
for r in two:
    # the aggregate is the sum over callers: at least each caller's minimum twice
    assert float(r["aggregate_calls_per_s"]) >= 2 * float(r["per_caller_min_calls_per_s"]) * 0.99, r
PY
	ok $? "2 callers: aggregate and per-caller rates reported, positive, consistent"
	"$MBBENCH" register --mechanism membarrier-private-expedited --threads 0,1 --repeat 2 \
		--format csv >"$TMP/r.csv" 2>"$TMP/err"
	"$PY" - "$TMP/r.csv" <<'PY'
import csv, sys
rows = {r["other_threads"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert set(rows) == {"0", "1"}, rows.keys()
for r in rows.values():
    assert r["status"] == "ok" and float(r["register_ns"]) > 0 and float(r["steady_barrier_ns"]) > 0, r
    assert r["register_command"] == "REGISTER_PRIVATE_EXPEDITED"
PY
	ok $? "registration timed with 0 and 1 other threads"
else
	skip "membarrier-private-expedited unavailable here"
	skip "membarrier-private-expedited unavailable here"
	skip "membarrier-private-expedited unavailable here"
fi
"$MBBENCH" register --mechanism fence --threads 0 --repeat 1 --format csv >"$TMP/f.csv"
[ "$(csv_cols "$TMP/f.csv" mechanism status skip_reason)" = "$(printf 'fence\tskipped\tfence needs no registration')" ]
ok $? "a mechanism without registration is a skipped row with its reason"

bad=0
for args in "contend --callers 0" "contend --callers 1025" "contend --callers x" \
	"contend --mode both-ways" "contend --spinners -1" "contend --iterations 5" \
	"register --threads -1" "register --threads 4096"; do
	# shellcheck disable=SC2086
	"$MBBENCH" $args --output "$TMP/o" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ] || [ -e "$TMP/o" ] || [ -s "$TMP/out" ]; then
		diag "$args: rc=$rc $(cat "$TMP/err")"
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ]
ok $? "bad callers/mode/spinners/threads: exit 2, one line, nothing written"
"$MBBENCH" contend --callers 2000 2>&1 | grep -q '1..1024'
ok $? "the caller limit (1024) is named in the error"
# Under a thread limit thread creation cannot be timed: an empty cell and a
# note, never -1 as if measured. Run as an unprivileged user with RLIMIT_NPROC 3.
if can_drop && command -v prlimit >/dev/null 2>&1; then
	mkdir "$TMP/np" && chmod 777 "$TMP" "$TMP/np"
	setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=3:3 \
		"$MBBENCH" register --mechanism membarrier-private-expedited --threads 0,1 --repeat 1 \
		--format csv --json "$TMP/np/r.json" >"$TMP/np/r.csv" 2>/dev/null
	"$PY" - "$TMP/np/r.csv" "$TMP/np/r.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
for r in rows:
    for c in ("thread_create_unregistered_ns", "thread_create_registered_ns"):
        assert r[c] == "" or float(r[c]) > 0, (c, r[c])
empty = any(r[c] == "" for r in rows if r["status"] == "ok"
            for c in ("thread_create_unregistered_ns", "thread_create_registered_ns"))
notes = json.load(open(sys.argv[2]))["notes"]
assert not empty or any("thread creation not measured" in n for n in notes), notes
PY
	ok $? "register under RLIMIT_NPROC 3: thread creation cells empty or positive, never -1, with a note"
else
	skip "register under a thread limit: needs root (to drop to an unprivileged user), setpriv, prlimit and a build tree nobody may reach"
fi
# An adaptive contend point: a warm-up, then 3 to --max-repeat repeats until
# the CI target, recorded in the row.
"$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited --callers 1 --mode threads \
	--duration 0.05 --repeat 2 --ci-target 50 --max-repeat 4 --format csv >"$TMP/ad.csv" 2>/dev/null &&
	csv_cols "$TMP/ad.csv" repeats ci_target_pct ci_achieved_pct ci_target_met |
	awk -F'\t' '{ exit !($1 >= 3 && $1 <= 4 && $2 == 50 && $3 != "" && ($4 == 1) == ($3 <= 50)) }'
ok $? "contend --ci-target 50 --max-repeat 4 (repeats, target, achieved, met: $(csv_cols "$TMP/ad.csv" repeats ci_target_pct ci_achieved_pct ci_target_met | tr '\t' ' '))"
"$MBBENCH" contend --ci-target 5 --repeat 3 --max-repeat 2 >"$TMP/ad2.out" 2>"$TMP/ad2.err"
[ $? -eq 2 ] && [ ! -s "$TMP/ad2.out" ] && [ "$(wc -l <"$TMP/ad2.err")" -eq 1 ]
ok $? "contend --max-repeat below --repeat: exit 2, $(cat "$TMP/ad2.err")"
done_testing
