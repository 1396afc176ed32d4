#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fix-forms-ab.sh: the context-switch cost of the two forms of the
# GLOBAL_EXPEDITED fix, against each other and against the unfixed kernel.
#
#   fixed    fixes/0001: membarrier_switch_mm() refreshes the state also
#            when prev_mm == next_mm (a load and a compare added to every
#            switch between two threads of one process);
#   alt-fix  fixes/alt/0001: context_switch() passes prev->mm (NULL for
#            the idle task, a kernel thread, an exiting task) instead of
#            prev->active_mm (nothing added between two threads of one
#            process).
#
# Builds the three variants (build-kernel), then boots them in turn,
# BOOTS rounds of unfixed, fixed, alt-fix, each boot running ctxsw.c (two
# threads of one process on one CPU, pipe ping-pong: every switch is one
# that the fixed form adds its load and compare to) through
# `mbb-guest-checks ctxsw`. The boot is the unit: each boot's mean over
# its repeats is one sample, since boots differ by more than repeats do.
# Prints each boot's RESULT line and, per pair, the means with 95% CIs and
# the difference with Welch's CI (ctxsw_compare in common.sh). Under QEMU
# TCG these are emulated times: they can show a change far larger than a
# load and a compare, not that one.
#
# usage: kernel-patch/fix-forms-ab.sh [--source V] [--boots N] [--out DIR]
#        (default: $KERNEL_SOURCE or 6.1, 4 boots each, a temporary DIR)

# shellcheck source-path=SCRIPTDIR
set -eu
PROG=fix-forms-ab
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

source=$KERNEL_SOURCE
boots=4
out=""
while [ $# -gt 0 ]; do
	case $1 in
	--source) source=$2; shift 2 ;;
	--boots) boots=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h | --help) sed -n '4,27s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
case $boots in '' | *[!0-9]* | 0 | 1) die "--boots $boots: give 2 or more" ;; esac
export KERNEL_SOURCE=$source
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/mbb-fix-forms.XXXXXX")
mkdir -p "$out"
VARIANTS="unfixed fixed alt-fix"

for v in $VARIANTS; do
	"$KP_DIR/build-kernel" --source "$source" --variant "$v" >"$out/bz-$v" 2>"$out/build-$v.err" ||
		{ cat "$out/build-$v.err" >&2; fail "build-kernel --variant $v failed"; }
done
"$KP_DIR/make-initramfs" --source "$source" >/dev/null 2>"$out/initramfs.err" ||
	{ cat "$out/initramfs.err" >&2; fail "make-initramfs failed"; }

for i in $(seq 1 "$boots"); do
	for v in $VARIANTS; do
		d=$out/$v-$i
		"$KP_DIR/run-vm" --source "$source" --smp 4 --timeout 300 --append nohz=off \
			--kernel "$(cat "$out/bz-$v")" --results "$d" -- mbb-guest-checks ctxsw \
			>"$d.out" 2>"$d.err" || { cat "$d.err" >&2; fail "run-vm ($v, boot $i) failed"; }
		echo "# $v boot $i: $(grep '^RESULT' "$d/ctxsw.out" || echo 'no RESULT')"
		# One sample per boot: the mean of its repeats.
		awk -v i="$i" '/^REPEAT / { v = $3; sub(/^ns_per_switch=/, "", v); s += v; n++ }
			END { if (n) printf "REPEAT %d ns_per_switch=%.1f\n", i, s / n }' \
			"$d/ctxsw.out" >>"$out/boots-$v"
	done
done
echo "# $source, $boots boots of each kernel, the boot's mean as the sample (TCG: not hardware times)"
ctxsw_compare unfixed fixed "$out/boots-unfixed" "$out/boots-fixed"
ctxsw_compare unfixed alt-fix "$out/boots-unfixed" "$out/boots-alt-fix"
ctxsw_compare fixed alt-fix "$out/boots-fixed" "$out/boots-alt-fix"
echo "# results in $out"
