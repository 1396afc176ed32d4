#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mbb-guest-checks: the guest half of kernel-patch/check-kernel.
#
# Installed in the initramfs as /bin/mbb-guest-checks and run by /init from
# /results. Each check writes its output and its exit status (NAME.rc) to
# the current directory; check-kernel judges them on the host, so that a
# failure here never hides the output of the checks after it.
#
#   ctxsw                            ns per context switch between two
#                                    threads of one process (ctxsw.c);
#                                    first, so that both kernels' boots
#                                    measure it at the same point
#   selftest-single, selftest-multi  upstream membarrier selftests
#   lazy                             membarrier_global_expedited_lazy (KTAP)
#   ipi-check                        QUERY mask and CAL IPIs per barrier
#   mbbench-list, mbbench-calls      only when /bin/mbbench is present
#   litmus                           store buffering with GLOBAL_EXPEDITED
#                                    (after the no-barrier control, whose
#                                    threads leave lazy mms behind), ditto
#   doctor-lazy, doctor              `mbbench doctor --probe lazy-mm
#                                    --format csv` (again while it cannot
#                                    tell, 3 runs at most), and the whole
#                                    human `mbbench doctor`, ditto
#   doctor-mprotect                  `mbbench doctor --probe
#                                    mprotect-barrier --format csv`
#   serialization                    whether an expedited caller waits
#                                    for another caller's mutex: two
#                                    caller processes of `mbbench
#                                    contend`, each with a spinner of its
#                                    own, issue PRIVATE_EXPEDITED and the
#                                    targeted PRIVATE_EXPEDITED_RSEQ
#                                    (FLAG_CPU, each at its own spinner's
#                                    CPU) while lock:contention_begin
#                                    records the mutexes they wait on:
#                                    SERIAL lines in serialization.out
#   doctor-rseq                      `mbbench doctor --probe rseq-restart
#                                    --format csv`: whether
#                                    PRIVATE_EXPEDITED_RSEQ (and with
#                                    FLAG_CPU) aborts an rseq critical
#                                    section running on each target CPU
#   anatomy                          `mbbench anatomy` of PRIVATE_EXPEDITED
#                                    at T = 2, 3, 4 (csv in anatomy-out/)
#   kselftest                        /usr/lib/kselftest/run_kselftest.sh:
#                                    the membarrier kselftests with the
#                                    upstream series' new test, built and
#                                    installed the upstream way (only when
#                                    check-kernel put them there)
#
# With arguments, only the named groups run: ctxsw, selftests, lazy,
# ipi-check, mbbench, litmus, doctor, mprotect, rseq, serialization,
# anatomy, kselftest (check-kernel's boot of the unfixed kernel runs "ctxsw
# lazy litmus doctor kselftest", that of the percpu-mutex kernel
# "kselftest", that of the rseq-broken one "rseq").

run() {
	name=$1
	shift
	echo "mbb-guest-checks: $name: $*"
	"$@" >"$name.out" 2>&1
	echo $? >"$name.rc"
	cat "$name.out"
}

want() {
	[ -z "$groups" ] || case " $groups " in *" $1 "*) ;; *) return 1 ;; esac
}
groups="$*"
# /bin/mbbench in the guest; a test may put another on PATH.
have_mbbench() {
	command -v mbbench >/dev/null 2>&1
}

if want ctxsw; then
	run ctxsw ctxsw --loops "${CTXSW_LOOPS:-10000}" \
		--repeats "${CTXSW_REPEATS:-20}"
fi
if want selftests; then
	run selftest-single membarrier_test_single_thread
	run selftest-multi membarrier_test_multi_thread
fi
want lazy && run lazy membarrier_global_expedited_lazy "${LAZY_BARRIERS:-1000}"
if want ipi-check; then
	run ipi-check ipi-check --barriers "${IPI_BARRIERS:-300}" \
		--sched-barriers "${IPI_SCHED_BARRIERS:-30}"
fi
if have_mbbench && want mbbench; then
	run mbbench-list mbbench list
	run mbbench-calls mbbench calls --mechanism all --threads 1-2 \
		--iterations 200 --repeat 1 --format csv \
		--output "$PWD/mbbench-calls-out"
fi
if have_mbbench && want litmus; then
	run litmus mbbench litmus \
		--pairing none,membarrier-global-expedited \
		--duration "${LITMUS_SECONDS:-2}" --format csv \
		--output "$PWD/litmus-out"
fi
# The lazy-mm probe says "cannot tell" when it could not keep the CPU
# under test quiet long enough, and to rerun: up to 3 runs while it
# says so (each kept as doctor-lazy-N.out; doctor-lazy.out is the last).
# The result is read as CSV (mbb-csv: the question field is quoted and
# holds commas). DOCTOR_BUDGET (seconds, from check-kernel) bounds each
# run's attempts; without it the probe sets its own from their pace.
if have_mbbench && want doctor; then
	for i in 1 2 3; do
		run doctor-lazy mbbench doctor --probe lazy-mm \
			${DOCTOR_BUDGET:+--budget "$DOCTOR_BUDGET"} --format csv
		cp doctor-lazy.out "doctor-lazy-$i.out"
		res=$(mbb-csv -H probe doctor-lazy.out result probe=lazy-mm 2>&1)
		echo "mbb-guest-checks: doctor-lazy run $i: ${res:-no lazy-mm row}"
		[ "$res" = "cannot tell" ] || break
	done
	run doctor mbbench doctor ${DOCTOR_BUDGET:+--budget "$DOCTOR_BUDGET"}
fi
# doctor's mprotect-barrier probe alone: whether revoking a dirty page
# interrupts the CPU of a running thread (x86: a TLB-shootdown IPI;
# arm64: broadcast TLBI, no IPI), as CSV.
if have_mbbench && want mprotect; then
	run doctor-mprotect mbbench doctor --probe mprotect-barrier --format csv
fi
# doctor's rseq-restart probe alone: whether a PRIVATE_EXPEDITED_RSEQ
# barrier restarts an rseq critical section running on each other CPU
# (with FLAG_CPU only on the CPU aimed at), as CSV. It only counts barriers
# issued while a target was seen running inside its critical section, so a
# starved vCPU costs rounds and at worst reads "cannot tell".
if have_mbbench && want rseq; then
	run doctor-rseq mbbench doctor --probe rseq-restart --format csv
fi
# The mutex waits of two expedited callers: lock:contention_begin events
# with the MUTEX flag (bit 5) while mbbench contend runs, the waits counted
# and the distinct mutexes they were on (hashed addresses). The global
# membarrier_ipi_mutex shows as one address for both commands; a per-CPU
# mutex for the targeted one (Linux 7.0+) as none, the two callers
# aiming at different CPUs.
serialization() {
	tr=/sys/kernel/tracing
	ev=$tr/events/lock/contention_begin
	if [ ! -d "$ev" ]; then
		echo "SKIP no lock:contention_begin tracepoint in this kernel"
		return 0
	fi
	echo 0 >"$tr/tracing_on"
	echo 4096 >"$tr/buffer_size_kb"
	echo 'flags & 32' >"$ev/filter"
	echo 1 >"$ev/enable"
	for m in membarrier-private-expedited membarrier-private-expedited-rseq-cpu; do
		echo >"$tr/trace"
		echo 1 >"$tr/tracing_on"
		mbbench contend --mechanism "$m" --mode processes --callers 2 --spinners 1 \
			--duration "${SERIAL_SECONDS:-1}" --repeat 1 --format csv \
			--output "$PWD/serial-$m" >"serial-$m.out" 2>&1
		crc=$?
		echo 0 >"$tr/tracing_on"
		grep 'contention_begin:' "$tr/trace" >"serial-$m.trace"
		waits=$(wc -l <"serial-$m.trace")
		locks=$(sed -n 's/.*contention_begin: \([^ ]*\) .*/\1/p' "serial-$m.trace" | sort -u | wc -l)
		lost=$(grep -c 'LOST' "$tr/trace")
		rate=$(mbb-csv "serial-$m/contend.csv" aggregate_calls_per_s callers=2 2>/dev/null)
		echo "SERIAL mech=$m rc=$crc seconds=${SERIAL_SECONDS:-1} calls_per_s=${rate:-none} waits=$waits mutexes=$locks lost=$lost"
	done
	echo 0 >"$ev/enable"
	echo 0 >"$ev/filter"
}
if have_mbbench && want serialization; then
	run serialization serialization
fi
if have_mbbench && want anatomy; then
	run anatomy mbbench anatomy --mechanism membarrier-private-expedited \
		--threads 2,3,4 --barriers "${ANATOMY_BARRIERS:-300}" --repeat 3 \
		--format csv --output "$PWD/anatomy-out"
fi
# The runner's runner.sh sends each test's output to "$logfile", which is
# /dev/stdout: reopened on a regular file (run's NAME.out) it writes from
# the start of the file over the runner's own lines, so it gets a pipe.
# kselftest.rc is cat's status; check-kernel judges the TAP lines.
kselftest() {
	/usr/lib/kselftest/run_kselftest.sh 2>&1 | cat
}
if [ -x /usr/lib/kselftest/run_kselftest.sh ] && want kselftest; then
	run kselftest kselftest
fi
exit 0
