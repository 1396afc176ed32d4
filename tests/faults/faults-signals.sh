#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals at random moments of a sweep and of disturb: SIGINT, SIGTERM and
# SIGKILL. The promise: no process of the run survives it, no SCHED_FIFO
# thread is left, every file under its final name is whole, and the folder
# is either complete and marked interrupted or keeps its .incomplete name.
# The moments are drawn from a seed printed here, so a failure can be
# repeated with FAULT_SEED.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 8
seed=${FAULT_SEED:-$(($(date +%s) % 100000))}
diag "FAULT_SEED=$seed"
delay() { # k: a delay of 0.2 to 2.5 s, the k-th of this seed
	awk -v s="$seed" -v k="$1" 'BEGIN { srand(s + k); printf "%.2f", 0.2 + 2.3 * rand() }'
}
# Processes still running whose command line names PATH (none: "").
survivors() {
	for _ in $(seq 10); do
		pgrep -f -- "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	pgrep -af -- "$1" | head -n 3
}
# The SCHED_FIFO processes whose parent is PID (its RT spinners).
rt_children() { ps -eo pid=,ppid=,cls= | awk -v p="$1" '$2 == p && $3 == "FF" { print $1 }'; }
# Which of these PIDs still run (a zombie has ended: it waits to be reaped).
alive() {
	for p in "$@"; do
		case $(ps -o stat= -p "$p" 2>/dev/null) in '' | Z*) ;; *) echo "$p" ;; esac
	done
}
# Start a sweep with SIGINT at its default: a background job of a
# non-interactive shell starts with SIGINT ignored, which a trap cannot undo.
sweep_bg() {
	exec "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
# Every file under its final name parses: JSON as JSON, CSV with one
# column count per file.
whole() {
	"$PY" - "$1" <<'PY'
import csv, json, os, sys
bad = []
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(root, f)
        if f.endswith(".tmp"):
            continue
        try:
            if f.endswith(".json"):
                json.load(open(p))
            elif f.endswith(".csv"):
                rows = list(csv.reader(open(p)))
                if rows and len({len(r) for r in rows}) != 1:
                    bad.append(p + ": ragged")
        except Exception as e:
            bad.append("%s: %s" % (p, e))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

SWEEP="$MBBENCH sweep --quick --keep-degraded --mechanism null,fence,membarrier-global"
# 1-2 SIGINT, 3-4 SIGTERM: exit 130/143, a whole folder marked interrupted.
k=0
for sig in INT TERM; do
	k=$((k + 1))
	out="$TMP/$sig"
	sweep_bg $SWEEP --out-root "$out" >"$TMP/$sig.out" 2>"$TMP/$sig.err" &
	pid=$!
	wait_sweep_started "$out"
	d=$(delay $k)
	sleep "$d"
	kill -"$sig" $pid 2>/dev/null
	wait $pid
	rc=$?
	folder=$(ls -d "$out"/*/ 2>/dev/null | head -n 1)
	left=$(survivors "$out")
	want=130
	[ "$sig" = TERM ] && want=143
	# (The sweep runs for 8 s or more: the signal comes before its end.)
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["interrupted"] is True' \
		"$folder/run.json" 2>/dev/null
	r=$?
	[ "$rc" -eq "$want" ] && [ "$r" -eq 0 ] && [ -z "$left" ] &&
		[ -z "$(find "$out" -name '*.tmp')" ] && [ -z "$(ls -d "$out"/*.incomplete 2>/dev/null)" ]
	ok $? "SIG$sig after ${d}s: exit $rc, a whole folder marked interrupted, no survivor (${left:-none})"
	bad=$(whole "$folder")
	ok $? "SIG$sig: every file whole (${bad:-all parse})"
done

# 5-6 SIGKILL: nothing can be finished, so the folder keeps its
# .incomplete name, the point being measured dies with the sweep, and the
# files under final names are whole.
out="$TMP/KILL"
$SWEEP --out-root "$out" >/dev/null 2>&1 &
pid=$!
wait_sweep_started "$out"
d=$(delay 3)
sleep "$d"
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
left=$(survivors "$out")
inc=$(ls -d "$out"/*.incomplete 2>/dev/null | head -n 1)
fin=$(ls -d "$out"/* 2>/dev/null | grep -v '\.incomplete$')
[ -z "$left" ] && { [ -n "$inc" ] || [ -n "$fin" ]; } && { [ -z "$inc" ] || [ -z "$fin" ]; }
ok $? "SIGKILL after ${d}s: no survivor (${left:-none}), the folder ${inc:+keeps .incomplete}${fin:+finished before the signal}"
bad=$(whole "$out")
ok $? "SIGKILL: every file under its final name whole (${bad:-all parse})"

# 7-8 SIGKILL to disturb while RT spinners run (root): none is left.
if [ "$(id -u)" -eq 0 ] && [ "$(nproc)" -ge 2 ]; then
	"$MBBENCH" disturb --mechanism membarrier-global --roles foreign-rt --duration 3 \
		--output "$TMP/dist" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 30); do [ -n "$(rt_children $pid)" ] && break; sleep 0.1; done
	had=$(rt_children $pid | tr '\n' ' ')
	sleep "$(delay 4 | awk '{ printf "%.2f", $1 / 3 }')"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	sleep 0.5
	# shellcheck disable=SC2086
	rt=$(alive $had | tr '\n' ' ')
	[ -n "$had" ] && [ -z "$rt" ]
	ok $? "SIGKILL to disturb: its SCHED_FIFO spinner ran (${had:-none seen}) and is gone (${rt:-none left})"
	[ -z "$(ls -A "$TMP/dist" 2>/dev/null | grep -v '\.tmp$')" ]
	ok $? "SIGKILL to disturb: no file under a final name ($(ls -A "$TMP/dist" 2>/dev/null | tr '\n' ' '))"
else
	skip "SIGKILL to disturb's RT spinner: needs root and 2 CPUs"
	skip "SIGKILL to disturb's files: needs root and 2 CPUs"
fi
done_testing
