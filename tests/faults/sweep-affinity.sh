#!/bin/sh
# SPDX-License-Identifier: MIT
# A sweep started with fewer CPUs allowed (taskset) than its plan needs is
# refused up front: exit 2, one line naming the fix (widen the mask, or
# choose experiments that fit), nothing made. Before, it skipped the
# points that needed more CPUs and left a folder that read as finished
# with disturb and anatomy missing. A plan that fits the mask still runs.
. "${srcdir:-.}/tests/lib.sh"
need_python
command -v taskset >/dev/null 2>&1 || { echo "1..0 # SKIP taskset not found (util-linux)"; exit 0; }
need_cpus 2 "a narrower affinity mask needs 2 CPUs"
plan 3
taskset -c 0 "$MBBENCH" sweep --quick --mechanism null,membarrier-private-expedited --budget 30 \
	--output "$TMP/narrow" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "affinity mask.*widen it (taskset -c 0-1)" "$TMP/err"
ok $? "taskset -c 0, a plan needing 2 CPUs: exit 2, one line naming the fix (rc=$rc: $(head -c 200 "$TMP/err"))"
[ ! -e "$TMP/narrow" ] && [ ! -e "$TMP/narrow.incomplete" ] && [ ! -s "$TMP/out" ]
ok $? "nothing made"
taskset -c 0 "$MBBENCH" sweep --quick --mechanism null --experiment calls,latency --budget 10 \
	--output "$TMP/fits" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ -s "$TMP/fits/report.md" ]
ok $? "taskset -c 0, a plan that fits one CPU: a finished folder (rc=$rc $(grep -v '^#' "$TMP/err" | head -c 150))"
done_testing
