#!/bin/sh
# SPDX-License-Identifier: MIT
# `mbbench sweep --ab --plan` on a synthetic 64-PU host with SMT: only the
# headline points (calls at T=2, distance at the nearest level, contend
# with one caller, latency, register) of the IPI-sending mechanisms and the
# controls, within its 60 s; the runs a side it recommends come from this
# host's newest calibration under the out-root (not another host's), else
# the default; --ab with --quick is refused.
. "${top_srcdir:-.}/tests/lib.sh"

plan 7
case $MBBENCH in /*) ;; *) MBBENCH=$(pwd)/$MBBENCH ;; esac
cd "$TMP" || exit 1
topo="pack:2 l3:2 core:8 pu:2"
MBBENCH_SYNTHETIC="$topo" "$MBBENCH" sweep --ab --plan --assume-available --out-root runs >plan 2>err
ok $? "sweep --ab --plan on \"$topo\" ($(head -n 1 err))"
exps=$(grep -v '^#' plan | cut -d ' ' -f 1 | sort -u | tr '\n' ' ')
[ "$exps" = "calls contend distance latency register " ]
ok $? "the experiments with a headline point only: $exps"
bad=$(grep -v '^#' plan | grep -e '^calls' | grep -v -e '--threads 2 ')
bad="$bad$(grep '^distance' plan | grep -v -e '--level smt ')"
bad="$bad$(grep '^contend' plan | grep -v -e '--callers 1$')"
bad="$bad$(grep -v '^#' plan | grep -e ' membarrier-global ' -e ' seed-v5-sched ')"
[ -z "$bad" ]
ok $? "calls at T=2, distance at the SMT sibling, contend with one caller, no grace-period mechanism (${bad:-none wrong})"
s=$(sed -n 's/^# predicted: \([0-9]*\) s.*/\1/p' plan)
[ -n "$s" ] && [ "$s" -le 60 ]
ok $? "predicted $s s, within the preset's 60 s"
grep -q '^# runs a side: 8 (the default, not this host.s: where a run.s pooled score varies by SD 0.03 or less' plan &&
	grep -q '^# time: 16 sweeps of at most [0-9]* s each' plan &&
	grep -q '^# for a 10% change of the pooled line: 4 runs a side, at most [0-9]* min of sweeps' plan &&
	grep -q '^# for a 5% change of the pooled line: 9 runs a side, at most [0-9]* min of sweeps' plan
ok $? "no calibration here: the default runs a side and what it rests on, the time ($(grep 'runs a side' plan))"
mkdir -p runs/calibrate-a runs/calibrate-b
printf '{\n "hostname": "%s",\n "kernel_release": "%s",\n "at": "syscall",\n "plant_pct": 10,\n "runs_a_side": 7,\n "seconds": 1\n}\n' \
	"$(uname -n)" "$(uname -r)" >runs/calibrate-a/calibration.json
printf '{\n "hostname": "another-%s",\n "kernel_release": "%s",\n "at": "syscall",\n "plant_pct": 10,\n "runs_a_side": 9,\n "seconds": 1\n}\n' \
	"$(uname -n)" "$(uname -r)" >runs/calibrate-b/calibration.json
touch runs/calibrate-b/calibration.json
MBBENCH_SYNTHETIC="$topo" "$MBBENCH" sweep --ab --plan --assume-available --out-root runs >plan2 2>err
grep -q '^# runs a side: 7 (for a 10% change of the pooled line at 80% power, from runs/calibrate-a/calibration.json)' plan2 &&
	grep -q '^# an A/B in ABBA pairs: A1 B1 B2 A2 A3 B3 B4 A4 \.\.\. (each run: mbbench sweep --ab --ab-run A:1' plan2
ok $? "this host's calibration, not another's: $(grep 'runs a side' plan2)"
MBBENCH_SYNTHETIC="$topo" "$MBBENCH" sweep --ab --quick --plan >/dev/null 2>err
[ $? -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q 'choose one preset' err
ok $? "--ab with --quick: exit 2, $(cat err)"
done_testing
