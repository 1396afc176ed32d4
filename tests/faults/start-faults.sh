#!/bin/sh
# SPDX-License-Identifier: MIT
# The start of a run's threads under the test-only fault points
# (MBBENCH_FAULT, docs/HACKING.md "Fault points"), deterministically:
# late-start, the last thread of an rcu run (a writer) passes the start
# barrier only once the run was told to stop, as a descheduled writer of a
# 10 ms run on a busy host did: the run must end (a writer that stopped
# before it wrote once still counts itself done, or the readers wait for it
# for ever: without that, this test hangs and its timeout fails it);
# spawn-fail, the last thread's creation fails after the others started:
# every experiment that starts threads behind a start gate (rcu, contend,
# register, disturb) ends with its reason, and leaves no process behind.
. "${top_srcdir:-.}/tests/lib.sh"

need_cpus 2 "needs 2 CPUs: a reader and a writer, a caller and its spinner"
command -v timeout >/dev/null 2>&1 || { echo "1..0 # SKIP timeout not found (coreutils)"; exit 0; }
plan 3
cd "$TMP" || exit 1

MBBENCH_FAULT=late-start timeout 60 "$MBBENCH" rcu --scheme mb,membarrier-private-expedited --readers 1 --writers 1 \
	--duration 0.01 --repeat 1 --keep-degraded --format csv >out 2>err
rc=$?
[ "$rc" -eq 0 ] && [ "$(csv_col out writes 1)" = 0 ] && [ "$(csv_col out writes 2)" = 0 ]
ok $? "late-start: an rcu run whose writer starts after the stop ends (exit $rc; writes $(csv_col out writes 1), $(csv_col out writes 2): the writer ran after the stop)"

bad=
for cmd in "rcu --scheme mb --readers 1 --writers 1 --duration 0.01 --repeat 1" \
	"contend --mechanism membarrier-private-expedited --callers 1 --duration 0.02 --repeat 1" \
	"register --mechanism membarrier-private-expedited --threads 1 --repeat 1" \
	"disturb --mechanism membarrier-private-expedited --duration 0.05"; do
	# shellcheck disable=SC2086
	MBBENCH_FAULT=spawn-fail MBB_TEST_MARK="start-faults-$$" timeout 60 "$MBBENCH" $cmd --format csv >out 2>err
	rc=$?
	# A process of this run left behind still has the mark in its environment.
	left=$(grep -l -s -a "MBB_TEST_MARK=start-faults-$$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
	case $cmd in
	rcu* | contend*) grep -q 'pthread_create' out || bad="$bad [${cmd%% *}: no reason naming the thread]" ;;
	esac
	[ "$rc" -eq 0 ] && [ -z "$left" ] || bad="$bad [${cmd%% *}: rc $rc, left: ${left:-none}: $(head -c 120 err)]"
done
[ -z "$bad" ]
ok $? "spawn-fail: rcu, contend, register and disturb end with their reason, nothing left (${bad:-all 4})"

bad=
for cmd in "contend --mechanism membarrier-private-expedited --callers 1 --duration 0.02 --repeat 1" \
	"register --mechanism membarrier-private-expedited --threads 1 --repeat 1"; do
	# shellcheck disable=SC2086
	MBBENCH_FAULT=late-start timeout 60 "$MBBENCH" $cmd --format csv >out 2>err
	rc=$?
	[ "$rc" -eq 0 ] || bad="$bad [${cmd%% *}: rc $rc $(head -c 120 err)]"
done
[ -z "$bad" ]
ok $? "late-start: contend and register end (${bad:-both})"
done_testing
