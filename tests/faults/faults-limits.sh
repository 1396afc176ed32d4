#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench and the sweep under host limits: a thread/process limit
# (RLIMIT_NPROC), a file limit (RLIMIT_NOFILE), an affinity mask (taskset),
# an unprivileged user and a CPU-time limit (RLIMIT_CPU). Each asserts the promise: the run ends promptly,
# what cannot be measured is a skipped row or a one-line error with its exit
# status, and what is measured stays inside the limits it was given.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 15
chmod 755 "$TMP"
col_values() { # file column: the column's values, space-separated ("?" where it lacks it)
	"$PY" - "$@" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(" ".join(r.get(sys.argv[2], "?") for r in rows))
PY
}
# skipped_row FILE ERE: 0 when a row is skipped with a skip_reason matching ERE.
skipped_row() {
	csv_cols "$1" status skip_reason | awk -F'\t' -v re="$2" '$1 == "skipped" && $2 ~ re { f = 1 } END { exit !f }'
}
# first_skip FILE: the skip_reason of the first skipped row.
first_skip() { csv_cols "$1" status skip_reason | awk -F'\t' '$1 == "skipped" { print $2; exit }'; }

# 1-2. A thread limit: pthread_create fails in the middle of starting a
# team; the run ends (no worker left waiting for the others) with a skipped
# row naming the error.
# As root: the user nobody, running nothing else, with a limit of 5 tasks
# for 8 threads or caller processes. As another user: the tasks it runs now
# plus 2. Either way a team starts in part, then creating a thread or a
# process fails.
limited=
T=8
if can_drop && command -v prlimit >/dev/null 2>&1; then
	limited="as_nobody prlimit --nproc=5:5"
elif [ "$(id -u)" -ne 0 ] && command -v prlimit >/dev/null 2>&1; then
	limited="prlimit --nproc=$(($(ps -L -U "$(id -u)" --no-headers | wc -l) + 2))"
	T=64	# more than the few tasks the user's other processes may free
fi
if [ -n "$limited" ]; then
	$limited timeout 30 "$MBBENCH" calls --mechanism null \
		--threads $T --duration 0.05 --format csv >"$TMP/np.csv" 2>"$TMP/np.err"
	rc=$?
	[ "$rc" -eq 0 ] && csv_cols "$TMP/np.csv" mechanism threads status skip_reason |
		awk -F'\t' -v t="$T" '$1 == "null" && $2 == t && $3 == "skipped" && $4 ~ /^pthread_create: / { f = 1 } END { exit !f }'
	ok $? "calls under RLIMIT_NPROC: exit $rc (124 is a hang), a skipped row: $(first_skip "$TMP/np.csv")"
	$limited timeout 30 "$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited \
		--callers $((T / 2)) --mode processes --duration 0.05 --format csv >"$TMP/npc.csv" 2>"$TMP/npc.err"
	rc=$?
	[ "$rc" -eq 0 ] && skipped_row "$TMP/npc.csv" '^[a-z_]*: '
	ok $? "contend processes under RLIMIT_NPROC: exit $rc, a skipped row: $(first_skip "$TMP/npc.csv")"
else
	skip "calls under RLIMIT_NPROC: needs prlimit, and as root setpriv and a build tree nobody may reach"
	skip "contend under RLIMIT_NPROC: needs prlimit, and as root setpriv and a build tree nobody may reach"
fi

# 3-4. A file limit of 4 (stdin, stdout, stderr and one more; the files
# the test driver holds open are closed first): measuring
# works; every output file of a run is written, all or none; disturb counts
# IPIs from /proc/interrupts when it cannot open the tracepoints, and says so.
if command -v prlimit >/dev/null 2>&1; then
	nf=4
	# Close every descriptor above 2, then run with the limit.
	closed() { "$PY" -c 'import os, sys; os.closerange(3, 65536); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
	closed prlimit --nofile=$nf:$nf "$MBBENCH" latency --mechanism null --duration 0.05 \
		--output "$TMP/nf" >/dev/null 2>"$TMP/nf.err"
	rc=$?
	files=$(ls "$TMP/nf" 2>/dev/null | tr '\n' ' ')
	[ "$rc" -eq 0 ] && [ "$files" = "latency-histogram.csv latency.csv latency.json " ] ||
		{ [ "$rc" -ne 0 ] && [ -z "$files" ] && [ "$(wc -l <"$TMP/nf.err")" -eq 1 ]; }
	ok $? "latency under RLIMIT_NOFILE=$nf: exit $rc, files: ${files:-none}"
	closed prlimit --nofile=$nf:$nf "$MBBENCH" disturb --mechanism membarrier-global --roles self-spin \
		--duration 0.1 --format csv >"$TMP/nfd.csv" 2>"$TMP/nfd.err"
	rc=$?
	src=$(col_values "$TMP/nfd.csv" ipi_source | tr ' ' '\n' | sort -u | tr '\n' ' ')
	[ "$rc" -eq 0 ] && [ -n "$src" ] && ! echo "$src" | grep -q '?'
	ok $? "disturb under RLIMIT_NOFILE=$nf: exit $rc, IPIs counted from: $src"
else
	skip "latency under RLIMIT_NOFILE: needs prlimit (util-linux)"
	skip "disturb under RLIMIT_NOFILE: needs prlimit (util-linux)"
fi

# 5-8. An affinity mask: threads are placed inside it (the topology is cut
# to it), a note counts the CPUs really shared, disturb picks its caller in
# it, and one usable CPU is a usage error naming taskset.
if [ "$(nproc --all)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	last=$(($(nproc --all) - 1))
	taskset -c "$last" "$MBBENCH" calls --mechanism null --threads 1-2 --duration 0.05 \
		--format csv >"$TMP/ts.csv" 2>"$TMP/ts.err"
	rc=$?
	cpus=$(col_values "$TMP/ts.csv" cpus)
	[ "$rc" -eq 0 ] && [ "$cpus" = "$last $last;$last" ]
	ok $? "calls under taskset -c $last: exit $rc, threads on CPUs '$cpus'"
	taskset -c "$last" "$MBBENCH" calls --mechanism null --threads 2 --duration 0.05 >"$TMP/ts.txt" 2>&1
	grep -q 'oversubscribed (2 threads on 1 CPU)' "$TMP/ts.txt"
	ok $? "the oversubscription note counts the CPUs the threads share: $(grep -o 'oversubscribed ([^)]*)' "$TMP/ts.txt")"
	taskset -c "$last" "$MBBENCH" disturb --mechanism membarrier-global --roles self-spin \
		--duration 0.1 --format csv >"$TMP/tsd.csv" 2>"$TMP/tsd.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ ! -s "$TMP/tsd.csv" ] && [ "$(wc -l <"$TMP/tsd.err")" -eq 1 ] &&
		grep -q "may run on CPU $last only.*taskset" "$TMP/tsd.err"
	ok $? "disturb with one usable CPU: exit $rc, $(cat "$TMP/tsd.err")"
	"$MBBENCH" info --json "$TMP/info.json" >/dev/null 2>&1 &&
		taskset -c "$last" "$MBBENCH" info --json "$TMP/info1.json" >/dev/null 2>&1 &&
		json_val "$TMP/info.json" host cpus_allowed | grep -qx '0-[0-9]* (every online CPU)' &&
		json_val "$TMP/info1.json" host cpus_allowed | grep -q "^$last (1 of"
	ok $? "the affinity mask is a host fact: $(json_val "$TMP/info1.json" host cpus_allowed)"
else
	for k in 1 2 3 4; do skip "affinity masks: needs 2 CPUs and taskset"; done
fi

# 9-12. An unprivileged user: measures what it may, skips the rest with the
# reason, and a sweep completes into a folder of its own.
if can_drop; then
	as_nobody "$MBBENCH" disturb --mechanism membarrier-global --roles foreign-rt \
		--duration 0.1 --format csv >"$TMP/nr.csv" 2>"$TMP/nr.err"
	rc=$?
	[ "$rc" -eq 0 ] && skipped_row "$TMP/nr.csv" 'SCHED_FIFO needs root or CAP_SYS_NICE'
	ok $? "disturb foreign-rt as nobody: exit $rc, skipped with the reason"
	as_nobody "$MBBENCH" calls --keep-degraded --mechanism membarrier-private-expedited --threads 2 \
		--duration 0.05 --format csv >"$TMP/nrc.csv" 2>"$TMP/nrc.err"
	rc=$?
	[ "$rc" -eq 0 ] && csv_cols "$TMP/nrc.csv" status | grep -qx ok
	ok $? "calls as nobody: exit $rc, measured"
	as_nobody "$MBBENCH" latency --mechanism null --duration 0.05 --output /root/mbbench-nr >/dev/null 2>"$TMP/nro.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ ! -e /root/mbbench-nr ] && [ "$(wc -l <"$TMP/nro.err")" -eq 1 ]
	ok $? "an output path nobody may not write: exit $rc, $(cat "$TMP/nro.err")"
	mkdir "$TMP/nrs" && chown 65534:65534 "$TMP/nrs"
	as_nobody "$MBBENCH" sweep --quick --mechanism null --output "$TMP/nrs/run" \
		>"$TMP/nrs.out" 2>"$TMP/nrs.err"
	rc=$?
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["points_done"] == 3' "$TMP/nrs/run/run.json" 2>/dev/null
	r=$?
	[ "$rc" -eq 0 ] && [ "$r" -eq 0 ]
	ok $? "a sweep as nobody: exit $rc, a whole folder ($(tail -n 1 "$TMP/nrs.out"))"
else
	for k in 1 2 3 4; do skip "an unprivileged user: needs root (to drop to nobody), setpriv and a build tree nobody may reach"; done
fi
# 13. The cases above are skipped, not failed, where nobody cannot reach the
# build (a package built under a 0700 directory): an mbbench behind one
# ($TMP is made 0700 by mktemp -d) must not pass can_drop.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir "$TMP/priv" && chmod 700 "$TMP" "$TMP/priv" && cp "$MBBENCH" "$TMP/priv/mbbench"
	(MBBENCH=$TMP/priv/mbbench; ! can_drop)
	ok $? "an mbbench under a 0700 directory is not one nobody can run"
else
	skip "can_drop under a 0700 directory: needs root and setpriv"
fi
# 14-15. A CPU-time limit counts each process's CPU, the sweep's own
# included: under one shorter than the run the kernel killed the sweep's
# driver partway with SIGKILL. It is refused before anything is made, in one
# line naming the limit; a limit the plan fits in runs to a whole folder.
if command -v prlimit >/dev/null 2>&1; then
	prlimit --cpu=1 "$MBBENCH" sweep --quick --output "$TMP/cpu1" >"$TMP/cpu1.out" 2>"$TMP/cpu1.err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/cpu1.err")" -eq 1 ] &&
		grep -q 'CPU-time limit of 1 s per process.*raise it (ulimit -t [0-9]*)' "$TMP/cpu1.err" &&
		[ ! -e "$TMP/cpu1" ] && [ ! -e "$TMP/cpu1.incomplete" ] && [ ! -s "$TMP/cpu1.out" ] &&
		[ -z "$(pgrep -f "$TMP/cpu1")" ]
	ok $? "sweep under prlimit --cpu=1: refused up front, exit $rc, nothing made ($(cat "$TMP/cpu1.err"))"
	need=$("$MBBENCH" sweep --quick --mechanism null --experiment calls --plan |
		sed -n 's/^# predicted: \([0-9]*\) s.*/\1/p')
	prlimit --cpu=$((need * 3 / 2)) "$MBBENCH" sweep --quick --mechanism null --experiment calls \
		--output "$TMP/cpuok" >"$TMP/cpuok.out" 2>"$TMP/cpuok.err"
	rc=$?
	[ "$rc" -eq 0 ] && [ -s "$TMP/cpuok/report.md" ] && [ ! -e "$TMP/cpuok.incomplete" ]
	ok $? "sweep under a CPU-time limit the plan fits in ($((need * 3 / 2)) s): exit $rc, a whole folder"
else
	for k in 1 2; do skip "a CPU-time limit: needs prlimit"; done
fi
done_testing
