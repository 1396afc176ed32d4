# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Sourced by bench/sweep for `sweep --ab --plan`: the design an A/B on this
# host needs, after the plan's points (ab_runs). Uses the sweep's plan_out.
# The ab preset's plan ends with the runs a side it recommends: the
# newest calibration of this host and kernel under the out-root (mbbench
# calibrate), else the default measured on a 2-vCPU KVM guest.
ab_runs() {
	root=results/runs prev=
	for a in "$@"; do [ "$prev" = --out-root ] && root=$a; prev=$a; done
	best="" bestn="" hn=$(uname -n) rel=$(uname -r)
	set +f	# the calibrations' folders: a pattern, here only
	set -- "$root"/calibrate-*/calibration.json
	set -f
	for f in "$@"; do
		[ -f "$f" ] || continue
		grep -qF "\"hostname\": \"$hn\"" "$f" && grep -qF "\"kernel_release\": \"$rel\"" "$f" &&
			grep -q '"at": "syscall"' "$f" || continue
		n=$(sed -n 's/^ *"runs_a_side": \([0-9][0-9]*\),*$/\1/p' "$f")
		[ -n "$n" ] || continue
		[ -z "$best" ] || [ "$f" -nt "$best" ] && best=$f bestn=$n
	done
	n10=4 n5=9	# the default's: see below
	if [ -n "$best" ]; then
		n10=$(sed -n 's/^ *"runs_a_side_10pct": \([0-9][0-9]*\),*$/\1/p' "$best")
		n5=$(sed -n 's/^ *"runs_a_side_5pct": \([0-9][0-9]*\),*$/\1/p' "$best")
	fi
	if [ -n "$best" ]; then
		pct=$(sed -n 's/^ *"plant_pct": \([0-9]*\),*$/\1/p' "$best")
		cb=$(sed -n 's/^ *"budget_s": \([0-9][0-9]*\),*$/\1/p' "$best")
		echo "# runs a side: $bestn (for a ${pct}% change of the pooled line at 80% power, from $best${cb:+, whose sweeps ran at --budget $cb: plan with it})"
		# Where the repetitions go (calibrate's design, Kalibera and
		# Jones): the processes a point and runs a side of least time.
		"$MBB_PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1])).get("design") or {}
for c in (10, 5):
    x = d.get("for_%dpct" % c) or {}
    b, m, n, s = (x.get(k) for k in ("budget", "m", "n", "seconds"))
    if b:
        print("# least time for %d%%: sweep --ab --budget %d (%d process%s a point), %d runs a side, about %d min"
              " of sweeps (where the repetitions go, from the same calibration)" % (c, b, m, "es" if m > 1 else "", n, round(s / 60)))' "$best" 2>/dev/null
	else
		# What the default rests on: a run's pooled score varied by SD
		# 0.02-0.03 on a quiet 2-vCPU KVM guest (docs/FINDINGS.md, "What
		# an A/B can see here"); at 0.03, with pairing taken to gain
		# nothing (a pair's difference SD 0.042), the paired t's power
		# (abdesign.runs_needed) asks 9 pairs for 5% and 4 for 10%.
		echo "# runs a side: 8 (the default, not this host's: where a run's pooled score varies by SD 0.03 or less, as on a quiet 2-vCPU KVM guest, 8 ABBA pairs see a change of about 5% of the pooled line at 80% power (9 see 5.0%) and 4 see 10%; a busier host needs more: mbbench calibrate --plant 5 measures this host's)"
	fi
	runs=${bestn:-8} sweep_s=$(printf '%s\n' "$plan_out" | sed -n 's/^# predicted: \([0-9]*\) s.*/\1/p')
	order= k=1
	while [ "$k" -le "$runs" ] && [ "$k" -le 4 ]; do
		if [ $((k % 2)) = 1 ]; then order="$order A$k B$k"; else order="$order B$k A$k"; fi
		k=$((k + 1))
	done
	[ "$runs" -le 4 ] || order="$order ..."
	echo "# an A/B in ABBA pairs:$order (each run: mbbench sweep --ab --ab-run A:1, --ab-run B:1, --ab-run B:2, ...; reboot between the kernels on bare metal), then mbbench compare A1 A2 ... --vs B1 B2 ..., which pairs them"
	[ -n "$sweep_s" ] || return 0
	echo "# time: $((2 * runs)) sweeps of at most $sweep_s s each (predicted), at most $(((2 * runs * sweep_s + 59) / 60)) min of sweeps for both sides"
	for c in "10 ${n10:-}" "5 ${n5:-}"; do
		# shellcheck disable=SC2086
		set -- $c
		if [ $# = 2 ]; then echo "# for a $1% change of the pooled line: $2 runs a side, at most $(((2 * $2 * sweep_s + 59) / 60)) min of sweeps"
		else echo "# for a $1% change of the pooled line: more than 40 runs a side"; fi
	done
}
