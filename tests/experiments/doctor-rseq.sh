#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench doctor --probe rseq-restart on this host: PRIVATE_EXPEDITED_RSEQ
# must abort an rseq critical section running on each target CPU, and with
# FLAG_CPU only on the CPU aimed at. A stock Linux 6.x keeps the promise,
# so the result must be ok (a busy host's "cannot tell" is retried twice,
# then skipped with doctor's reason). Skips with fewer than 2 CPUs, without
# the command (QUERY) or without rseq; also run with glibc's registration
# turned off, where the probe registers its own rseq areas. A skip is the
# TAP plan "1..0 # SKIP reason" with exit status 0: this suite's TAP driver
# reports exit status 77 as an ERROR.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
need_cpus 2 "rseq-restart needs two CPUs (a caller and a target)"
cd "$TMP" || exit 1

"$MBBENCH" doctor --probe rseq-restart --format csv >r.csv 2>err
rc=$?
reason=$(csv_col r.csv reason)
case $reason in
*"not offered"* | *"rseq is unavailable"* | *"for this architecture"*)
	echo "1..0 # SKIP $reason"
	exit 0 ;;
esac

plan 5
# Each run's result, retried while it cannot tell (a busy host), 3 runs at most.
run_probe() { # file [env assignment]
	for i in 1 2 3; do
		env ${2:+"$2"} "$MBBENCH" doctor --probe rseq-restart --format csv >"$1" 2>err
		rc=$?
		[ "$(csv_col "$1" result)" = "cannot tell" ] || return 0
		diag "run $i: cannot tell: $(csv_col "$1" reason)"
	done
}
[ "$(csv_col r.csv result)" = "cannot tell" ] && run_probe r.csv

"$PY" - r.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 1 and rows[0]["probe"] == "rseq-restart", rows
r = rows[0]
assert r["result"] in ("ok", "affected", "cannot tell"), r
assert r["question"] and r["consequence"] and r["workaround"] and r["fix"] and r["reference"], r
assert r["result"] != "cannot tell" or r["reason"], r
PY
ok $? "one valid row with its texts (rc=$rc)"

res=$(csv_col r.csv result)
ev=$(csv_col r.csv evidence)
diag "rseq-restart: $res: $(csv_col r.csv reason)"
diag "evidence: $ev"
if [ "$res" = "cannot tell" ]; then
	for i in 1 2 3; do skip "cannot tell after 3 runs: $(csv_col r.csv reason)"; done
else
	[ "$res" = ok ] && [ "$rc" -eq 0 ]
	ok $? "ok on this kernel: every barrier restarted the critical section (got $res, rc=$rc)"
	"$PY" - r.csv <<'PY'
import csv, sys
r = next(csv.DictReader(open(sys.argv[1], newline="")))
m = float(r["measure"])
assert 0.9 <= m <= 1.0 + 1e-9, m
assert r["measure_unit"] == "aborts/barrier", r["measure_unit"]
ev = r["evidence"]
for want in ("rseq areas", "caller on CPU", "without a barrier", "PRIVATE_EXPEDITED_RSEQ", "per barrier beyond the background"):
    assert want in ev, (want, ev)
PY
	ok $? "the measure (lowest target's aborts per barrier beyond the background) is 0.9-1, the evidence has the counts"
	case $ev in
	*"glibc's rseq areas"* | *"registered by the probe"*) true ;;
	*) false ;;
	esac
	ok $? "the evidence says whose rseq area was used"
fi

# glibc told not to register: the probe registers its own areas.
run_probe o.csv GLIBC_TUNABLES=glibc.pthread.rseq=0
res=$(csv_col o.csv result)
case $res in
ok) csv_col o.csv evidence | grep -q 'registered by the probe' ;;
"cannot tell") diag "GLIBC_TUNABLES=glibc.pthread.rseq=0: cannot tell: $(csv_col o.csv reason)" ;;
*) false ;;
esac
ok $? "with GLIBC_TUNABLES=glibc.pthread.rseq=0 the probe registers its own rseq areas ($res)"
done_testing
