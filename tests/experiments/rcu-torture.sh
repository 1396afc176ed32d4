#!/bin/sh
# SPDX-License-Identifier: MIT
# The rcu torture check: every available correct scheme (ours and liburcu's)
# runs a short while with no reader ever seeing a freed object; the broken
# schemes are caught (exit 1, violations > 0) within a bounded budget.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON3:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
plan 5

"$MBBENCH" rcu --keep-degraded --scheme all --duration 0.2 --repeat 1 --format csv >"$TMP/all.csv" 2>"$TMP/err"
ok $? "rcu over every correct scheme exits 0 ($(head -c 160 "$TMP/err"))"
"$PY" - "$TMP/all.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
names = {r["scheme"] for r in rows}
for want in ("mb", "signal", "signal-spin", "membarrier-private-expedited", "qsbr",
             "liburcu-mb", "liburcu-signal", "liburcu-memb", "liburcu-qsbr"):
    assert want in names, want
assert not any(n.startswith("broken") for n in names), names
for r in rows:
    if r["status"] == "skipped":
        assert r["skip_reason"] and r["reads"] == "", r
        continue
    assert r["status"] == "ok" and r["violations"] == "0", r
    assert float(r["reads"]) > 0 and float(r["writes"]) > 0, r
    print("# %-30s %-8s reads %12.0f writes %9.0f violations %s" %
          (r["scheme"], r["family"], float(r["reads"]), float(r["writes"]), r["violations"]))
PY
ok $? "every available scheme read and wrote with 0 violations; the others are skipped with a reason"

# The same with 1 us critical sections: a reader then stays inside long
# enough for a grace period that ends early (a missing wait, a barrier that
# does not reach the reader) to free its object under it.
"$MBBENCH" rcu --keep-degraded --scheme all --cs-ns 1000 --duration 0.2 --repeat 1 --format csv \
	>"$TMP/cs.csv" 2>"$TMP/err"
rc=$?
bad=$(csv_cols "$TMP/cs.csv" scheme violations |
	awk -F'\t' '$2 != "" && $2 != "0" { print $1 "=" $2 }' | tr '\n' ' ')
[ "$rc" -eq 0 ] && [ -z "$bad" ] && [ "$(wc -l <"$TMP/cs.csv")" -gt 8 ]
ok $? "every available scheme with 1 us critical sections: 0 violations (exit $rc; violations: ${bad:-none})"

# broken-no-wait frees without a grace period: a reader inside a 1 us
# critical section sees the poison. Up to 3 runs of 0.2 s.
caught=1
for i in 1 2 3; do
	"$MBBENCH" rcu --keep-degraded --allow-broken --scheme broken-no-wait --cs-ns 1000 --duration 0.2 \
		--repeat 1 --format csv >"$TMP/nw.csv" 2>"$TMP/err"
	rc=$?
	v=$(csv_col "$TMP/nw.csv" violations)
	diag "broken-no-wait run $i: exit $rc, violations $v"
	if [ "$rc" -eq 1 ] && [ "${v:-0}" -gt 0 ]; then caught=0; break; fi
done
ok $caught "broken-no-wait is caught by the torture check (exit 1, violations > 0)"

# broken-no-barrier drops the fence from the signal handler. On x86-64 that
# fence is redundant: the signal is delivered through a kernel entry (locked
# instructions on the reader's CPU) before the handler runs, which drains
# the reader's store buffer, so its counter store is visible before the
# ack. There the reordering it would allow cannot happen, and a pass would
# be vacuous: report the count and SKIP. Elsewhere it must be caught.
"$MBBENCH" rcu --keep-degraded --allow-broken --scheme broken-no-barrier --duration 0.5 --repeat 1 \
	--format csv >"$TMP/nb.csv" 2>"$TMP/err"
rc=$?
v=$(csv_col "$TMP/nb.csv" violations)
case $(uname -m) in
x86_64 | i?86)
	if [ "$rc" -eq 1 ] && [ "${v:-0}" -gt 0 ]; then
		ok 0 "broken-no-barrier caught on x86 ($v violations)"
	else
		skip "broken-no-barrier not detectable on x86 (TSO + kernel entry on signal delivery order the reader; $v violations in 0.5 s)"
	fi ;;
*)
	[ "$rc" -eq 1 ] && [ "${v:-0}" -gt 0 ]
	ok $? "broken-no-barrier is caught (exit $rc, violations $v)" ;;
esac
done_testing
