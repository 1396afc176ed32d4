#!/bin/sh
# SPDX-License-Identifier: MIT
# What the figures show, read back from their SVG text and from the plot
# check behind them: calls in the table's ns per call with the
# oversubscribed points marked, one latency panel per mechanism whose p50
# is latency.csv's, the RCU scatter with the seed's points marked as other
# hardware, the disturb grid without a bare negative count, and distance's
# key listing only the levels measured. On a copy of the committed full
# reference run and on a small folder made here.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}
ref=$src/results/reference/vm-full-20261203T134724Z

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "1..0 # SKIP gnuplot not found (apt-get install gnuplot-nox)"
	exit 0
fi
need_python
plan 8
# texts SVG: the figure's text elements, one a line.
texts() { grep -o '>[^<>]*<' "$1" | sed 's/^>//; s/<$//'; }

if [ -d "$ref" ]; then
	cp -r "$ref" "$TMP/full" && chmod -R u+w "$TMP/full" && rm -rf "$TMP/full/plots"
	"$MBBENCH" plot "$TMP/full" >"$TMP/out" 2>"$TMP/err"
	r=$?
	n=$(grep -c '^# plot: .*\.png$' "$TMP/out")
	# a figure that would show nothing on the reference's host is said, not drawn
	nd=$(grep -c '^# plot: [a-z-]* not drawn: ' "$TMP/err")
	[ $r -eq 0 ] && [ $((n + nd)) -eq 7 ] && ! grep -v "^# plot: " "$TMP/err"
	ok $? "the full reference run: exit $r, $n figures, $nd not drawn with the reason"

	texts "$TMP/full/plots/calls.svg" >"$TMP/calls.txt"
	grep -q '^ns per call (log' "$TMP/calls.txt" && grep -q '^ringed: more threads than CPUs' "$TMP/calls.txt" &&
		! grep -qi 'calls per second' "$TMP/calls.txt"
	ok $? "calls: ns per call, the table's figure, with the oversubscribed points ringed"

	# The latency panels: one per mechanism, p50 as latency.csv has it.
	"$PY" -I "$src/analysis/mbtool.py" plot-check "$TMP/full" latency-histogram:latency-cdf.gp |
		sed -n 's/^extra latency-histogram //p' | tr ' ' '\n' | grep @ >"$TMP/marks"
	csv_cols "$ref/latency.csv" mechanism threads p50_ns status | awk -F'\t' '$4 == "ok"' >"$TMP/lat"
	bad=
	while IFS="$(printf '\t')" read -r m t p50 s; do
		got=$(awk -F: -v k="$m@$t" '$1 == k { print $2 }' "$TMP/marks")
		awk -v a="$got" -v b="$p50" 'BEGIN { exit !(a != "" && a == b + 0) }' || bad="$bad $m:$got/$p50"
	done <"$TMP/lat"
	[ -s "$TMP/lat" ] && [ -z "$bad" ]
	ok $? "latency: each panel's p50 is latency.csv's ($(wc -l <"$TMP/lat") mechanisms$bad)"
	np=$(texts "$TMP/full/plots/latency-cdf.svg" | grep -c '^max [0-9.]* [nmµ]*s$')
	[ "$np" -gt 0 ] && [ "$np" -eq "$(wc -l <"$TMP/marks")" ]
	ok $? "latency: a panel with its max for each of the $np histograms"

	texts "$TMP/full/plots/rcu.svg" >"$TMP/rcu.txt"
	grep -q '^seed, 2010 (8 CPUs, other hardware' "$TMP/rcu.txt" && grep -q '^seed memb-exp$' "$TMP/rcu.txt" &&
		grep -q '^liburcu-memb$' "$TMP/rcu.txt"
	ok $? "rcu: one scatter with the schemes and the seed's points marked as other hardware"

	texts "$TMP/full/plots/disturb-ipis.svg" >"$TMP/dis.txt"
	# A difference (storm less baseline) is written as measured, signed,
	# never clamped to 0: each negative one that rounds below -0.00 shows
	# (one storm row of the copy set to -0.27, the baseline's higher).
	"$PY" - "$TMP/full/disturb.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
r = next(r for r in rows if r["phase"] == "storm" and r["role"] not in ("caller", "self-spin") and r["status"] == "ok")
r["ipis_per_barrier"] = "-0.27"
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
PY
	"$MBBENCH" plot "$TMP/full" >/dev/null 2>&1
	texts "$TMP/full/plots/disturb-ipis.svg" >"$TMP/dis.txt"
	neg=$(csv_cols "$TMP/full/disturb.csv" phase role status ipis_per_barrier |
		awk -F'\t' '$1 == "storm" && $2 != "caller" && $3 == "ok" && $4 <= -0.005' | wc -l)
	[ "$(grep -c '^-[0-9]' "$TMP/dis.txt")" -eq "$neg" ] && grep -q 'storm less baseline' "$TMP/dis.txt" &&
		[ "$(grep -c '^no CI$' "$TMP/dis.txt")" -gt 0 ]
	ok $? "disturb: the $neg negative differences shown signed, not as 0; a cell without a CI says so"
else
	for i in 1 2 3 4 5 6; do skip "no $ref (a release tarball has no reference runs)"; done
fi

# A small folder: distance measured at one level, run.json as a sweep's.
mkdir "$TMP/small"
cat >"$TMP/small/run.json" <<'EOF'
{"format_version": 1, "tool": "mbbench sweep", "preset": "quick",
 "info": {"host": {"hostname": "testhost", "kernel_release": "6.1.0-test", "virtualization": "none"}},
 "points": [{"end": "2026-01-01T00:00:00Z"}]}
EOF
{
	echo mechanism,level,caller_cpu,spinner_cpu,caller_logical,spinner_logical,repeats,calls_per_repeat,ns_per_call,ns_per_call_stddev,ns_per_call_ci95,cv,ci_target_pct,ci_achieved_pct,ci_target_met,status,skip_reason
	echo "membarrier-private-expedited,smt,,,,,,,,,,,,,,skipped,no SMT on this host: each core has one PU"
	echo "membarrier-private-expedited,core,0,1,0,1,3,1000,21230.9,1000,2625.3,0.05,,,,ok,"
	echo "membarrier-private-expedited,package,0,3,0,3,3,1000,25230.9,1000,2625.3,0.05,,,,ok,"
	echo "membarrier-private-expedited,numa,,,,,,,,,,,,,,skipped,one NUMA node"
	echo "signal,core,0,1,0,1,3,1000,26309.4,500,1180.3,0.02,,,,ok,"
} >"$TMP/small/distance.csv"
"$MBBENCH" plot "$TMP/small" >"$TMP/out" 2>"$TMP/err"
r=$?
texts "$TMP/small/plots/distance.svg" >"$TMP/dist.txt" 2>/dev/null
[ $r -eq 0 ] && grep -qx 'core' "$TMP/dist.txt" && grep -qx 'package' "$TMP/dist.txt" && ! grep -qx 'smt' "$TMP/dist.txt" &&
	! grep -qx 'numa' "$TMP/dist.txt"
ok $? "distance: the key lists only the levels measured (exit $r)"
grep -q '^ns per barrier (ns_per_call' "$TMP/dist.txt" && ! grep -q 'log' "$TMP/dist.txt"
ok $? "distance: ns per barrier on a linear axis"
done_testing
