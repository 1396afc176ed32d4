#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers, bottom to top: lib, topology, workloads, bench. A file may use
# its own layer and the ones below it, never one above:
#  - sources of a lower layer include no header of a higher one, and include
#    by name only (-I), never by a path ("../bench/x.h");
#  - no archive of a lower layer has an undefined symbol that only a higher
#    archive defines (nm), so an upward call is caught even when the link
#    order would happen to resolve it.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}
build=${top_builddir:-.}
LAYERS="lib topology workloads bench"
NM=${NM:-nm}

archive() { echo "$build/$1/libmbb-$1.a"; }

# The layers above $1, one a line.
above() {
	seen=0
	for l in $LAYERS; do
		[ $seen -eq 1 ] && echo "$l"
		[ "$l" = "$1" ] && seen=1
	done
}

# The layers $1 and below.
upto() {
	for l in $LAYERS; do
		echo "$l"
		[ "$l" = "$1" ] && return
	done
}

if ! command -v "$NM" >/dev/null 2>&1; then
	echo "1..0 # SKIP $NM not found (apt-get install binutils)"
	exit 0
fi
plan 8

for low in lib topology workloads; do
	bad=
	for f in "$src/$low"/*.c "$src/$low"/*.h; do
		[ -f "$f" ] || continue
		incs=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
		for inc in $incs; do
			case $inc in
			*/*)
				bad="$bad ${f#"$src"/}:$inc(path)"
				continue
				;;
			esac
			for up in $(above "$low"); do
				[ -f "$src/$up/$inc" ] && bad="$bad ${f#"$src"/}:$up/$inc"
			done
		done
	done
	[ -n "$bad" ] && diag "upward or path includes:$bad"
	ok "$([ -z "$bad" ]; echo $?)" "$low/ includes only its own headers and lower layers', by name"
done

# Symbols an archive defines (global, any section), sorted.
defined() {
	"$NM" -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u
}

for low in lib topology workloads; do
	a=$(archive "$low")
	if [ ! -f "$a" ]; then
		ok 1 "$low: $a exists (make first)"
		continue
	fi
	: >"$TMP/below"
	for l in $(upto "$low"); do
		defined "$(archive "$l")" >>"$TMP/below"
	done
	sort -u "$TMP/below" -o "$TMP/below"
	: >"$TMP/higher"
	for up in $(above "$low"); do
		defined "$(archive "$up")" >>"$TMP/higher"
	done
	sort -u "$TMP/higher" -o "$TMP/higher"
	"$NM" -u "$a" 2>/dev/null | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u >"$TMP/undef"
	# Undefined here, not defined here or below, defined above.
	up=$(comm -23 "$TMP/undef" "$TMP/below" | comm -12 - "$TMP/higher" | tr '\n' ' ')
	[ -n "$up" ] && diag "$low calls upwards: $up"
	ok "$([ -z "$up" ]; echo $?)" "$low archive has no undefined symbol defined only above it"
done

# Inside bench/, files split from one another call one way only
# (docs/HACKING.md): LOW never calls a function that HIGHER defines.
obj() { echo "$build/bench/$1.o"; }
one_way() { # low higher...
	low=$1
	shift
	: >"$TMP/higher"
	for h in "$@"; do
		"$NM" -g --defined-only "$(obj "$h")" 2>/dev/null | awk 'NF == 3 { print $3 }' >>"$TMP/higher"
	done
	sort -u "$TMP/higher" -o "$TMP/higher"
	"$NM" -u "$(obj "$low")" 2>/dev/null | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u |
		comm -12 - "$TMP/higher" | tr '\n' ' '
}
if [ -f "$(obj hostinfo)" ] && [ -f "$(obj disturb-rows)" ]; then
	back=$(one_way hostinfo hostfacts)
	[ -n "$back" ] && diag "hostinfo.c calls hostfacts.c: $back"
	ok "$([ -z "$back" ]; echo $?)" "hostinfo.c (the list) calls nothing of hostfacts.c (taking the facts)"
	back=$(one_way disturb-rows exp-disturb disturb-round disturb-tool)
	for f in disturb-round disturb-tool disturb-plan; do
		back="$back$(one_way "$f" exp-disturb)"
	done
	[ -n "$back" ] && diag "calls back into a disturb file above: $back"
	ok "$([ -z "$back" ]; echo $?)" "disturb-*.c never call back into exp-disturb.c, nor disturb-rows.c into the rounds"
else
	skip "bench objects not found under $build/bench (make first)"
	skip "bench objects not found under $build/bench (make first)"
fi
done_testing
