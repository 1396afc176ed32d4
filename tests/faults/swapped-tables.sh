#!/bin/sh
# SPDX-License-Identifier: MIT
# A table that is not what its name says is bad input: for every pair of a
# sweep's tables, one CSV holding the other's table makes report, compare
# and plot exit 2 with one line naming the file and the table it holds,
# before anything is drawn or written.
. "${top_srcdir:-.}/tests/lib.sh"

need_scipy
need_cpus 2 "needs 2 CPUs: the ab preset's points run at T=2"
plan 4
cd "$TMP" || exit 1
"$MBBENCH" sweep --ab --mechanism membarrier-private-expedited,null --output f >/dev/null 2>err
ok $? "a sweep with calls, distance, latency, register and contend ($(tail -n 1 err))"
tables=$(cd f && ls ./*.csv | sed 's|^\./||; s|\.csv$||' | tr '\n' ' ')

bad= n=0
for t in $tables; do
	for u in $tables; do
		[ "$t" = "$u" ] && continue
		rm -rf g && cp -a f g && cp "f/$u.csv" "g/$t.csv" && rm -f g/report.md
		"$MBBENCH" report g >out 2>err
		rc=$?
		n=$((n + 1))
		{ [ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "g/$t.csv holds the $u table, not $t" err &&
			[ ! -e g/report.md ]; } || bad="$bad [$t<-$u: rc $rc $(head -c 120 err)]"
	done
done
[ -z "$bad" ]
ok $? "report: every one of $n swaps is exit 2 naming the table it holds (${bad:-none wrong})"

bad=
for pair in calls:register register:latency latency-histogram:distance; do
	t=${pair%%:*} u=${pair#*:}
	rm -rf g && cp -a f g && cp "f/$u.csv" "g/$t.csv" && rm -rf g/plots
	"$MBBENCH" plot g >out 2>err
	rc=$?
	{ [ "$rc" -eq 2 ] && grep -q "g/$t.csv holds the $u table" err && [ ! -e g/plots ]; } ||
		bad="$bad [$t<-$u: rc $rc $(head -c 120 err)]"
done
[ -z "$bad" ]
ok $? "plot: a swapped table is exit 2 before gnuplot draws anything (${bad:-none wrong})"

rm -rf g && cp -a f g && cp f/contend.csv g/calls.csv
"$MBBENCH" compare f g >out 2>err
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "g/calls.csv holds the contend table, not calls" err
ok $? "compare: exit $rc, $(cat err)"
done_testing
