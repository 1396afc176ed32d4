#!/bin/sh
# SPDX-License-Identifier: MIT
# contend's targeted RSEQ command aims at the caller process's own spinner,
# as calls does (the first spinner), not at the caller itself: in processes
# mode with one spinner a process, the spinner's CPU receives a
# function-call IPI (CAL in /proc/interrupts) per barrier. Aimed at the
# caller's own CPU, the kernel would run the barrier locally and send none.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
need_cpus 2 "a caller and a spinner need 2 CPUs"
need_mechanism membarrier-private-expedited-rseq-cpu
grep -q '^ *CAL:\|Function call interrupts *$' /proc/interrupts 2>/dev/null || {
	echo "1..0 # SKIP no function-call row in /proc/interrupts (CAL, or one named Function call interrupts)"
	exit 0
}
plan 2

# cal CPU: that CPU's function-call IPI count (CAL on x86, the row named
# Function call interrupts elsewhere; column c + 2, CPU c online).
cal() {
	awk -v c="$1" '$1 == "CAL:" || /Function call interrupts *$/ { print $(c + 2); exit }' /proc/interrupts
}
# The placement puts the caller on the first CPU and its spinner on the
# second (cpus "A;B"); read both before and after.
"$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited-rseq-cpu --mode processes \
	--callers 1 --spinners 1 --duration 0.3 --repeat 1 --format csv \
	--output "$TMP/dry" >/dev/null 2>&1
cpus=$(csv_cols "$TMP/dry/contend.csv" cpus)
spin=${cpus#*;}
# Three tries at most, judged on the best: on a virtualized host the CAL
# row counts only a part of the IPIs a busy vCPU gets (seen here: 0.05 per
# barrier for calls' own PRIVATE_EXPEDITED at T=2, 0.13 for this run),
# while the caller's own CPU as the target gives 0.00-0.02 (a local call).
best=0
for try in 1 2 3; do
	before=$(cal "$spin")
	rc=0
	"$MBBENCH" contend --keep-degraded --mechanism membarrier-private-expedited-rseq-cpu --mode processes \
		--callers 1 --spinners 1 --duration 0.3 --repeat 1 --format csv \
		--output "$TMP/c$try" >/dev/null 2>"$TMP/err" || rc=$?
	after=$(cal "$spin")
	row=$(csv_cols "$TMP/c$try/contend.csv" status aggregate_calls_per_s cpus 2>/dev/null)
	# contend's own judgement: was the spinner on its CPU (repeats_degraded)?
	[ "$(csv_cols "$TMP/c$try/contend.csv" repeats_degraded 2>/dev/null)" = 0 ] && all_degraded=0
	why=$(csv_cols "$TMP/c$try/contend.csv" degraded_reason 2>/dev/null)
	[ $rc = 0 ] && [ "$(echo "$row" | cut -f1)" = ok ] && [ "$(echo "$row" | cut -f3)" = "$cpus" ] || break
	calls=$(echo "$row" | awk -F'\t' '{ printf "%d", $2 * 0.3 }')
	per=$(awk -v d=$((after - before)) -v c="$calls" 'BEGIN { printf "%.3f", (c > 0) ? d / c : 0 }')
	diag "try $try: CPU $spin: $((after - before)) function-call IPIs for about $calls barriers ($per per barrier)"
	best=$(awk -v a="$best" -v b="$per" 'BEGIN { print (b > a) ? b : a }')
	awk -v b="$best" 'BEGIN { exit !(b >= 0.05) }' && break
done
ok "$([ $rc = 0 ] && [ "$(echo "$row" | cut -f1)" = ok ] && [ "$(echo "$row" | cut -f3)" = "$cpus" ]; echo $?)" \
	"contend ran the targeted command with a caller and its spinner on CPUs $cpus (rc=$rc, $row)"
# A spinner that was off its CPU got no IPI, by design: on a host loaded
# by other work (make check -j runs tests side by side) that is what
# contend's own judgement says (target_oncpu_share), not a failure here.
if ! awk -v b="$best" 'BEGIN { exit !(b >= 0.05) }' && [ "${all_degraded:-1}" = 1 ] && [ -n "$why" ]; then
	skip "every try was degraded, the spinner off its CPU (last: $why): no IPI was due"
else
	ok "$(awk -v b="$best" 'BEGIN { exit !(b >= 0.05) }'; echo $?)" \
		"the spinner's CPU $spin got IPIs from the barriers (best $best per barrier, at least 0.05)"
fi
done_testing
