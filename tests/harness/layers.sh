#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers, bottom to top: lib, topology, workloads, bench, each an archive
# of one or more folders (Makefile.am). A file may use its own layer and the
# ones below it, never one above:
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

# The folders of a layer.
folders() {
	case $1 in
	workloads) echo "workloads/mechanisms workloads/rcu workloads" ;;
	bench) echo "bench/harness bench/host bench/experiments bench/experiments/anatomy bench/experiments/contend bench/experiments/disturb bench/experiments/doctor bench" ;;
	*) echo "$1" ;;
	esac
}

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
plan 12

for low in lib topology workloads; do
	bad=
	for f in $(for d in $(folders "$low"); do echo "$src/$d"/*.c "$src/$d"/*.h; done); do
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
				for d in $(folders "$up"); do
					[ -f "$src/$d/$inc" ] && bad="$bad ${f#"$src"/}:$d/$inc"
				done
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

# Inside the bench layer, by room (docs/HACKING.md): harness/ and host/
# (the machinery) call nothing of experiments/ or of bench/ (the registry
# and the subcommands about the suite), experiments/ nothing of bench/, and
# no experiment's files anything of another experiment's; files split from
# one another call one way only. LOW never calls a function HIGHER defines.
objs() { # the objects of the rooms given
	for d in "$@"; do
		for o in "$build/$d"/*.o; do [ -f "$o" ] && echo "$o"; done
	done
}
obj() { objs $(folders bench) | grep "/$1\.o\$"; }
calls_into() { # "low objects" "higher objects": the symbols low takes from higher
	: >"$TMP/higher"
	for h in $2; do
		"$NM" -g --defined-only "$h" 2>/dev/null | awk 'NF == 3 { print $3 }' >>"$TMP/higher"
	done
	sort -u "$TMP/higher" -o "$TMP/higher"
	for l in $1; do
		"$NM" -u "$l" 2>/dev/null | awk 'NF == 2 && $1 == "U" { print $2 }'
	done | sort -u | comm -12 - "$TMP/higher" | tr '\n' ' '
}
one_way() { # low higher...
	low=$1
	shift
	calls_into "$(obj "$low")" "$(for h in "$@"; do obj "$h"; done)"
}
if [ -n "$(objs bench/harness)" ] && [ -n "$(objs bench/experiments)" ]; then
	exps="$(objs bench/experiments bench/experiments/anatomy bench/experiments/contend bench/experiments/disturb bench/experiments/doctor)"
	back=$(calls_into "$(objs bench/harness bench/host)" "$exps $(objs bench)")
	[ -n "$back" ] && diag "harness/ or host/ calls up: $back"
	ok "$([ -z "$back" ]; echo $?)" "harness/ and host/ call nothing of experiments/ or bench/"
	# harness/ (the experiments' frame) uses host/ (the host's facts and
	# counters), never the other way: what both need sits below them.
	back=$(calls_into "$(objs bench/host)" "$(objs bench/harness)")
	[ -n "$back" ] && diag "host/ calls harness/: $back"
	ok "$([ -z "$back" ]; echo $?)" "host/ calls nothing of harness/ (one way: harness/ uses host/)"
	back=$(calls_into "$exps" "$(objs bench)")
	for d in anatomy contend disturb doctor; do
		back="$back$(calls_into "$(echo "$exps" | grep -v "/experiments/$d/")" "$(objs "bench/experiments/$d")")"
	done
	[ -n "$back" ] && diag "an experiment calls bench/ or another experiment: $back"
	ok "$([ -z "$back" ]; echo $?)" "experiments call nothing of bench/ nor of one another"
else
	skip "harness/ and experiments/ objects not found under $build (make first)"
	skip "harness/ and experiments/ objects not found under $build (make first)"
	skip "harness/ and experiments/ objects not found under $build (make first)"
fi
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
	skip "host/ and bench/experiments/disturb/ objects not found under $build (make first)"
	skip "host/ and bench/experiments/disturb/ objects not found under $build (make first)"
fi

# analysis/: the import graph of its modules and tools (imports inside a
# function count too) has no circle: a module that needs what imports it
# gets what both need moved down into a third.
if command -v "${PYTHON3:-python3}" >/dev/null 2>&1; then
	circle=$("${PYTHON3:-python3}" -I - "$src/analysis" <<'PY'
import os, re, sys
d = sys.argv[1]
mods = {}
for f in sorted(os.listdir(d)):
    p = os.path.join(d, f)
    if not os.path.isfile(p):
        continue
    text = open(p, encoding="utf-8", errors="replace").read()
    if not (f.endswith(".py") or text.startswith("#!") and "python3" in text.split("\n", 1)[0]):
        continue
    mods[f[:-3] if f.endswith(".py") else f] = text
edges = {m: sorted({n for n in re.findall(r"^\s*(?:from|import)\s+(\w+)", t, re.M) if n in mods and n != m})
         for m, t in mods.items()}
state, path = {}, []
def visit(m):
    state[m] = 1
    path.append(m)
    for n in edges[m]:
        if state.get(n) == 1:
            print(" -> ".join(path[path.index(n):] + [n]))
            sys.exit(0)
        if n not in state:
            visit(n)
    path.pop()
    state[m] = 2
for m in mods:
    if m not in state:
        visit(m)
PY
)
	[ -n "$circle" ] && diag "an import circle in analysis/: $circle"
	ok "$([ -z "$circle" ]; echo $?)" "analysis/ imports in one direction: no circle (${circle:-none})"
else
	skip "python3 not found: analysis/'s imports not read"
fi
done_testing
