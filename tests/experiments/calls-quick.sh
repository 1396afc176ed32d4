#!/bin/sh
# SPDX-License-Identifier: MIT
# A quick calls run over every mechanism: each available one gives a positive,
# finite rate; each unavailable one is a skipped row with its reason, never 0.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON3:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
plan 4
"$MBBENCH" calls --keep-degraded --mechanism all --threads 1,2 --duration 30ms --repeat 2 --format csv \
	>"$TMP/calls.csv" 2>"$TMP/err"
ok $? "calls over all mechanisms at T=1,2 ran"
"$MBBENCH" list --format csv >"$TMP/list.csv"
"$PY" - "$TMP/calls.csv" "$TMP/list.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
avail = {r["mechanism"]: r["available"] == "1" for r in csv.DictReader(open(sys.argv[2]))}
assert len(rows) == 2 * len(avail), len(rows)
for r in rows:
    if avail[r["mechanism"]]:
        assert r["status"] == "ok", r
        v = float(r["calls_per_s"])
        assert math.isfinite(v) and v > 0, r
    else:
        assert r["status"] == "skipped" and r["skip_reason"] and r["calls_per_s"] == "", r
PY
ok $? "available mechanisms have positive finite calls_per_s; unavailable ones are skipped with a reason"
"$PY" - "$TMP/calls.csv" <<'PY'
import csv, sys
rows = {(r["mechanism"], r["threads"]): r for r in csv.DictReader(open(sys.argv[1]))}
# A system call costs more than an empty function call, on any host.
assert float(rows[("membarrier-private-expedited", "2")]["ns_per_call"]) > float(rows[("null", "2")]["ns_per_call"]) \
    if rows[("membarrier-private-expedited", "2")]["status"] == "ok" else True
assert float(rows[("fence", "1")]["ns_per_call"]) >= float(rows[("null", "1")]["ns_per_call"]) * 0.5
PY
ok $? "orders of magnitude are sane (a syscall barrier costs more than the null call)"

# --ci-target: a point stops repeating once its CI is within the target,
# or at --max-repeat; the row says which.
"$MBBENCH" calls --keep-degraded --mechanism null,fence --threads 1,2 --duration 0.02 --repeat 3 \
	--ci-target 10 --max-repeat 6 --format csv >"$TMP/ci.csv" 2>/dev/null &&
"$PY" - "$TMP/ci.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    n, got, met = int(r["repeats"]), float(r["ci_achieved_pct"]), r["ci_target_met"]
    assert r["ci_target_pct"] in ("10", "10.0"), r
    assert 3 <= n <= 6, r
    assert abs(got - 100 * float(r["ns_per_call_ci95"]) / float(r["ns_per_call"])) < 0.01 * max(got, 1), r
    # Met: within the target; not met: it took every repeat it was allowed.
    assert (met == "1" and got <= 10) or (met == "0" and got > 10 and n == 6), r
PY
ok $? "--ci-target 10: each point stops within the target or at --max-repeat, and says which"
done_testing
