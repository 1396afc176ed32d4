#!/bin/sh
# SPDX-License-Identifier: MIT
# disturb's bad input: one line on stderr naming the fix, exit 2, no files,
# and no victim process started.
. "${top_srcdir:-.}/tests/lib.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
# NCPU distinct roles (a role given twice is kept once): one more than the
# CPUs besides the caller's.
many=self-spin
i=1
while [ "$i" -lt "$NCPU" ]; do many="$many,idle@$i"; i=$((i + 1)); done

# name|args (split on spaces)
cases="unknown role|disturb --roles dancer
unknown role with a CPU|disturb --roles spinner@1
more roles than CPUs|disturb --roles $many
role on the caller's CPU|disturb --roles self-spin@0
role on the caller's CPU moved|disturb --caller-cpu 1 --roles idle@1
role on an absent CPU|disturb --roles idle@99999
bad CPU after @|disturb --roles idle@one
empty role list|disturb --roles ,
two roles on one CPU|disturb --roles idle@1,self-spin@1
rate 0|disturb --rate 0
rate garbage|disturb --rate fast
rate negative|disturb --rate -5
rate huge|disturb --rate 99999999999
rate bad unit|disturb --rate 10/min
rt-prio 0|disturb --rt-prio 0
rt-prio above 10|disturb --rt-prio 50
absent caller CPU|disturb --caller-cpu 99999
unknown ipi source|disturb --ipi-source guess
victim command not found|disturb --victim-cmd no-such-oslat-xyz
victim command path not found|disturb --victim-cmd /nonexistent/oslat
victim command not an rt-tests tool|disturb --victim-cmd ls
iterations|disturb --iterations 100
unknown mechanism|disturb --mechanism nosuch
output under a missing directory|disturb --output $TMP/missing/dir"

n=$(printf '%s\n' "$cases" | wc -l)
plan $((n * 2 + 4))
# A victim of this test's runs carries its tag (tests running beside this
# one may start victims of their own).
MBB_TEST_TAG=$TMP
export MBB_TEST_TAG
no_victim() {
	for p in $(pgrep -x mbbench-victim); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "MBB_TEST_TAG=$TMP" && return 1
	done
	return 0
}
while IFS='|' read -r name args; do
	usage_error "$name" "$args"
	[ ! -s "$TMP/out" ] && [ ! -e "$TMP/missing" ] && [ ! -e x ] &&
		no_victim
	ok $? "$name: nothing written, no victim started"
done <<CASES
$cases
CASES
# A value with blanks cannot go through the table above.
"$MBBENCH" disturb --victim-cmd "oslat --json=$TMP/x.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -e "$TMP/x.json" ] && [ ! -s "$TMP/out" ]
ok $? "victim command with its own --json: exit 2, nothing written ($(head -c 160 "$TMP/err"))"

# --ipi-source tracepoint asked for and not to be had: an error naming the
# fix, not a silent fallback to /proc/interrupts. Shown as an unprivileged user.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ] && can_drop; then
	chmod 755 "$TMP" && mkdir "$TMP/nb" && chmod 777 "$TMP/nb"
	nobody "$MBBENCH" disturb --mechanism null --roles self-spin \
		--duration 0.1 --ipi-source tracepoint --output "$TMP/nb/tp" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'ipi-source' "$TMP/err" && [ ! -e "$TMP/nb/tp" ]
	ok $? "--ipi-source tracepoint without the tracepoints: exit $rc, the fix named, nothing written ($(head -c 160 "$TMP/err"))"
else
	skip "--ipi-source tracepoint refusal: needs root (to drop to an unprivileged user who can run mbbench), setpriv and perf_event_paranoid >= 0"
fi

# A TLB counter that never moved is not a measurement: empty cells and a note.
tlb=$(awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; f = 1 } END { print f ? s + 0 : "none" }' /proc/interrupts)
"$MBBENCH" disturb --mechanism null --roles self-spin --duration 0.1 --ipi-source proc --format csv \
	--json "$TMP/t.json" >"$TMP/t.csv" 2>/dev/null
if [ "$tlb" = 0 ] || [ "$tlb" = none ]; then
	csv_cols "$TMP/t.csv" tlb_shootdowns | awk '$0 != "" { bad = 1 } END { exit bad }' &&
		json_val "$TMP/t.json" notes | grep -q '^tlb_shootdowns not measured'
	ok $? "TLB counter at $tlb since boot: tlb cells empty, the reason in the notes"
else
	csv_cols "$TMP/t.csv" tlb_shootdowns | awk '$0 == "" { bad = 1 } END { exit bad }'
	ok $? "TLB counter at $tlb since boot: tlb cells are counts"
fi
# A slow rate still measures the whole --duration, and on-CPU shares stay
# fractions (at --rate 1 the storm used to end after its one barrier).
"$MBBENCH" disturb --mechanism null --roles self-spin --rate 1 --duration 0.3 --ipi-source proc \
	--format csv >"$TMP/slow.csv" 2>/dev/null &&
	csv_cols "$TMP/slow.csv" elapsed_s oncpu_fraction |
	awk -F'\t' '{ if ($1 < 0.29) bad = 1; if ($2 != "" && ($2 < 0 || $2 > 1.05)) bad = 1; n++ }
		END { exit bad || !n }'
ok $? "--rate 1 --duration 0.3: every phase lasts 0.3 s and on-CPU shares stay within [0, 1]"
done_testing
