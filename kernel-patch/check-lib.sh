# SPDX-License-Identifier: GPL-2.0
# The test cases of check-kernel (sourced by it, after common.sh): its TAP
# output, and one function per check that judges what a build or a guest
# left and prints what it read as TAP comments. check-kernel builds the
# kernels, boots the guests and calls these in its order; they read the
# guests' results where it put them: $r (the fixed guest's /results), $ru
# (the unfixed guest's), $rp (the percpu-mutex guest's), $ipi (ipi-check's
# output) and $work (logs, bench/vm's folders), with the run-vm statuses
# $uvmrc, $pvmrc and $trc and bench/vm's MBB_SWEEP_RC; the TAP counters
# are $n, $failed, $PLAN and $T0. The numbers are the TAP tests'.

# shellcheck shell=bash
# The variables above are check-kernel's.
# shellcheck disable=SC2154

# TAP: a test's line, counted in $n (and $failed).
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
}
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
# check NAME COMMAND...: one test from a command's status: 0 ok, 77 a
# SKIP whose reason the command left in $SKIP_WHY, anything else not ok.
SKIP_WHY=""
check() {
	local name=$1 rc=0
	shift
	"$@" || rc=$?
	case $rc in
	0) ok "$name" ;;
	77) skip "$name" "$SKIP_WHY" ;;
	*) not_ok "$name" ;;
	esac
}
# Print a file as TAP comments.
comment() {
	sed 's/^/# /' "$@"
}
stage() {
	echo "# stage $1: $2 s"
}
# Fail all the tests left when something they need is missing.
bail_rest() {
	while [ "$n" -lt "$PLAN" ]; do
		not_ok "$1"
	done
	echo "# total: $(($(date +%s) - T0)) s"
	exit 1
}

# 1. The series and the suite agree on the command values.
values_agree() {
	local name v_suite v_patch rc=0
	for name in V1_IPI_ALL V5_EXPEDITED V5_SCHED; do
		v_suite=$(sed -n "s/^#define MEMBARRIER_CMD_SEED_${name}[[:space:]]*(\(.*\))\$/\1/p" \
			"$REPO_DIR/workloads/mechanisms/seed-membarrier.h" | tr -d ' ')
		v_patch=$(seed_patches | (cd "$KP_DIR" && xargs cat) |
			sed -n "s/^+[[:space:]]*MEMBARRIER_CMD_SEED_${name}[[:space:]]*= (\(.*\)),\$/\1/p" |
			tr -d ' ')
		echo "# MEMBARRIER_CMD_SEED_$name: suite ${v_suite:-missing}, patch ${v_patch:-missing}"
		if [ -z "$v_suite" ] || [ "$v_suite" != "$v_patch" ]; then
			rc=1
		fi
	done
	return $rc
}

# 4. checkpatch --strict, from the same tree: the series and the fixes are
# clean. UNKNOWN_COMMIT_ID is ignored: the tarball's tree has no git history
# to look the Fixes: ids up in (they were checked against the kernel's
# history). A patch without Signed-off-by: gets its From: as one for the
# check only: the sender adds their own.
checkpatch_clean() {
	local p out rc=0
	for p in $(all_patches); do
		out=$(with_signoff "$KP_DIR/$p" | (cd "$SRC_DIR" && perl scripts/checkpatch.pl \
			--strict --ignore UNKNOWN_COMMIT_ID - 2>&1) |
			grep '^total:') || true
		echo "# $p: ${out:-checkpatch gave no total}"
		case $out in
		"total: 0 errors, 0 warnings, 0 checks,"*) ;;
		*) rc=1 ;;
		esac
	done
	return $rc
}

# 8-11. IPIs per barrier, median of the rounds. Targets must get >= 0.75
# per barrier (0.5 for the idle CPU, which the kernel may serve from its
# polling idle loop without an IPI), the others <= 0.2, after the baseline
# is subtracted.
ipi_pattern() {
	local cmd=$1 want=$2 cpu v lo verdict rc=0 line=""
	for cpu in 1 2 3; do
		v=$(sed -n "s/^IPI cmd=$cmd cpu=$cpu .*per_barrier=\([-0-9.]*\)\$/\1/p" "$ipi")
		[ -n "$v" ] || { echo "# $cmd: no IPI line for CPU $cpu"; return 1; }
		case $want in
		*$cpu*)
			lo=0.75
			[ "$cpu" = 2 ] && lo=0.5
			verdict=$(awk -v v="$v" -v lo="$lo" 'BEGIN { print (v >= lo) ? "ok" : "LOW" }')
			;;
		*) verdict=$(awk -v v="$v" 'BEGIN { print (v <= 0.2) ? "ok" : "HIGH" }') ;;
		esac
		line="$line cpu$cpu=$v($verdict)"
		[ "$verdict" = ok ] || rc=1
	done
	echo "# $cmd IPIs per barrier:$line"
	return $rc
}

# 12, 13. mbbench inside the VM.
seeds_listed() {
	local m rc=0 line
	[ "$(cat "$r/mbbench-list.rc")" = 0 ] || rc=1
	for m in seed-v1-ipi-all seed-v5-expedited seed-v5-sched; do
		line=$(grep -E "(^|[^-a-z])$m([^-a-z]|\$)" "$r/mbbench-list.out" | head -n 1)
		echo "# ${line:-$m: not listed}"
		case $line in
		'' | *unavailable* | *"not available"* | *needs* | *lacks*) rc=1 ;;
		esac
	done
	return $rc
}
calls_csv() {
	local csv
	csv=$(find "$r/mbbench-calls-out" -name calls.csv 2>/dev/null | head -n 1)
	echo "# mbbench calls: exit $(cat "$r/mbbench-calls.rc"), csv: ${csv:-none}"
	if [ "$(cat "$r/mbbench-calls.rc")" != 0 ] || [ -z "$csv" ]; then
		tail -n 5 "$r/mbbench-calls.out" | comment
		return 1
	fi
	head -n 1 "$csv" | comment
	echo "# $(($(wc -l <"$csv") - 1)) rows"
	[ "$(wc -l <"$csv")" -ge 2 ]
}

# 14-16. The GLOBAL_EXPEDITED selftest (selftest/, KTAP): its cases of
# paths A and B fail on the unfixed kernel (the test asserts that the bug
# is there) and pass on the fixed one; the control passes on both.
LAZY_CASES="path_a_thread path_a_main path_a_multi_user path_b_exit path_b_exit_to_sibling"
cases_are() { # FILE GETTER WANT: every path case of FILE reads WANT
	local c
	for c in $LAZY_CASES; do [ "$($2 "$1" $c)" = "$3" ] || return 1; done
}
ktap_line() { # FILE CASE: "ok" or "not ok" of that case
	sed -n "s/^\(ok\|not ok\) [0-9]* \([a-z_]*\):.*/\1 \2/p" "$1" 2>/dev/null |
		sed -n "s/ $2\$//p" | head -n 1
}
lazy_cpu() { # FILE CASE: IPIs per barrier on the spinner's CPU
	sed -n "s/^# $2: CPU [0-9]*: \([-0-9.]*\) IPIs per barrier.*/\1/p" "$1" 2>/dev/null | head -n 1
}
repro_unfixed() {
	local f=$ru/lazy.out
	[ "$uvmrc" = 0 ] && [ -f "$f" ] || { echo "# the unfixed guest did not run (run-vm status $uvmrc)"; tail -n 5 "${unfixed_out:-$work/vm-unfixed.out}" | comment; return 1; }
	grep -E '^(ok|not ok|# )' "$f" | comment
	[ "$(ktap_line "$f" control)" = ok ] && cases_are "$f" ktap_line "not ok" &&
		[ "$(cat "$ru/lazy.rc")" != 0 ]
}
repro_fixed() {
	local f=$r/lazy.out
	grep -E '^(ok|not ok|# )' "$f" | comment
	[ "$(cat "$r/lazy.rc")" = 0 ] && [ "$(ktap_line "$f" control)" = ok ] &&
		cases_are "$f" ktap_line ok
}
lazy_ipis() {
	local c u f rc=0
	for c in $LAZY_CASES; do
		u=$(lazy_cpu "$ru/lazy.out" $c)
		f=$(lazy_cpu "$r/lazy.out" $c)
		echo "# $c: GLOBAL_EXPEDITED IPIs per barrier on the lazy CPU: unfixed ${u:-none}, fixed ${f:-none}"
		awk -v u="${u:-x}" -v f="${f:-x}" 'BEGIN { exit !(u != "x" && f != "x" && u <= 0.2 && f >= 0.75) }' || rc=1
	done
	return $rc
}

# Every results table is read through the suite's CSV reader, by column
# name ($MBB_CSV, bench/mbb-csv): csv FILE COLS [COND...].
csv() {
	"$MBB_CSV" "$@" 2>/dev/null
}

# 17. litmus on the fixed kernel: GLOBAL_EXPEDITED after the no-barrier
# control (whose threads leave the mm lazy on their CPUs) never shows
# r1 = r2 = 0. The trial rates of both kernels are printed: without an
# IPI the unfixed one runs at about the rate of a bare system call.
litmus_col() { # CSV PAIRING COLUMN
	csv "$1" "$3" pairing="$2"
}
litmus_fixed() {
	local csv u v
	csv=$(find "$r/litmus-out" -name litmus.csv 2>/dev/null | head -n 1)
	u=$(find "$ru/litmus-out" -name litmus.csv 2>/dev/null | head -n 1)
	for v in "unfixed:$u" "fixed:$csv"; do
		[ -n "${v#*:}" ] || { echo "# ${v%%:*}: no litmus.csv"; continue; }
		echo "# ${v%%:*}: membarrier-global-expedited: $(litmus_col "${v#*:}" membarrier-global-expedited trials) trials, r1 = r2 = 0 $(litmus_col "${v#*:}" membarrier-global-expedited r1_0_r2_0) times, $(litmus_col "${v#*:}" membarrier-global-expedited trials_per_s) trials/s, status $(litmus_col "${v#*:}" membarrier-global-expedited status)"
	done
	[ -n "$csv" ] &&
		[ "$(litmus_col "$csv" membarrier-global-expedited status)" = ok ] &&
		[ "$(litmus_col "$csv" membarrier-global-expedited r1_0_r2_0)" = 0 ] &&
		[ "$(litmus_col "$csv" membarrier-global-expedited trials)" -gt 0 ]
}

# 18-20. bench/vm: fan-out vs vCPUs on both kernels (A/B), and under
# nohz_full, end to end.
# total IPIs per barrier, k = vCPUs running the caller's other threads
fanout() {
	local csv=$work/vmscale/fixed/vmscale.csv rc=0 m k want got
	[ "$MBB_SWEEP_RC" = 0 ] && [ -f "$csv" ] || { tail -n 5 "$work/vmscale.log" | comment; return 1; }
	for want in "seed-v1-ipi-all 1 3" "seed-v5-expedited 1 1" "seed-v5-expedited 3 3" \
		"membarrier-private-expedited 1 1"; do
		set -- $want
		got=$(csv "$csv" ipis_per_barrier_total mechanism="$1" k="$2" status=ok)
		echo "# $1 with k=$2: ${got:-none} IPIs per barrier (want $3 +- 0.3)"
		awk -v g="${got:-x}" -v w="$3" 'BEGIN { exit !(g != "x" && g - w <= 0.3 && w - g <= 0.3) }' || rc=1
	done
	return $rc
}
ab() {
	local ab=$work/vmscale/ab.csv rc=0 k u f
	[ "$MBB_SWEEP_RC" = 0 ] && [ -f "$ab" ] && [ -s "$work/vmscale/compare.md" ] ||
		{ tail -n 5 "$work/vmscale.log" | comment; return 1; }
	for k in 1 3; do
		u=$(csv "$ab" ipis_per_barrier_total_unfixed mechanism=membarrier-global-expedited k=$k)
		f=$(csv "$ab" ipis_per_barrier_total_fixed mechanism=membarrier-global-expedited k=$k)
		# The unfixed kernel misses a CPU that held the mm lazily at
		# registration, until something else runs there and the
		# spinner's return switches the mm in again; the guest's
		# scheduling decides that per process (3 processes a point).
		# Seen: one CPU of one process reached, 0.333 at k=3 and 0.330
		# at k=1. So the unfixed kernel must miss most of the k CPUs
		# (under k/2: at k=1, two processes of three), the fixed one
		# reach all k.
		echo "# membarrier-global-expedited with k=$k: unfixed ${u:-none}, fixed ${f:-none} IPIs per barrier (want under $k/2 and $k +- 0.3)"
		awk -v u="${u:-x}" -v f="${f:-x}" -v w=$k 'BEGIN { exit !(u != "x" && f != "x" && u < 0.5 * w && f - w <= 0.3 && w - f <= 0.3) }' || rc=1
	done
	echo "# compare.md: $(grep -c '^| smp=' "$work/vmscale/compare.md") points compared, $(grep -c '| \* | changed |' "$work/vmscale/compare.md") changed"
	return $rc
}
isolation() {
	local csv=$work/vmiso/isolation.csv rc=0 v1
	[ "$MBB_SWEEP_RC" = 0 ] && [ -f "$csv" ] || { tail -n 5 "$work/vmiso.log" | comment; return 1; }
	[ "$(csv -n "$csv" mechanism mechanism=membarrier-global status=skipped \
		'skip_reason~^kernel lacks MEMBARRIER_CMD_GLOBAL')" -gt 0 ] 2>/dev/null || rc=1
	v1=$(csv "$csv" ipis_per_barrier mechanism=seed-v1-ipi-all isolated=yes role=idle)
	echo "# GLOBAL under nohz_full: $(csv -n "$csv" mechanism mechanism=membarrier-global status=skipped) skipped rows; seed-v1 on the isolated idle CPU: ${v1:-none} per barrier"
	awk -v g="${v1:-0}" 'BEGIN { exit !(g >= 0.5) }' || rc=1
	return $rc
}

# 21. The 2-socket guest of `mbbench vm sweep`, small: -smp 4 as 2 sockets
# of one SMT2 core, a NUMA node each. hwloc in the guest must see that
# machine, and compact placement must reach the other core at T = 2.
topo_guest() {
	local d=$work/results-topo
	[ "$trc" = 0 ] && [ -f "$d/points.txt" ] || { comment "$work/vm-topo.err"; return 1; }
	echo "# guest: $(head -n 1 "$d/points.txt"); nodes online: $(cat "$d/nodes.txt")"
	head -n 1 "$d/points.txt" | grep -q '2 packages, 2 cores, 4 PUs, 2 NUMA nodes' &&
		[ "$(cat "$d/nodes.txt")" = 0-1 ] &&
		# T = 2: the other thread on another core (package, node)
		[ "$(csv -n "$d/points.csv" list list=threads count=2 'why~another core')" = 1 ]
}

# 22, 23. mbbench doctor's lazy-mm probe in both guests: it must find the
# bug on the unfixed kernel (result affected, exit status 1) and read ok
# on the fixed one (every lazy case reached in 4 clean attempts). The
# guest reruns it while it says "cannot tell" (3 runs at most), as its
# reason asks; an "affected" or "ok" is never rerun; "cannot tell" after
# that is a SKIP with the probe's reason.
doctor_field() { # FILE COLUMN: that column of doctor's lazy-mm row
	csv -H probe "$1" "$2" probe=lazy-mm | head -n 1
}
doctor_lazy() { # DIR KERNEL WANT-RESULT WANT-STATUS
	local d=$1 res rc runs reason
	[ -f "$d/doctor-lazy.out" ] || { echo "# $2: no doctor output (did the $2 guest run?)"; return 1; }
	res=$(doctor_field "$d/doctor-lazy.out" result)
	reason=$(doctor_field "$d/doctor-lazy.out" reason)
	rc=$(cat "$d/doctor-lazy.rc")
	runs=$(find "$d" -maxdepth 1 -name 'doctor-lazy-*.out' | wc -l)
	echo "# $2: lazy-mm: ${res:-no row} (exit status $rc, run $runs of at most 3): $reason"
	echo "# $2: evidence: $(doctor_field "$d/doctor-lazy.out" evidence)"
	[ -n "$res" ] || tail -n 5 "$d/doctor-lazy.out" | comment
	[ -f "$d/doctor.out" ] && echo "# $2: the whole mbbench doctor (exit status $(cat "$d/doctor.rc")): $(grep -c . "$d/doctor.out") lines in doctor.out"
	# What only a slow or busy guest causes is no verdict on the kernel:
	# after its reruns, "cannot tell" skips with doctor's reason (the
	# kselftest checks still judge the fix). An "affected" on the fixed
	# kernel, or an "ok" on the unfixed one, fails.
	if [ "$res" = "cannot tell" ] && [ "$rc" = 0 ]; then
		SKIP_WHY="the lazy-mm probe could not tell in $runs runs: $reason"
		return 77
	fi
	[ "$res" = "$3" ] && [ "$rc" = "$4" ]
}

# 24, 25. The kselftest runner (run_kselftest.sh, busybox sh) with the
# membarrier tests and upstream/0002's new one: on the unfixed kernel the
# new test is "not ok" (its control ok, every path case not ok) and the
# others ok; on the fixed kernel all ok. A SKIP is not an ok here.
KSFT_LAZY=membarrier_test_global_expedited_lazy
ksft_result() { # FILE TEST: the runner's "ok"/"not ok" line for the test
	grep -E "^(ok|not ok) [0-9]+ selftests: membarrier: $2( |\$)" "$1" 2>/dev/null | head -n 1
}
ksft_inner() { # FILE CASE: "ok" or "not ok" of a case of the lazy test
	sed -n "s/^# \(ok\|not ok\) [0-9]* $2: .*/\1/p" "$1" 2>/dev/null | head -n 1
}
ksft_plain_ok() { # FILE TEST: ok, and not skipped
	case $(ksft_result "$1" "$2") in
	"ok "*"# SKIP"* | "") return 1 ;;
	"ok "*) return 0 ;;
	*) return 1 ;;
	esac
}
ksft_run() { # DIR KERNEL
	local f=$1/kselftest.out
	[ -n "$ksft_tree" ] || { echo "# kselftest not built: $ksft_why"; return 1; }
	[ -f "$f" ] || { echo "# $2: the kselftest runner did not run"; return 1; }
	echo "# $2: run_kselftest.sh (exit status $(cat "$1/kselftest.rc" 2>/dev/null)):"
	sed 's/^/#   /' "$f"
}
ksft_unfixed() {
	local f=$ru/kselftest.out
	ksft_run "$ru" unfixed || return 1
	ksft_plain_ok "$f" membarrier_test_single_thread &&
		ksft_plain_ok "$f" membarrier_test_multi_thread &&
		case $(ksft_result "$f" $KSFT_LAZY) in "not ok "*) true ;; *) false ;; esac &&
		[ "$(ksft_inner "$f" control)" = ok ] && cases_are "$f" ksft_inner "not ok"
}
ksft_fixed() {
	local f=$r/kselftest.out
	ksft_run "$r" fixed || return 1
	ksft_plain_ok "$f" membarrier_test_single_thread &&
		ksft_plain_ok "$f" membarrier_test_multi_thread &&
		ksft_plain_ok "$f" $KSFT_LAZY &&
		[ "$(ksft_inner "$f" control)" = ok ] && cases_are "$f" ksft_inner ok
}

# 26. Context switches between two threads of one process (ctxsw.c), the
# path where the fix adds a load and a compare: the A/B of both kernels,
# mean +- 95% CI each and the difference with Welch's CI. Only that both
# sides measured is asserted: these are TCG times, see README.md.
ctxsw_ab() {
	local u=$ru/ctxsw.out f=$r/ctxsw.out side
	for side in "unfixed:$u" "fixed:$f"; do
		if [ ! -f "${side#*:}" ]; then
			echo "# ${side%%:*}: ctxsw did not run"
			return 1
		fi
		grep -E '^(SETUP|ERROR|RESULT)' "${side#*:}" | sed "s/^/# ${side%%:*}: /"
	done
	echo "# (TCG: emulated vCPUs sharing the host's CPUs; not hardware times. The A/B can show a change far larger than the load and compare the fix adds, not that one.)"
	[ "$(cat "$ru/ctxsw.rc")" = 0 ] && [ "$(cat "$r/ctxsw.rc")" = 0 ] || return 1
	ctxsw_compare unfixed fixed "$u" "$f"
}

# 27, 28. The percpu-mutex variant (fixed + percpu-mutex/: targeted
# commands on the target CPU's mutex) builds, and the kselftest runner
# passes on it: every membarrier test ok, as on the fixed kernel.
ksft_percpu() {
	local f=$rp/kselftest.out
	[ "$pvmrc" = 0 ] || { echo "# the percpu-mutex guest did not run (run-vm status $pvmrc)"; return 1; }
	ksft_run "$rp" percpu-mutex || return 1
	ksft_plain_ok "$f" membarrier_test_single_thread &&
		ksft_plain_ok "$f" membarrier_test_multi_thread &&
		ksft_plain_ok "$f" $KSFT_LAZY
}

# 28 (rseq-broken sources). doctor's rseq-restart probe, as CSV, in the
# fixed guest (doctor-rseq.out of the full guest checks) and in the
# rseq-broken one: ok on the first, affected on the second.
rseq_result() { # DIR: the probe's result and measure, "RESULT MEASURE"
	local f=$1/doctor-rseq.out
	[ -f "$f" ] || { echo "none"; return; }
	csv -H probe "$f" result,measure probe=rseq-restart 2>/dev/null | head -n 1 | tr '\t' ' '
}
rseq_restart() {
	local a b
	a=$(rseq_result "$r")
	b=$(rseq_result "$rp")
	echo "# rseq-restart on the fixed kernel: ${a:-no row} (aborts per barrier, lowest target, less the background)"
	echo "# rseq-restart on the rseq-broken kernel: ${b:-no row}"
	for d in "$r" "$rp"; do
		csv -H probe "$d/doctor-rseq.out" reason probe=rseq-restart | head -n 1 | sed 's/^/# /'
	done
	[ "${a%% *}" = ok ] && [ "${b%% *}" = affected ]
}

# 39. Whether an expedited caller waits for another caller's mutex (the
# fixed guest's serialization group, lock:contention_begin): two caller
# processes of PRIVATE_EXPEDITED wait on one mutex on every kernel (the
# global membarrier_ipi_mutex); two of the targeted command, aimed at
# different CPUs, wait on that same one before 7.0 and on none in 7.3,
# whose targeted commands take the target CPU's mutex.
serial_line() { # MECH: "waits mutexes calls_per_s" from serialization.out
	sed -n "s/^SERIAL mech=$1 rc=0 .*calls_per_s=\([^ ]*\) waits=\([0-9]*\) mutexes=\([0-9]*\) .*/\2 \3 \1/p" \
		"$r/serialization.out" 2>/dev/null | head -n 1
}
serialization_check() {
	local pe tg
	grep -E '^(SERIAL|SKIP)' "$r/serialization.out" 2>/dev/null | comment
	pe=$(serial_line membarrier-private-expedited)
	tg=$(serial_line membarrier-private-expedited-rseq-cpu)
	[ -n "$pe" ] && [ -n "$tg" ] || { echo "# no SERIAL lines (did the serialization group run?)"; return 1; }
	set -- $pe $tg
	# PRIVATE_EXPEDITED: waits on exactly one mutex, the global one.
	[ "$1" -ge 1 ] && [ "$2" = 1 ] || { echo "# PRIVATE_EXPEDITED: $1 waits on $2 mutexes (want >= 1 on 1)"; return 1; }
	case " $KP_VARIANTS " in
	*" percpu-mutex "*)
		echo "# $KERNEL_LINE: the targeted command takes the global mutex: $4 waits on $5 mutexes at $6 calls/s"
		[ "$4" -ge 1 ] && [ "$5" = 1 ] ;;
	*)
		echo "# $KERNEL_LINE: the targeted command takes its target CPU's mutex: $4 waits at $6 calls/s (two callers, two CPUs)"
		[ "$4" = 0 ] && [ "${6%%.*}" -ge 100 ] ;;
	esac
}

# 29. mbbench anatomy in the fixed guest (PRIVATE_EXPEDITED, T = 2, 3, 4):
# a kernel with the csd tracepoints (6.3 and later) gives the delivery of
# each of the 1 to 3 targets; 6.1 lacks them (and ipi:ipi_send_*), so every
# row is skipped, its reason naming the csd tracepoints' 6.3.
anatomy_guest() {
	local d=$r/anatomy-out csv ph rc=0 T want got
	csv=$d/anatomy.csv
	ph=$d/anatomy-phases.csv
	[ -f "$csv" ] || { echo "# no anatomy.csv (exit status $(cat "$r/anatomy.rc" 2>/dev/null))"; tail -n 5 "$r/anatomy.out" 2>/dev/null | comment; return 1; }
	csv "$csv" threads,status,phases_from,skip_reason | sed 's/^\([^\t]*\)\t/# T=\1: /; s/\t/ /g'
	case $KERNEL_LINE in
	6.1 | 6.2)
		# Skipped rows: the reason is a whole CSV field with commas in
		# it; the csd part of it is what counts here.
		[ "$(csv -n "$csv" mechanism mechanism=membarrier-private-expedited)" = 3 ] &&
			[ "$(csv -n "$csv" mechanism mechanism=membarrier-private-expedited status=ok)" = 0 ] &&
			[ "$(csv -n "$csv" mechanism mechanism=membarrier-private-expedited \
				'skip_reason~csd tracepoints arrived in Linux 6[.]3')" = 3 ]
		;;
	*)
		[ -f "$ph" ] || { echo "# no anatomy-phases.csv"; return 1; }
		for T in 2 3 4; do
			want=$((T - 1))
			# delivery rows of single target CPUs (not all/other)
			got=$(csv "$ph" target_cpu,p50_ns,samples mechanism=membarrier-private-expedited \
				threads=$T phase=delivery 'target_cpu~^[0-9]+$' 'samples~^[1-9]' |
				awk -F'\t' '{ n++; s = s " cpu" $1 "=" $2 "ns(" $3 ")" } END { print n + 0 "|" s }')
			echo "# T=$T: delivery p50 per target:${got#*|}"
			[ "${got%%|*}" = "$want" ] || rc=1
		done
		return $rc
		;;
	esac
}

# 30-38, 40-48. The arm64 and riscv64 guests (QEMU's virt boards under
# TCG, the kernels cross-built by build-kernel --arch A): the functions
# above, read from their results ($r and $ru point there by then), and
# these. doctor's mprotect-barrier probe: on arm64 a revoked dirty page is
# flushed by broadcast TLBI, on riscv64 with IPIs through the SBI by the
# firmware's remote fence, so Linux on the running thread's CPU gets no
# IPI: the probe reads affected, the IPIs it counted per barrier about 0,
# and its cause is the one seen (riscv64: the SBI, from the kernel log).
mprotect_no_ipi() { # ARCH
	local f=$r/doctor-mprotect.out res m ev
	[ -f "$f" ] || { echo "# no doctor-mprotect output (did the $1 guest run?)"; return 1; }
	res=$(csv -H probe "$f" result probe=mprotect-barrier | head -n 1)
	m=$(csv -H probe "$f" measure probe=mprotect-barrier | head -n 1)
	ev=$(csv -H probe "$f" evidence probe=mprotect-barrier | head -n 1)
	echo "# $1: mprotect-barrier: ${res:-no row}, ${m:-?} IPIs per barrier on the running thread's CPU"
	echo "# $1: evidence: $ev"
	[ -n "$res" ] || tail -n 5 "$f" | comment
	if [ -f "$x86_r/doctor-mprotect.out" ]; then
		echo "# x86_64 (the fixed guest): mprotect-barrier: $(csv -H probe "$x86_r/doctor-mprotect.out" result probe=mprotect-barrier | head -n 1), $(csv -H probe "$x86_r/doctor-mprotect.out" measure probe=mprotect-barrier | head -n 1) IPIs per barrier"
	fi
	case $1 in
	riscv64) case $ev in *"by SBI call"*) ;; *) echo "# riscv64: the evidence names no SBI remote fence"; return 1 ;; esac ;;
	esac
	[ "$res" = affected ] && awk -v m="${m:-x}" 'BEGIN { exit !(m != "x" && m <= 0.2) }'
}
# ipi-check reads the row arm64 and riscv64 name "Function call
# interrupts" (IPI1 on both):
# PRIVATE_EXPEDITED interrupts CPU 1 only and seed-v1 every other CPU,
# as on x86.
ipi1_counted() {
	grep '^QUERY' "$ipi" | comment
	grep -E '^(SETUP|BASELINE|ERROR|SKIP)' "$ipi" | comment
	ipi_pattern membarrier-private-expedited 1 && ipi_pattern seed-v1-ipi-all 123
}
