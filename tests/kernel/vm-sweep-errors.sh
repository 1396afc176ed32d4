#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/vm refuses bad input before it builds, fetches or boots anything:
# one line, exit 2, no results folder. That includes the kernels of an A/B
# run: an unknown variant name or a bzImage that is not there.
. "${top_srcdir:-.}/tests/lib.sh"

SWEEP="$(cd "$top_srcdir" && pwd)/bench/vm"
mkdir "$TMP/full" && touch "$TMP/full/x"
# The default results folder is relative to the working directory: run from
# an empty one, so that what an earlier command left in the tree (make bench
# writes results/runs) cannot decide a case.
mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 99
cases="unknown experiment|frobnicate
no experiment|
vCPU count 0|scale --smp 0
vCPU count garbage|scale --smp four
one vCPU|scale --smp 1
vCPUs above CONFIG_NR_CPUS|scale --smp 2,65
nohz_full on the caller's CPU|isolation --isolate 0
nohz_full range over the caller's CPU|isolation --isolate 0-1
isolated CPU beyond the 4-vCPU guest|isolation --isolate 2-5
garbage CPU list|isolation --isolate two
unknown option|scale --fast
missing static mbbench|scale --smp 2 --mbbench-static $TMP/none
non-empty output folder|scale --smp 2 --mbbench-static $MBBENCH --out $TMP/full
unknown kernel name|scale --smp 2 --kernels unfixed,frobbed
missing bzImage|scale --smp 2 --kernel A=$TMP/none --kernels fixed
--kernel without a path|scale --smp 2 --kernel A
kernel named twice|scale --smp 2 --kernels fixed,fixed
kernel name that is not a folder name|scale --smp 2 --kernel ../x=$TMP/full/x
--kernels without a list|scale --smp 2 --kernels
empty element in the vCPU list|scale --smp 2,,4
vCPU count of 20 digits|scale --smp 99999999999999999999
output folder that is a file|scale --smp 2 --mbbench-static $MBBENCH --out $TMP/full/x
sweep with a vCPU list|sweep --smp 4
sweep with two numbers for a topology|sweep --topology 2,4
sweep with a zero in the topology|sweep --topology 2,0,2
sweep with more vCPUs than CONFIG_NR_CPUS|sweep --topology 4,9,2
sweep with a budget below 10 s|sweep --budget 5
replicates 0|scale --smp 2 --replicates 0
replicates above 10|scale --smp 2 --replicates 11
replicates garbage|isolation --replicates three
sweep with replicates|sweep --replicates 2
sweep with a budget of garbage|sweep --budget soon
budget outside sweep|scale --smp 2 --budget 300
sweep into a non-empty folder|sweep --mbbench-static $MBBENCH --out $TMP/full
contend with a vCPU list|contend --smp 4,8
contend with one vCPU|contend --smp 1
contend with caller count 0|contend --callers 0
contend with garbage callers|contend --callers two
contend with --threads|contend --threads 2
contend with garbage duration|contend --duration soon
contend with --full|contend --full
contend with an unknown kernel|contend --kernels fixed,percpu
contend with an unknown mechanism|contend --mechanism membarrier-private-expedited,nosuch --mbbench-static $MBBENCH
contend with boots 0|contend --kernels fixed,unfixed --boots 0
contend with boots above 10|contend --kernels fixed,unfixed --boots 11
contend with boots and one kernel|contend --kernels fixed --boots 2
scale with boots|scale --smp 2 --kernels fixed,unfixed --boots 2
anatomy with --callers|anatomy --callers 2
anatomy with barriers below repeat|anatomy --barriers 3 --repeat 5
anatomy with repeat 0|anatomy --repeat 0
anatomy into a non-empty folder|anatomy --mbbench-static $MBBENCH --out $TMP/full
scale with --mechanism|scale --smp 2 --mechanism fence
semantics with an unknown architecture|semantics --arch sparc
semantics with an empty architecture|semantics --arch x86_64,,arm64
semantics with 2 vCPUs|semantics --smp 2
semantics with replicates 0|semantics --replicates 0
semantics with a zero duration|semantics --duration 0
semantics with a duration of garbage|semantics --duration soon
semantics with an option of another experiment|semantics --boots 2
semantics with an unknown kernel|semantics --kernels percpu-mutex
semantics with an empty kernel|semantics --kernels stock,,fixed
semantics with an option for a value|semantics --smp --out $TMP/cwd/x
semantics into an existing folder|semantics --mbbench-static $MBBENCH --out $TMP/full"
plan $(($(printf '%s\n' "$cases" | wc -l) + 3))
while IFS='|' read -r name args; do
	# shellcheck disable=SC2086
	sh "$SWEEP" $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -e results/runs ] &&
		[ "$(ls "$TMP/full")" = x ]
	ok $? "$name: exit 2, one line ($(cat "$TMP/err"))"
done <<CASES
$cases
CASES
# The messages say what is wrong.
sh "$SWEEP" scale --smp 99999999999999999999 2>&1 | grep -q "above the kernel's CONFIG_NR_CPUS"
ok $? "a 20-digit vCPU count: no shell error, the limit named"
sh "$SWEEP" scale --smp 2 --mbbench-static "$MBBENCH" --out "$TMP/full/x" 2>&1 | grep -q 'is a file, not a directory'
ok $? "--out naming a file: said so (not 'not empty')"
sh "$SWEEP" semantics --smp --out "$TMP/cwd/x" 2>&1 | grep -q -- '--smp needs .* before the next option --out'
ok $? "an option where a value is due: the option with no value named"
done_testing
