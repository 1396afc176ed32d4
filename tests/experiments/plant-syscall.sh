#!/bin/sh
# SPDX-License-Identifier: MIT
# --plant-syscall NS: a planted kernel regression. Every expedited
# membarrier(2) call of the process busy-waits NS after the syscall, the
# delivery floor's calls too (as a patch to the barrier path would slow
# both), and nothing else: a fence is untouched. run.json's params record
# it, and bad values are one line, exit 2.
. "${top_srcdir:-.}/tests/lib.sh"
need_python
plan 5
cd "$TMP" || exit 1
PLANT=20000

bad=
for v in 0 -1 10000001 abc "" 1e3; do
	"$MBBENCH" calls --mechanism fence --threads 1 --plant-syscall "$v" --output o >/dev/null 2>err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ ! -e o ] || bad="$bad [$v: rc $rc]"
	rm -rf o
done
[ -z "$bad" ]
ok $? "--plant-syscall with a bad value: exit 2, one line, no folder (bad:${bad:- none})"

# calls M T PLANT-OPTION...: the CSV of a short calls run (degraded repeats
# kept: the busy wait is what is checked, not the barrier).
calls() {
	m=$1 t=$2
	shift 2
	"$MBBENCH" calls --keep-degraded --mechanism "$m" --threads "$t" --repeat 3 --duration 0.2 \
		"$@" --format csv --output "$m-$t${1:+-planted}" >/dev/null 2>>err
}
if mechanism_available membarrier-private-expedited; then
	calls membarrier-private-expedited 1 && calls membarrier-private-expedited 1 --plant-syscall $PLANT
	p=$(csv_col membarrier-private-expedited-1/calls.csv ns_per_call)
	q=$(csv_col membarrier-private-expedited-1-planted/calls.csv ns_per_call)
	awk -v p="${p:-x}" -v q="${q:-x}" -v d=$PLANT 'BEGIN { exit !(p != "x" && q != "x" && q - p >= 0.75 * d) }'
	ok $? "PRIVATE_EXPEDITED at T=1: plain ${p:-none} ns, planted ${q:-none} ns a call: at least 3/4 of the $PLANT ns plant added"
	json_val membarrier-private-expedited-1-planted/calls.json params plant_syscall_ns >pj 2>/dev/null
	[ "$(cat pj)" = $PLANT ] && ! json_val membarrier-private-expedited-1/calls.json params plant_syscall_ns >/dev/null 2>&1
	ok $? "the planted run's JSON params say plant_syscall_ns $PLANT, the plain run's nothing"
	# The floor (PRIVATE_EXPEDITED_RSEQ to one CPU) is an expedited call
	# too: where the host gives one, it carries the plant.
	calls membarrier-private-expedited 2 && calls membarrier-private-expedited 2 --plant-syscall $PLANT
	f0=$(csv_col membarrier-private-expedited-2/calls.csv floor_ns)
	f1=$(csv_col membarrier-private-expedited-2-planted/calls.csv floor_ns)
	if [ -n "$f0" ] && [ -n "$f1" ]; then
		awk -v a="$f0" -v b="$f1" -v d=$PLANT 'BEGIN { exit !(b - a >= 0.5 * d) }'
		ok $? "the delivery floor carries the plant: $f0 ns plain, $f1 ns planted"
	else
		skip "no delivery floor measured here (floor_ns '${f0}' / '${f1}': $(csv_col membarrier-private-expedited-2/calls.csv degraded_reason))"
	fi
else
	skip "membarrier-private-expedited unavailable here"
	skip "membarrier-private-expedited unavailable here"
	skip "membarrier-private-expedited unavailable here"
fi
calls fence 1 && calls fence 1 --plant-syscall $PLANT
q=$(csv_col fence-1-planted/calls.csv ns_per_call)
awk -v q="${q:-x}" 'BEGIN { exit !(q != "x" && q < 1000) }'
ok $? "a fence makes no membarrier(2) call: ${q:-none} ns a call with the plant"
done_testing
