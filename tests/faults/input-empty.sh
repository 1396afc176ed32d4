#!/bin/sh
# SPDX-License-Identifier: MIT
# An empty option value ('' or --opt=) is bad input in every command: one
# line naming what to give, exit 2, nothing written. Before, `mbbench sweep
# --budget ''` (and --threads, --callers, --behaviour ''; and most of
# mbbench vm's options) silently meant the default and ran a whole sweep.
# Every option of every C subcommand is taken from its --help, so a new
# option is covered without a word here.
. "${srcdir:-.}/tests/lib.sh"
need_python
R=$(cd "${srcdir:-.}" && pwd)/results/reference/vm-quick-20261203T141826Z
mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 1
# try NAME CMD...: exit 2, one line starting with the helper's name, nothing
# written in the current folder; one TAP line.
try() {
	_n=$1
	shift
	"$@" </dev/null >"$TMP/out" 2>"$TMP/err"
	_rc=$? _l=$(wc -l <"$TMP/err")
	[ "$_rc" -eq 2 ] && [ "$_l" -eq 1 ] && [ -z "$(ls -A)" ] && [ ! -s "$TMP/out" ]
	ok $? "$_n: exit 2, one line, nothing written (rc=$_rc, $_l lines: $(head -c 150 "$TMP/err"))"
}
subs="anatomy calls contend distance disturb doctor info latency list litmus plan points rcu register schema"
cases=
for s in $subs; do
	for o in $("$MBBENCH" "$s" --help | sed -n 's/^  \(--[a-z-]*\) [A-Za-z|,.[].*/\1/p' | sort -u); do
		cases="$cases $s:$o"
	done
done
shell="sweep:--budget sweep:--threads sweep:--callers sweep:--behaviour sweep:--placement sweep:--seed
sweep:--mechanism sweep:--experiment sweep:--plant sweep:--output sweep:--out-root sweep:--aslr
vm-scale:--smp vm-scale:--replicates vm-scale:--isolate vm-scale:--kernels vm-scale:--kernel
vm-scale:--mbbench-static vm-scale:--out vm-sweep:--budget vm-sweep:--topology vm-contend:--callers
vm-contend:--duration vm-contend:--repeat vm-contend:--mechanism vm-anatomy:--threads vm-anatomy:--barriers
vm-semantics:--arch vm-semantics:--smp vm-semantics:--duration vm-semantics:--replicates vm-semantics:--out
vm-semantics:--mbbench-static
calibrate:--plant calibrate:--runs calibrate:--mechanism calibrate:--output"
py="compare:--format compare:--output compare:--alpha compare:--correction compare:--min-effect
compare:--min-count-diff compare:--ignore compare:--fail-on-regression advise:--readers
advise:--reads-per-s advise:--writes-per-s advise:--results advise:--format advise:--output"
n=0
for c in $cases $shell $py; do n=$((n + 1)); done
plan $((n + 4))
for c in $cases; do
	try "mbbench ${c%%:*} ${c#*:} ''" "$MBBENCH" "${c%%:*}" "${c#*:}" ''
done
for c in $shell; do
	s=${c%%:*} o=${c#*:}
	case $s in
	sweep) try "sweep $o ''" "$MBBENCH" sweep "$o" '' ;;
	calibrate) try "calibrate $o ''" "$MBBENCH" calibrate "$o" '' ;;
	vm-*) try "vm ${s#vm-} $o ''" "$MBBENCH" vm "${s#vm-}" "$o" '' ;;
	esac
done
for c in $py; do
	s=${c%%:*} o=${c#*:}
	case $s in
	compare) try "compare $o ''" "$MBBENCH" compare "$R" "$R" "$o" '' ;;
	advise) try "advise $o ''" "$MBBENCH" advise --readers 2 --reads-per-s 1e6 --writes-per-s 10 "$o" '' ;;
	esac
done
try "report ''" "$MBBENCH" report ''
try "report RESULTS --output ''" "$MBBENCH" report "$R" --output ''
try "plot ''" "$MBBENCH" plot ''
try "sweep --assemble ''" "$MBBENCH" sweep --assemble ''
done_testing
