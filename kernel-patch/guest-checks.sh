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
#   selftest-single, selftest-multi  upstream membarrier selftests
#   lazy                             membarrier_global_expedited_lazy (KTAP)
#   ipi-check                        QUERY mask and CAL IPIs per barrier
#   mbbench-list, mbbench-calls      only when /bin/mbbench is present
#   litmus                           store buffering with GLOBAL_EXPEDITED
#                                    (after the no-barrier control, whose
#                                    threads leave lazy mms behind), ditto
#
# With arguments, only the named groups run: selftests, lazy, ipi-check,
# mbbench, litmus (check-kernel's boot of the unfixed kernel runs
# "lazy litmus").

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

if want selftests; then
	run selftest-single membarrier_test_single_thread
	run selftest-multi membarrier_test_multi_thread
fi
want lazy && run lazy membarrier_global_expedited_lazy "${LAZY_BARRIERS:-1000}"
if want ipi-check; then
	run ipi-check ipi-check --barriers "${IPI_BARRIERS:-300}" \
		--sched-barriers "${IPI_SCHED_BARRIERS:-30}"
fi
if [ -x /bin/mbbench ] && want mbbench; then
	run mbbench-list mbbench list
	run mbbench-calls mbbench calls --mechanism all --threads 1-2 \
		--iterations 200 --repeat 1 --format csv \
		--output "$PWD/mbbench-calls-out"
fi
if [ -x /bin/mbbench ] && want litmus; then
	run litmus mbbench litmus \
		--pairing none,membarrier-global-expedited \
		--duration "${LITMUS_SECONDS:-2}" --format csv \
		--output "$PWD/litmus-out"
fi
exit 0
