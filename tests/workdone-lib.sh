# SPDX-License-Identifier: MIT
# Shared by the work-done tests (sourced after tests/lib.sh): skip where
# the target's IPIs or its on-CPU share cannot be read, a busy loop pinned
# to the target's CPU (1), and the check that the work columns are in the
# schema of some tables.
need_python
need_cpus 2 "needs 2 CPUs: the target spins on a CPU besides the caller's"

MECH=membarrier-private-expedited
mechanism_available "$MECH" || {
	echo "1..0 # SKIP $MECH is not available here"
	exit 0
}
[ -r /proc/self/schedstat ] || {
	echo "1..0 # SKIP /proc/PID/schedstat is missing (a kernel without CONFIG_SCHED_INFO)"
	exit 0
}

# A busy loop on CPU 1 (the target's, or the reader's), for at most
# SECONDS whatever happens to the test.
hog() { # SECONDS
	taskset -c 1 timeout "$1" sh -c 'while :; do :; done' &
	hog_pid=$!
}
trap 'kill $hog_pid 2>/dev/null; release_tree "$TMP"' EXIT

# work_cols TABLE...: 0 when each table's schema has the work columns.
work_cols() {
	"$MBBENCH" schema --format json | "$PY" -c '
import json, sys
s = json.load(sys.stdin)
tables = {t["name"]: t for t in s["tables"]} if isinstance(s.get("tables"), list) else s["tables"]
for t in sys.argv[1:]:
    cols = {c["name"] for c in tables[t]["columns"]}
    assert {"ipis_per_barrier", "target_oncpu_share", "steal_share", "repeats_degraded", "degraded_reason"} <= cols, t
' "$@"
}
