#!/bin/sh
# SPDX-License-Identifier: MIT
# check-kernel's decisions on what its guests wrote, without a VM:
# the guest's half (kernel-patch/guest-checks.sh) reruns doctor's lazy-mm
# probe while it says "cannot tell", reading the result as CSV (the
# question field is quoted and holds commas), and passes DOCTOR_BUDGET on
# as --budget; the host's half (check-lib.sh) makes "cannot tell" after
# the reruns a SKIP with doctor's reason, "affected" on the fixed kernel a
# failure, and reads every guest table by column name.
. "${top_srcdir:-.}/tests/lib.sh"

KP=$(cd "${top_srcdir:-.}/kernel-patch" && pwd)
CSVR=$(cd "${top_srcdir:-.}/bench" && pwd)/mbb-csv
if ! command -v bash >/dev/null 2>&1; then
	echo "1..0 # SKIP bash not found (check-kernel's scripts are bash)"
	exit 77
fi
plan 12

# A stand-in mbbench on PATH: `doctor --probe lazy-mm` prints progress on
# stderr and doctor's CSV on stdout; the result of call N is line N of
# $FAKE_RESULTS (the last line once they run out).
mkdir -p "$TMP/bin"
ln -s "$CSVR" "$TMP/bin/mbb-csv"
cat >"$TMP/bin/mbbench" <<'EOF'
#!/bin/sh
echo "$*" >>"$FAKE_LOG"
case "$*" in *"--probe lazy-mm"*) ;; *) echo "doctor: 7 probes"; exit 0 ;; esac
n=$(($(cat "$FAKE_COUNT" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE_COUNT"
res=$(sed -n "${n}p" "$FAKE_RESULTS")
[ -n "$res" ] || res=$(tail -n 1 "$FAKE_RESULTS")
echo "doctor: [1/1] lazy-mm" >&2
echo 'probe,question,result,reason,measure,evidence'
echo "lazy-mm,\"Does it reach a thread on a CPU whose idle task held the mm lazily (a thread ran there, or exited), or not?\",$res,\"9 s were not enough, \"\"rerun\"\"\",0,\"caller on CPU 0, spinner on CPU 3;\""
[ "$res" = affected ] && exit 1
exit 0
EOF
chmod +x "$TMP/bin/mbbench"

# guest RESULTS...: the guest's doctor group in a fresh /results.
guest() {
	d=$TMP/g$#-$(printf '%s' "$*" | tr ' ' _)
	rm -rf "$d" && mkdir -p "$d"
	printf '%s\n' "$@" >"$d/results.txt"
	(cd "$d" && PATH="$TMP/bin:$PATH" FAKE_RESULTS="$d/results.txt" FAKE_COUNT="$d/.count" \
		FAKE_LOG="$d/.log" DOCTOR_BUDGET=${BUDGET:-} sh "$KP/guest-checks.sh" doctor >"$d/.stdout" 2>&1)
	runs=$(find "$d" -maxdepth 1 -name 'doctor-lazy-*.out' | wc -l)
}

guest "cannot tell"
ok "$([ "$runs" = 3 ] && echo 0 || echo 1)" "cannot tell every time: the guest runs the probe 3 times (ran $runs)"
guest "cannot tell" ok
ok "$([ "$runs" = 2 ] && echo 0 || echo 1)" "cannot tell, then ok: 2 runs, doctor-lazy.out the last (ran $runs)"
guest affected
ok "$([ "$runs" = 1 ] && [ "$(cat "$d/doctor-lazy.rc")" = 1 ] && echo 0 || echo 1)" \
	"affected is never rerun, its exit status kept (ran $runs)"
BUDGET=90 guest ok
grep -q -- '--probe lazy-mm --budget 90 --format csv' "$d/.log" && grep -q '^doctor --budget 90$' "$d/.log"
ok $? "DOCTOR_BUDGET=90 reaches both doctor runs as --budget 90"
BUDGET="" guest ok
! grep -q -- '--budget' "$d/.log"
ok $? "without DOCTOR_BUDGET, no --budget: the probe sets its own"

# The host's half: check-lib.sh's doctor_lazy on the folders above,
# through its check (0 ok, 77 skip, else not ok).
judge() { # DIR KERNEL WANT-RESULT WANT-STATUS
	bash -c '
	MBB_CSV=$1; shift
	n=0; failed=0; PLAN=1; T0=0
	. "$0"
	check "doctor" doctor_lazy "$@"' "$KP/check-lib.sh" "$CSVR" "$@" 2>&1
}
guest "cannot tell"
out=$(judge "$d" fixed ok 0)
diag "$(printf '%s\n' "$out" | grep '^ok\|^not ok')"
printf '%s\n' "$out" | grep -q '^ok 1 - doctor # SKIP the lazy-mm probe could not tell in 3 runs: 9 s were not enough, "rerun"$'
ok $? "fixed kernel, cannot tell after 3 runs: a SKIP with doctor's whole reason (commas and quotes in it)"
out=$(judge "$d" unfixed affected 1)
printf '%s\n' "$out" | grep -q '^ok 1 - doctor # SKIP '
ok $? "unfixed kernel, cannot tell: a SKIP too, never a failure"
guest affected
out=$(judge "$d" fixed ok 0)
printf '%s\n' "$out" | grep -q '^not ok 1 - doctor$'
ok $? "fixed kernel, affected: not ok"
out=$(judge "$d" unfixed affected 1)
printf '%s\n' "$out" | grep -q '^ok 1 - doctor$' &&
	printf '%s\n' "$out" | grep -q '^# unfixed: evidence: caller on CPU 0, spinner on CPU 3;$'
ok $? "unfixed kernel, affected with exit status 1: ok, the evidence read whole"
guest "cannot tell" ok
out=$(judge "$d" fixed ok 0)
printf '%s\n' "$out" | grep -q '^ok 1 - doctor$' && printf '%s\n' "$out" | grep -q 'run 2 of at most 3'
ok $? "fixed kernel, ok on the second run: ok, and the run count said"
out=$(judge "$d" unfixed affected 1)
printf '%s\n' "$out" | grep -q '^not ok 1 - doctor$'
ok $? "unfixed kernel, ok: not ok (the probe missed the bug)"

# The other guest tables, read by name: a quoted reason with commas in
# the isolation table's skip_reason column, before the columns judged.
mkdir -p "$TMP/iso/vmiso"
cat >"$TMP/iso/vmiso/isolation.csv" <<'EOF'
mechanism,cpu,isolated,role,barriers,ipis_per_barrier,ipis_per_barrier_ci95,replicates,status,skip_reason
membarrier-global,1,yes,idle,0,,,0,skipped,"kernel lacks MEMBARRIER_CMD_GLOBAL here, under nohz_full (EINVAL)"
seed-v1-ipi-all,3,yes,idle,1000,0.998,0.002,3,ok,
EOF
out=$(bash -c '
	MBB_CSV=$1; work=$2; MBB_SWEEP_RC=0
	n=0; failed=0; PLAN=1; T0=0
	. "$0"
	check "isolation" isolation' "$KP/check-lib.sh" "$CSVR" "$TMP/iso" 2>&1)
printf '%s\n' "$out" | grep -q '^ok 1 - isolation$' &&
	printf '%s\n' "$out" | grep -q 'seed-v1 on the isolated idle CPU: 0.998 per barrier'
ok $? "isolation: the skipped GLOBAL row and seed-v1's reading found by column name"
done_testing
