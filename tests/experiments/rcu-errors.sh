#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input to rcu and litmus: one line on stderr naming the fix, exit 2, no
# output files. A liburcu scheme in a build without liburcu is not bad
# input: it is a skipped row with its reason.
. "${top_srcdir:-.}/tests/lib.sh"

mkdir "$TMP/adir"
cases="readers 0|rcu --readers 0
readers garbage|rcu --readers many
readers above 4096|rcu --readers 4097
writers negative|rcu --writers -1
writers 0|rcu --writers 0
unknown scheme|rcu --scheme nosuch
empty scheme list|rcu --scheme ,
broken scheme without --allow-broken|rcu --scheme broken-no-wait
broken scheme in a list|rcu --scheme mb,broken-no-barrier
cs-ns garbage|rcu --cs-ns short
cs-ns negative|rcu --cs-ns -5
writer delay too long|rcu --writer-delay-ns 2000000000
iterations for rcu|rcu --iterations 100
rcu bad placement|rcu --placement sideways
rcu absent CPU|rcu --placement 0,99999
rcu unknown option|rcu --mechanism fence
rcu duration 0|rcu --duration 0
rcu max-repeat below repeat|rcu --ci-target 5 --repeat 4 --max-repeat 3
rcu ci-target above 50|rcu --ci-target 60
unknown pairing|litmus --pairing nosuch
fence is not a heavy pairing|litmus --pairing fence
empty pairing list|litmus --pairing ,
litmus repeat 0|litmus --repeat 0
litmus repeat garbage|litmus --repeat many
litmus bad placement|litmus --placement sideways"

n=$(printf '%s\n' "$cases" | wc -l)
plan $((n * 2 + 2))
while IFS='|' read -r name args; do
	# shellcheck disable=SC2086
	"$MBBENCH" $args --output "$TMP/adir/out" --json "$TMP/x.json" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	lines=$(wc -l <"$TMP/err")
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^mbbench: ' "$TMP/err"
	ok $? "$name: exit 2 with one error line (rc=$rc, $lines lines: $(head -c 160 "$TMP/err"))"
	[ -z "$(ls "$TMP/adir")" ] && [ ! -e "$TMP/x.json" ] && [ ! -s "$TMP/out" ]
	ok $? "$name: no output written"
done <<CASES
$cases
CASES

"$MBBENCH" rcu --keep-degraded --scheme liburcu-mb --duration 0.05 --repeat 1 --format csv >"$TMP/u.csv" 2>"$TMP/err"
rc=$?
ok $rc "a liburcu scheme is never a usage error (exit $rc)"
st="$(csv_col "$TMP/u.csv" status)|$(csv_col "$TMP/u.csv" skip_reason)"
case $st in
ok\|) ok 0 "liburcu-mb ran (built with liburcu)" ;;
skipped\|built\ without\ liburcu*) ok 0 "liburcu-mb skipped: ${st#*|}" ;;
*) ok 1 "liburcu-mb row is ok or skipped with a reason (got '$st')" ;;
esac
done_testing
