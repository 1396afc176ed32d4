#!/bin/sh
# SPDX-License-Identifier: MIT
# anatomy --contenders: the entry -> queue phase traced alone and with other
# processes issuing the same command (a `setup-contended` row and its note),
# and no contender process left behind: not after a run, not after SIGTERM
# or SIGKILL of mbbench in the middle of one. Skips (exit 77) where the
# tracepoints cannot be had.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
need_cpus 2 "anatomy needs 2 CPUs"
need_mechanism membarrier-private-expedited
command -v setsid >/dev/null 2>&1 || { echo "1..0 # SKIP setsid not found"; exit 77; }

# The processes of session $1 still alive (zombies are dead), one pid a line.
alive_in_session() {
	for st in /proc/[0-9]*/stat; do
		# pid (comm) state ppid pgrp session: comm may hold blanks
		sed -n 's/^\([0-9]*\) (.*) \([A-Za-z]\) [0-9-]* [0-9-]* \([0-9-]*\) .*/\1 \2 \3/p' "$st" 2>/dev/null
	done | awk -v s="$1" '$3 == s && $2 != "Z" { print $1 }'
}

# On a loaded host the spinner may not be current when a barrier looks, the
# more so with contenders on the same CPUs: try up to 3 times.
try=0
while [ $try -lt 3 ]; do
	rm -rf "$TMP/a"
	setsid "$MBBENCH" anatomy --keep-degraded --mechanism membarrier-private-expedited --threads 2 --barriers 600 \
		--repeat 2 --contenders 3 --output "$TMP/a" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait $pid
	rc=$?
	left=$(alive_in_session "$pid")
	[ -n "$left" ] && break
	csv_cols "$TMP/a/anatomy-phases.csv" phase 2>/dev/null | grep -qx 'setup-contended\|to-ipi-contended' && break
	try=$((try + 1))
done
st=$(csv_cols "$TMP/a/anatomy.csv" status skip_reason 2>/dev/null)
case $st in
*'tracepoint '*'not found'*|*perf_event_open*|*'tracefs is not readable'*)
	echo "1..0 # SKIP no tracepoints here: $st"
	exit 77 ;;
esac
plan 4
"$PY" - "$TMP/a" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
row = next(csv.DictReader(open(os.path.join(d, "anatomy.csv"))))
ph = {r["phase"]: r for r in csv.DictReader(open(os.path.join(d, "anatomy-phases.csv"))) if r["target_cpu"] == "all"}
if row["status"] != "ok":
    print("# point skipped:", row["skip_reason"]); sys.exit(0)   # a loaded host: nothing sent
alone = "setup" if "setup" in ph else "to-ipi"
notes = json.load(open(os.path.join(d, "anatomy.json")))["notes"]
if alone + "-contended" not in ph:
    # three loaded runs: the reason must be said
    assert any("with contenders running no window was complete" in n for n in notes), notes
    print("# no contended window in 3 runs (a loaded host); its note was given"); sys.exit(0)
c = ph[alone + "-contended"]
assert int(c["samples"]) > 0 and float(c["p50_ns"]) > 0 and c["batches"] in ("1", "2"), c
assert any("with 3 callers issuing it (2 other processes" in n and "wait on the expedited mutex" in n for n in notes), notes
PY
ok $? "with --contenders 3: a setup-contended row beside the phase traced alone, and the note (rc=$rc)"
[ -z "$left" ]
ok $? "after the run no process of it is alive (left: ${left:-none})"

# Killed in the middle of a point: its contenders die with it.
for sig in TERM KILL; do
	rm -rf "$TMP/b"
	setsid "$MBBENCH" anatomy --keep-degraded --mechanism membarrier-private-expedited --threads 2 --barriers 5000000 \
		--repeat 2 --contenders 3 --output "$TMP/b" >/dev/null 2>&1 &
	pid=$!
	i=0
	seen=""
	while [ $i -lt 100 ]; do
		seen=$(alive_in_session "$pid" | while read -r p; do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = mbb-contender ] && echo "$p"; done)
		[ "$(printf '%s\n' "$seen" | grep -c .)" -ge 2 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	left=""
	j=0
	while [ $j -lt 50 ]; do
		left=$(alive_in_session "$pid")
		[ -z "$left" ] && break
		sleep 0.1
		j=$((j + 1))
	done
	[ -n "$seen" ] && [ -z "$left" ]
	ok $? "SIG$sig to mbbench while 2 contenders ran ($(echo $seen)): none survives (left: ${left:-none})"
	[ -z "$left" ] || kill -KILL $left 2>/dev/null
done
