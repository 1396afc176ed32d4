#!/bin/sh
# SPDX-License-Identifier: MIT
# `mbbench sweep --plan` on synthetic big hosts: the points and predicted
# times match tests/golden/plan-*.txt, quick fits 300 s and full 2 h, nothing
# is created, and at T=2 compact puts the other thread on another core.
# `make golden` rewrites the golden files (MBB_WRITE_GOLDEN=1) after a
# change of the plan, such as a new swept experiment; review their diff.
. "${top_srcdir:-.}/tests/lib.sh"

GOLDEN=$(cd "${top_srcdir:-.}/tests/golden" && pwd)
# The plans run in $TMP, to see that they create nothing there.
case $MBBENCH in /*) ;; *) MBBENCH=$(pwd)/$MBBENCH ;; esac
# name|topology: 2 packages with SMT2 at 16 to 256 PUs, and 4 NUMA nodes
topos="16|pack:2 core:4 pu:2
64|pack:2 l3:2 core:8 pu:2
128|pack:2 l3:1 core:32 pu:2
256|pack:2 l3:8 core:8 pu:2
numa4|pack:2 node:2 l3:2 core:8 pu:2"

# The rcu schemes are part of the plan: the golden files have liburcu's.
"$MBBENCH" rcu --scheme '?' 2>&1 | grep -q liburcu-qsbr || {
	echo "1..0 # SKIP built without liburcu: the golden plans count its rcu schemes"
	exit 77
}
plan 20

cd "$TMP" || exit 1
while IFS='|' read -r name topo; do
	for preset in quick full; do
		MBBENCH_SYNTHETIC="$topo" "$MBBENCH" sweep --$preset --plan --assume-available \
			>"plan-$name-$preset.txt" 2>"err"
		rc=$?
		[ "$rc" -eq 0 ] && [ "${MBB_WRITE_GOLDEN:-0}" = 1 ] &&
			cp "plan-$name-$preset.txt" "$GOLDEN/plan-$name-$preset.txt"
		if [ "$rc" -eq 0 ] && cmp -s "plan-$name-$preset.txt" "$GOLDEN/plan-$name-$preset.txt"; then
			ok 0 "plan of \"$topo\" $preset matches plan-$name-$preset.txt"
		else
			ok 1 "plan of \"$topo\" $preset matches plan-$name-$preset.txt (rc $rc)"
			diff "$GOLDEN/plan-$name-$preset.txt" "plan-$name-$preset.txt" | head -n 20 | sed 's/^/# /'
			sed 's/^/# /' err
		fi
	done
done <<EOF_TOPOS
$topos
EOF_TOPOS

# The budgets: quick within 300 s, full within 2 h, on every topology.
over=
for f in plan-*-quick.txt plan-*-full.txt; do
	limit=300
	case $f in *-full.txt) limit=7200 ;; esac
	s=$(sed -n 's/^# predicted: \([0-9]*\) s.*/\1/p' "$f")
	[ -n "$s" ] && [ "$s" -le "$limit" ] || over="$over $f:${s:-none}"
done
[ -z "$over" ]
ok $? "every plan predicts quick <= 300 s and full <= 7200 s (over:${over:- none})"

[ -z "$(ls -A "$TMP" | grep -v '^plan-\|^err$')" ]
ok $? "--plan created no folder"

# compact at T=2: the other thread shares neither the caller's core nor PU.
bad=
while IFS='|' read -r name topo; do
	c=$(MBBENCH_SYNTHETIC="$topo" "$MBBENCH" points --format csv |
		csv_cols - list count n_same_core | awk -F'\t' '$1 == "threads" && $2 == 2 { print $3 }')
	[ "$c" = 0 ] || bad="$bad $name:${c:-none}"
done <<EOF_TOPOS
$topos
EOF_TOPOS
[ -z "$bad" ]
ok $? "compact T=2: the other thread is on another core on every topology (bad:${bad:- none})"

# The 256-PU plan measures at most 13 thread counts, not 257 (the quick fit
# drops the powers of two between topology points before it takes the
# processes per point below 4).
n=$(sed -n 's/^# threads (calls): //p' plan-256-quick.txt | tr ',' '\n' | wc -l)
[ "$n" -ge 5 ] && [ "$n" -le 13 ]
ok $? "256 PUs: 5 to 13 thread counts ($n)"

# --budget cuts the plan until it fits (or as far as it can) and says how.
MBBENCH_SYNTHETIC="pack:2 l3:8 core:8 pu:2" "$MBBENCH" sweep --plan --assume-available \
	--budget 2m >small.txt 2>err
s=$(sed -n 's/^# predicted: \([0-9]*\) s.*/\1/p' small.txt)
[ -n "$s" ] && [ "$s" -le 120 ] && grep -q '^# fit: durations scaled' small.txt
ok $? "--budget 2m on 256 PUs: the plan is cut to fit (${s:-none} s)"

# --threads, --callers and --placement reach the experiments.
MBBENCH_SYNTHETIC="pack:2 core:4 pu:2" "$MBBENCH" sweep --plan --threads 1,4 --callers 2 \
	--placement smt --mechanism signal >given.txt 2>err &&
	grep -q '^calls signal .* --threads 1,4 --placement smt ' given.txt &&
	grep -q '^contend signal .* --placement smt .*--callers 2$' given.txt
ok $? "--threads, --callers and --placement are passed to the experiments"

bad=
for args in "--plan --budget soon" "--plan --budget 5" "--plan --threads 0" \
	"--plan --callers 1-" "--plan --placement sideways" "--assume-available"; do
	# shellcheck disable=SC2086
	"$MBBENCH" sweep $args >out 2>err
	rc=$?
	{ [ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ ! -s out ]; } || bad="$bad [$args: rc $rc]"
done
[ -z "$bad" ]
ok $? "bad --budget, --threads, --callers, --placement, --assume-available without --plan: exit 2, one line (bad:${bad:- none})"

# mbbench plan is the plan: sweep --plan prints exactly what it prints.
bad=
for args in "--quick" "--full --budget 20m --mechanism signal,null" "--threads 1-3 --callers 2 --behaviour sleep"; do
	# shellcheck disable=SC2086
	MBBENCH_SYNTHETIC="pack:2 core:4 pu:2" "$MBBENCH" sweep --plan $args >sweep.txt 2>err &&
		MBBENCH_SYNTHETIC="pack:2 core:4 pu:2" "$MBBENCH" plan $args >planc.txt 2>err &&
		cmp -s sweep.txt planc.txt && [ -s planc.txt ] || bad="$bad [$args]"
done
[ -z "$bad" ]
ok $? "sweep --plan prints what mbbench plan prints (bad:${bad:- none})"

bad=
for args in "--budget soon" "--budget 5" "--threads 0" "--threads 1,,2" "--callers 1-" "--callers 3-2" \
	"--placement sideways" "--placement a/b" "--behaviour lazy" "--mechanism nosuch" \
	"--mechanism null,,fence" "--quick --full" "--format xml" "--budget" "--frobnicate" "extra"; do
	# shellcheck disable=SC2086
	"$MBBENCH" plan $args >out 2>err
	rc=$?
	{ [ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ ! -s out ]; } || bad="$bad [$args: rc $rc]"
done
[ -z "$bad" ]
ok $? "mbbench plan with bad input: exit 2, one line, nothing on stdout (bad:${bad:- none})"

# The topology as XML, for a host without lstopo (a guest): what hwloc reads
# back from it is the same machine.
MBBENCH_SYNTHETIC="pack:2 node:2 l3:2 core:8 pu:2" "$MBBENCH" points --format xml >topo.xml 2>err &&
	head -n 1 topo.xml | grep -q '^<?xml' &&
	[ "$(MBBENCH_SYNTHETIC="pack:2 node:2 l3:2 core:8 pu:2" "$MBBENCH" points | head -n 1)" = \
		"$(HWLOC_XMLFILE=topo.xml "$MBBENCH" points | head -n 1)" ] &&
	{ "$MBBENCH" points --format xml --list npus >out 2>err; [ $? -eq 2 ] && [ ! -s out ]; }
ok $? "points --format xml: hwloc XML that loads back as the same topology; with --list, exit 2"
