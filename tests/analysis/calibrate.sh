#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench calibrate: bad input is one line, exit 2 and no folder; a planted
# change of 50% at the syscall, on PRIVATE_EXPEDITED alone, two runs a side
# of sweep --ab in ABBA pairs (pair 2 planted first), each sweep's run.json
# saying its side and pair: the folder holds every sweep, the comparison and the
# calibration; the plant is found (or, on a loaded host, measured to have
# landed) and never called better; the summary states the share with its
# interval and the runs a side; sweep --ab --plan and a sweep's report
# beside it read the calibration.
. "${top_srcdir:-.}/tests/lib.sh"
need_python
need_cpus 2 "needs 2 CPUs: calibrate's points run at T=2"
"$PY" -c 'import scipy' 2>/dev/null || { echo "1..0 # SKIP python3-scipy not found"; exit 0; }
plan 8
cd "$TMP" || exit 1

bad=
for args in "" "--plant 0" "--plant 101" "--plant 10 --runs 1" "--plant 10 --runs 61" \
	"--plant 10 --budget 9" "--plant 10 --budget 601" "--plant 10 --budget 1m" \
	"--plant 10 --repeat 0" "--plant 10 --repeat 11" "--plant 10 --repeat x" \
	"--plant 10 --bogus 1" "--plant ''" "--plant 10 --output" "--plant 10 --at kernel" \
	"--plant 10 --mechanism null" "--plant 10 --at syscall --mechanism membarrier-private-expedited,fence"; do
	eval "set -- $args"
	"$MBBENCH" calibrate "$@" --output "out" >/dev/null 2>err
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ ! -e out ] && [ ! -e out.incomplete ] ||
		bad="$bad [$args: rc $rc]"
	rm -rf out out.incomplete
done
[ -z "$bad" ]
ok $? "bad input: exit 2, one line, no folder (bad:${bad:- none})"
mkdir taken
"$MBBENCH" calibrate --plant 10 --output taken >/dev/null 2>err
[ $? -eq 2 ] && grep -q "exists" err
ok $? "an existing --output is refused ($(cat err))"

mkdir runs
# --budget reaches every sweep (50 s: four processes a point, so that the
# sizing point's median survives a busy host).
"$MBBENCH" calibrate --plant 50 --runs 2 --repeat 1 --budget 50 \
	--mechanism membarrier-private-expedited --output runs/calibrate-pe >out 2>err
rc=$?
ln -s runs/calibrate-pe cal
if [ "$rc" = 1 ] && grep -q 'degraded: a busy host' err; then
	for _ in 3 4 5 6 7 8; do skip "a busy host: the first plain sweep's sizing point was degraded ($(tail -n 1 err))"; done
	exit 0
fi
[ "$rc" -eq 0 ] && [ -d cal ] && [ ! -e cal.incomplete ]
ok $? "calibrate --plant 50 --runs 2 --repeat 1: exit $rc, the folder named when done ($(tail -n 1 err))"
missing=
for f in plain-1-1/run.json planted-1-1/run.json plain-1-2/run.json planted-1-2/run.json compare-1.json \
	calibration.md calibration.json; do
	[ -s "cal/$f" ] || missing="$missing $f"
done
grep -q -- '--plant-syscall [0-9]' cal/planted-1-1/commands.txt && ! grep -q -- '--plant' cal/plain-1-1/commands.txt ||
	missing="$missing (--plant-syscall in commands.txt)"
[ "$(json_val cal/planted-1-2/run.json ab position)" = 3 ] && [ "$(json_val cal/plain-1-2/run.json ab position)" = 4 ] &&
	[ "$(json_val cal/plain-1-1/run.json ab side)" = A ] && [ "$(json_val cal/compare-1.json comparisons 0 design)" = paired ] ||
	missing="$missing (the ABBA positions in run.json, a paired comparison)"
for f in plain-1-1 planted-1-1 planted-1-2 plain-1-2; do
	case "$(json_val "cal/$f/run.json" budget_s)" in 50 | 50.0) ;; *) missing="$missing ($f: no --budget 50)" ;; esac
done
[ "$(json_val cal/calibration.json budget_s)" = 50 ] || missing="$missing (calibration.json: no budget_s 50)"
[ -z "$missing" ]
ok $? "the folder holds every sweep, the comparison and the calibration (missing:${missing:- none})"
"$PY" - cal/calibration.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["plant_pct"] == 50 and c["runs"] == 2 and c["repeat"] == 1 and c["at"] == "syscall" and c["budget_s"] == 50, c
r = c["repetitions"][0]
assert r["called_better"] == 0, r
if r["disturbed"]:
    sys.exit(77)	# a loaded host: no share, said
if r["points"] == 0:
    sys.exit(77)
if r["pooled_verdict"] != "worse":
    # The pooled verdict missed it with two runs a side: a loaded host's
    # spread can hide even 50%. Whether the plant landed is still measured: planted / plain at
    # the point it was sized on must be above 1.2, or the plant is broken.
    assert r["measured_ratio"] and r["measured_ratio"] >= 1.2, ("the plant did not land", r)
    print(f"# planted/plain {r['measured_ratio']:.2f}")
    sys.exit(78)
PY
rc=$?
if [ $rc -eq 77 ]; then
	skip "a loaded host: the calibration's sweeps were disturbed or degraded ($(head -n 1 out))"
elif [ $rc -eq 78 ]; then
	skip "the plant landed but two runs a side on this loaded host did not call it ($(sed -n 2p out))"
else
	ok $rc "a 50% plant at the syscall: the pooled verdict worse, no point called better ($(sed -n 2p out))"
fi
# (a loaded host's degraded points leave the power unknown, which it says)
grep -q -e '^Found at [0-9]*% \[[0-9]*, [0-9]*\] of the pooled headline points' -e '^No share: ' out &&
	{ grep -q '^The pooled line, the primary endpoint: this design (2 runs a side, ABBA pairs) sees' out ||
		{ [ $rc -eq 77 ] && grep -q "^The design's power: not known" out; }; }
ok $? "the summary states the share with its interval and the design's power"
runs=$(sed -n 's/^ *"runs_a_side": \([0-9]*\),*$/\1/p' cal/calibration.json)
"$MBBENCH" sweep --ab --plan --out-root runs >plan 2>err
if [ -n "$runs" ]; then
	grep -q "^# runs a side: $runs (for a 50% change of the pooled line at 80% power, from runs/calibrate-pe/calibration.json, whose sweeps ran at --budget 50: plan with it)" plan
else
	grep -q "^# runs a side: 8 (the default" plan
fi
ok $? "sweep --ab --plan recommends the calibration's runs a side ($(grep 'runs a side' plan))"
# A sweep into the same out-root: its report says what the calibration found.
"$MBBENCH" sweep --experiment calls --mechanism null --out-root runs >/dev/null 2>err
f=$(ls -d runs/*/ | grep -v calibrate- | head -n 1)
[ -s "$f/calibration.json" ] && grep -q 'The last calibration of this host and kernel (`calibrate-pe`' "$f/report.md"
ok $? "a sweep beside it copies the calibration in and its report says what it found ($(tail -n 1 err))"
done_testing
