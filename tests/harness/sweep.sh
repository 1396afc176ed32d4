#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep end to end on a few cheap mechanisms: a results folder with every
# file, figures rendered from its CSVs, report.md with the fidelity table,
# compare of a run with itself, ^C leaving a complete folder, and bad input
# to the readers (exit 2, nothing written).
. "${top_srcdir:-.}/tests/lib.sh"

need_python
# The helpers behind `mbbench sweep|plot|report|compare`, as a user runs them.
RUNALL="$MBBENCH sweep"
PLOT="$MBBENCH plot"
REPORT="$MBBENCH report"
COMPARE="$MBBENCH compare"
plan 24

$RUNALL --quick --keep-degraded --mechanism null,fence,membarrier-private-expedited \
	--output "$TMP/runs/first" >"$TMP/out" 2>"$TMP/err"
ok $? "mbbench sweep --quick on three mechanisms finishes"
run=$(ls -d "$TMP"/runs/*/ 2>/dev/null | head -n 1)
run=${run%/}
missing=
for f in calls.csv distance.csv latency.csv latency-histogram.csv run.json commands.txt report.md; do
	[ -s "$run/$f" ] || missing="$missing $f"
done
[ -n "$run" ] && [ -z "$missing" ]
ok $? "the folder has every file (missing:${missing:- none})"
[ "$run" = "$TMP/runs/first" ] && [ ! -e "$TMP/runs/first.incomplete" ]
ok $? "the folder is the --output given, under its final name ($run)"

"$PY" - "$run/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format_version"] == 1 and d["interrupted"] is False
# doctor first; calls and latency for each of the three; distance,
# disturb, contend, register and anatomy for private-expedited
assert d["points_done"] == d["points_planned"] == 12, d["points_done"]
assert d["info"]["host"]["kernel"]
assert {p["experiment"] for p in d["points"]} == {"doctor", "calls", "distance", "latency", "disturb", "contend",
                                                   "register", "anatomy"}
assert d["run_order"][0] == "doctor:all", d["run_order"]
# the boot it was measured in; no A/B position without --ab-run
boot = open("/proc/sys/kernel/random/boot_id").read().strip()
assert d["boot_id"] == boot and "ab" not in d, (d["boot_id"], d.get("ab"))
PY
ok $? "run.json: versioned, complete, host facts, the boot, and every point's envelope"

grep -Eq '^(setarch [^ ]+ -R |linux64 -R )?mbbench calls --mechanism null' "$run/commands.txt"
ok $? "commands.txt lists the exact commands"

if command -v gnuplot >/dev/null 2>&1; then
	# Each figure drawn, valid and non-empty, or said not to be drawn on
	# this host (contend and distance on a host too small to show them)
	# with the reason in report.md.
	good=0
	for f in calls distance latency-cdf disturb-ipis disturb-latency contend register; do
		[ "$(head -c 4 "$run/plots/$f.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] &&
			[ "$(wc -c <"$run/plots/$f.png")" -gt 2000 ] &&
			grep -q '<svg' "$run/plots/$f.svg" && good=$((good + 1)) && continue
		[ ! -e "$run/plots/$f.png" ] && grep -q "Not drawn:.* $f (" "$run/report.md" &&
			good=$((good + 1)) && continue
		diag "figure $f missing or invalid, and not said why"
	done
	[ "$good" -eq 7 ] || { diag "sweep said:"; sed 's/^/#   /' "$TMP/err"; }
	[ "$good" -eq 7 ]
	ok $? "every figure rendered as valid, non-empty PNG and SVG, or not drawn with its reason ($good of 7)"
else
	skip "gnuplot not found: apt-get install gnuplot-nox"
fi

grep -q '^## Fidelity to the 2010 figures' "$run/appendix.md" &&
	grep -q 'expedited ns/call, T=1 | 2.02 µs' "$run/appendix.md" &&
	grep -q '^| 1 |' "$run/report.md" &&
	grep -q '^## distance: cost of one barrier by IPI distance' "$run/report.md" &&
	[ "$(wc -l <"$run/report.md")" -le 200 ] && head -n 10 "$run/report.md" | grep -q '^## Verdict$'
ok $? "report.md has the calls and distance tables within 200 lines, the Verdict in its first 10; appendix.md the fidelity table with the seed's figures"
sed -n '/^## Precision/,/^## Remarks/p' "$run/appendix.md" | grep -Eq '^\| calls \| ns_per_call \| [0-9]+ \| [0-9]+ \| 10 \| [0-9.]+% \| [0-9.]+% \(.* T=[0-9]+\) \| [0-9.]+% \|$' &&
	sed -n '/^## Precision/,/^## Remarks/p' "$run/appendix.md" | grep -q 'smaller than the last column at a figure is likely to be missed'
ok $? "appendix.md says how certain the calls figures are: median and widest CI from 10 processes, and the smallest change one run a side can tell"

$COMPARE "$run" "$run" >"$TMP/cmp.md"
[ $? -eq 0 ] && grep -Eq '\| 1\.000 \| [^|]* \| ~ \|' "$TMP/cmp.md" && ! grep -q '| \*' "$TMP/cmp.md"
ok $? "compare of a run with itself: every ratio 1.000, nothing significant"

# ^C after the first point: the sweep stops between points, folder complete.
env --default-signal=INT $RUNALL --quick --keep-degraded --mechanism null,fence,membarrier-private-expedited \
	--out-root "$TMP/int" >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
wait_sweep_started "$TMP/int"
kill -INT $pid
wait $pid
rc=$?
irun=$(ls -d "$TMP"/int/*/ | head -n 1)
irun=${irun%/}
"$PY" - "$irun/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True and 1 <= d["points_done"] < d["points_planned"], d
PY
ok $? "^C: exit $rc, folder $(basename "$irun") has a valid run.json marked interrupted"
# The points run shuffled: whichever finished, its experiment's CSV is there.
"$PY" - "$irun" <<'PY' && [ -s "$irun/report.md" ] && ! ls "$irun" | grep -q '\.tmp'
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "run.json")))
done = {p["experiment"] for p in d["points"]}
assert done, d
for e in done:
    assert os.path.getsize(os.path.join(sys.argv[1], e + ".csv")) > 0, e
PY
ok $? "^C: what finished is there as whole files"

# A point whose own correctness check fails (mbbench exit 1 with its CSV
# written) is a finding: kept in the folder, announced, and listed first in
# the report. A wrapper makes `latency --mechanism fence` exit 1.
cat >"$TMP/mbfail" <<EOF
#!/bin/sh
"$MBBENCH" "\$@"
rc=\$?
case "\$*" in "latency --mechanism fence "*) exit 1 ;; esac
exit \$rc
EOF
chmod +x "$TMP/mbfail"
$RUNALL --quick --mechanism fence --mbbench "$TMP/mbfail" --out-root "$TMP/fail" \
	>"$TMP/fail.out" 2>"$TMP/fail.err"
frc=$?
frun=$(ls -d "$TMP"/fail/*/ 2>/dev/null | head -n 1)
frun=${frun%/}
[ "$frc" -eq 0 ] && grep -q 'latency fence: a correctness check failed' "$TMP/fail.err" &&
	csv_cols "$frun/latency.csv" mechanism | grep -qx fence && grep -q 'correctness failures found in: latency:fence' "$TMP/fail.err"
ok $? "a point that exits 1 with its CSV is kept and announced (exit $frc)"
"$PY" - "$frun/litmus.csv" <<'PY'
import sys
open(sys.argv[1], "w").write(
    "pairing,a_side,b_side,expect,cpus,trials,r1_0_r2_0,r1_0_r2_1,r1_1_r2_0,r1_1_r2_1,"
    "forbidden_per_million,trials_per_s,status,skip_reason\n"
    "membarrier-global-expedited,membarrier-global-expedited,compiler,forbidden,0;1,"
    "1000,3,1,990,6,3000,100,failed,\n")
PY
$REPORT "$frun" >/dev/null 2>"$TMP/e0" &&
	sed -n '/^## Correctness failures/,/^## [^C]/p' "$frun/report.md" |
	grep -q '| litmus | membarrier-global-expedited | forbidden r1=r2=0 seen 3 times in 1000 trials |'
ok $? "report.md lists failed rows first, with the finding ($(head -c 120 "$TMP/e0"))"

# Bad input to the readers: one line, exit 2, nothing written.
mkdir "$TMP/notrun"
$REPORT "$TMP/notrun" 2>"$TMP/e1"; r1=$?
$REPORT "$TMP/missing" 2>"$TMP/e2"; r2=$?
$COMPARE "$run" "$TMP/notrun" 2>"$TMP/e3"; r3=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ $r3 -eq 2 ] &&
	[ "$(cat "$TMP/e1" "$TMP/e2" "$TMP/e3" | wc -l)" -eq 3 ] && [ -z "$(ls "$TMP/notrun")" ]
ok $? "report/compare on a missing or non-results folder: exit 2, one line each"
mkdir "$TMP/half.incomplete" && cp "$run/calls.csv" "$TMP/half.incomplete/"
$REPORT "$TMP/half.incomplete" 2>"$TMP/e4"
r4=$?
$PLOT "$TMP/half.incomplete" 2>"$TMP/e4p"
r4p=$?
[ $r4 -eq 2 ] && [ ! -e "$TMP/half.incomplete/report.md" ] && [ $r4p -eq 2 ] && [ ! -e "$TMP/half.incomplete/plots" ]
ok $? "report and plot on an incomplete folder: exit 2, nothing written"
$PLOT "$TMP/notrun" 2>"$TMP/e5"; r5=$?
$REPORT "$run" --output "$TMP/missing/r.md" 2>"$TMP/e6"; r6=$?
[ $r5 -eq 2 ] && [ $r6 -eq 2 ] && [ ! -e "$TMP/missing" ] && [ ! -e "$TMP/notrun/plots" ]
ok $? "plot on a non-results folder, report to an unwritable destination: exit 2"
# Measured in one place (a guest without python3), assembled in another.
$RUNALL --quick --keep-degraded --mechanism null --output "$TMP/mo" --measure-only >"$TMP/mo.out" 2>"$TMP/mo.err"
mrc=$?
[ "$mrc" -eq 0 ] && [ ! -e "$TMP/mo" ] && [ -s "$TMP/mo.incomplete/raw/sweep.txt" ] &&
	[ -s "$TMP/mo.incomplete/topology.xml" ] && [ ! -e "$TMP/mo.incomplete/run.json" ] &&
	grep -q "sweep --assemble $TMP/mo.incomplete" "$TMP/mo.out"
ok $? "--measure-only: exit $mrc, the .incomplete folder with raw/sweep.txt and no run.json"
cp -R "$TMP/mo.incomplete" "$TMP/mo2.incomplete"
$RUNALL --assemble "$TMP/mo.incomplete" >"$TMP/as.out" 2>"$TMP/as.err" &&
	[ ! -e "$TMP/mo.incomplete" ] && [ -s "$TMP/mo/report.md" ] && [ -s "$TMP/mo/calls.csv" ] &&
	grep -q '[0-9]* s planned (budget 300 s), [0-9]* s taken to measure' "$TMP/mo/appendix.md" &&
	"$PY" - "$TMP/mo/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["points_done"] == d["points_planned"] == 3, d["points_done"]
assert d["budget_s"] == 300 and d["predicted_s"] > 0 and d["measured_s"] >= 0, d
PY
ok $? "--assemble: the folder gets run.json, CSVs, report (with planned and taken time) and its final name"
bad=
sed 's/^planned .*/planned many/' "$TMP/mo2.incomplete/raw/sweep.txt" >"$TMP/sw.txt"
cp "$TMP/mo2.incomplete/raw/sweep.txt" "$TMP/sw.good"
for args in "--assemble $TMP/mo" "--assemble $TMP/half.incomplete" "--full --assemble $TMP/mo2.incomplete" \
	"--assemble $TMP/mo2.incomplete --measure-only" "--plan --measure-only" "damaged"; do
	if [ "$args" = damaged ]; then
		cp "$TMP/sw.txt" "$TMP/mo2.incomplete/raw/sweep.txt"
		args="--assemble $TMP/mo2.incomplete"
	fi
	# shellcheck disable=SC2086
	$RUNALL $args >"$TMP/b.out" 2>"$TMP/b.err"
	rc=$?
	{ [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/b.err")" -eq 1 ] && [ -d "$TMP/mo2.incomplete" ] &&
		[ ! -e "$TMP/mo2.incomplete/run.json" ] && [ ! -e "$TMP/mo2" ]; } ||
		bad="$bad [$args: rc $rc, $(head -c 100 "$TMP/b.err")]"
done
[ -z "$bad" ]
ok $? "--assemble on a finished, foreign, damaged or re-optioned folder: one line, nothing written (bad:${bad:- none})"
$RUNALL --mechanism nosuch --out-root "$TMP/bad" 2>"$TMP/e7"
[ $? -eq 2 ] && [ -z "$(ls "$TMP/bad" 2>/dev/null)" ]
ok $? "sweep with an unknown mechanism: exit 2, no folder"
$RUNALL --aslr sometimes --out-root "$TMP/bad" 2>"$TMP/e8"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/e8")" -eq 1 ] && [ -z "$(ls "$TMP/bad" 2>/dev/null)" ]
ok $? "sweep --aslr sometimes: exit 2, one line, no folder ($(cat "$TMP/e8"))"
bad=
for args in "--ab-run A:1" "--ab --ab-run C:1" "--ab --ab-run A:0" "--ab --ab-run B:1000" "--ab --ab-run A1" "--ab --ab-run"; do
	# shellcheck disable=SC2086
	"$MBBENCH" sweep $args --out-root "$TMP/bad" >/dev/null 2>"$TMP/e9"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e9")" -eq 1 ] && [ -z "$(ls "$TMP/bad" 2>/dev/null)" ] || bad="$bad [$args: $rc]"
done
[ -z "$bad" ]
ok $? "--ab-run without --ab or not SIDE:PAIR: exit 2, one line, no folder (bad:${bad:- none})"
# With --ab-run the run records its place in the ABBA order: B of pair 2
# runs third (pair 2 is B then A).
"$MBBENCH" sweep --ab --ab-run B:2 --experiment calls --mechanism null --output "$TMP/abrun" >/dev/null 2>"$TMP/e10" &&
	[ "$(json_val "$TMP/abrun/run.json" ab side)" = B ] && [ "$(json_val "$TMP/abrun/run.json" ab pair)" = 2 ] &&
	[ "$(json_val "$TMP/abrun/run.json" ab position)" = 3 ]
ok $? "sweep --ab --ab-run B:2: run.json records side B, pair 2, position 3 ($(tail -n 1 "$TMP/e10"))"
# The memory layout the points ran with is in run.json, and commands.txt
# shows how each ran: under setarch -R where the host lets it.
aslr=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["aslr"])' "$run/run.json")
fixed="off (every point under "
prefix=${aslr#"$fixed"}
if [ "$prefix" != "$aslr" ]; then	# the layout fixed by a prefix: every line has it
	[ "$(grep -vc "^${prefix%?} mbbench " "$run/commands.txt")" -eq 0 ]
elif [ "$aslr" = "off (kernel.randomize_va_space=0)" ] || [ "${aslr#on}" != "$aslr" ]; then
	! grep -q '^setarch' "$run/commands.txt"
else
	false
fi
ok $? "run.json says how the memory layout was fixed, and commands.txt agrees ($aslr)"
done_testing
