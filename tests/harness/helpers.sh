#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench as one entry point: `mbbench NAME` finds helper mbbench-NAME next
# to itself or in the libexec directory; a missing part of the installation
# is an error (exit 1, the path looked in), not a skipped row; the small CLI
# conventions (-h, -V, --json -) hold for every subcommand.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON3:-python3}
plan 13

# Every helper answers --help and -h on stdout with its usage, exit 0.
bad=
for h in sweep plot report compare vm; do
	for flag in --help -h; do
		out=$("$MBBENCH" "$h" "$flag" 2>&1)
		rc=$?
		{ [ "$rc" -eq 0 ] && echo "$out" | head -n 3 | grep -q "mbbench $h"; } ||
			bad="$bad $h$flag(rc $rc)"
	done
done
[ -z "$bad" ]
ok $? "every helper prints its usage on --help and -h, exit 0 (bad:${bad:- none})"

# Every experiment takes -h like --help.
bad=
for e in calls contend distance disturb doctor info latency list litmus plan points rcu register; do
	"$MBBENCH" "$e" -h >"$TMP/h" 2>&1 && grep -q "^usage: mbbench $e" "$TMP/h" || bad="$bad $e"
done
[ -z "$bad" ]
ok $? "every experiment prints its usage on -h, exit 0 (bad:${bad:- none})"

v=$("$MBBENCH" -V) && [ "$v" = "$("$MBBENCH" --version)" ] && echo "$v" | grep -q '^mbbench (membarrier-bench) [0-9]'
ok $? "-V prints the version like --version ($v)"
"$MBBENCH" --version extra >/dev/null 2>"$TMP/e"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ]
ok $? "--version with an argument: exit 2, one line"
"$MBBENCH" >/dev/null 2>"$TMP/e"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q 'mbbench --help' "$TMP/e"
ok $? "no subcommand: exit 2, one line pointing at --help"

# --json - puts the envelope, and only it, on stdout.
if command -v "$PY" >/dev/null 2>&1; then
	"$MBBENCH" calls --mechanism null --threads 1 --iterations 1000 --json - >"$TMP/j" 2>/dev/null &&
		"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["experiment"] == "calls" and d["points"], d' "$TMP/j"
	ok $? "--json - writes the JSON envelope alone to stdout"
else
	skip "python3 not found (apt-get install python3)"
fi

# The dispatcher hands the helper this mbbench: the sweep measures with it.
"$MBBENCH" sweep --mechanism null --output "$TMP/run" >/dev/null 2>"$TMP/sweep.err" &&
	grep -Eq '^(setarch [^ ]+ -R |linux64 -R )?mbbench calls --mechanism null' "$TMP/run/commands.txt" &&
	[ -s "$TMP/run/calls.csv" ]
ok $? "mbbench sweep runs the helper with this build ($(head -n 1 "$TMP/sweep.err"))"

# A lone copy of mbbench with nothing installed beside it or in the libexec
# directory: helpers are missing, which is an error naming where it looked.
mkdir "$TMP/lone" && cp "$MBBENCH" "$TMP/lone/mbbench"
MBBENCH_LIBEXECDIR=$TMP/nolibexec "$TMP/lone/mbbench" register --mechanism membarrier-private-expedited \
	--threads 0 --repeat 1 --output "$TMP/regout" >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q "$TMP/nolibexec/mbbench-fresh" "$TMP/e" &&
	grep -q "$TMP/lone/mbbench-fresh" "$TMP/e" && [ ! -e "$TMP/regout" ]
ok $? "register without mbbench-fresh: exit $rc, one line with both paths, no output ($(cat "$TMP/e"))"
MBBENCH_LIBEXECDIR=$TMP/nolibexec "$TMP/lone/mbbench" sweep --quick >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q "$TMP/nolibexec/mbbench-sweep" "$TMP/e"
ok $? "sweep without its helper: exit $rc, one line naming the path ($(cat "$TMP/e"))"

# MBBENCH_LIBEXECDIR is where an installed mbbench looks: a helper there runs.
mkdir "$TMP/libexec"
printf '#!/bin/sh\necho "helper ran: $*; MBBENCH=$MBBENCH"\n' >"$TMP/libexec/mbbench-compare"
chmod +x "$TMP/libexec/mbbench-compare"
out=$(MBBENCH_LIBEXECDIR=$TMP/libexec "$TMP/lone/mbbench" compare a b)
[ "$out" = "helper ran: a b; MBBENCH=$TMP/lone/mbbench" ]
ok $? "a helper in the libexec directory runs with MBBENCH set ($out)"

# A helper whose data directory is gone says so: exit 1 and the path.
for h in plot report; do
	sed -e "s|^MBB_DATADIR=.*|MBB_DATADIR='$TMP/nodata'|" \
		-e "s|^MBB_DATADIR = .*|MBB_DATADIR = '$TMP/nodata'|" \
		"$(dirname "$MBBENCH")/mbbench-$h" >"$TMP/libexec/mbbench-$h"
	chmod +x "$TMP/libexec/mbbench-$h"
done
MBBENCH_LIBEXECDIR=$TMP/libexec "$TMP/lone/mbbench" plot "$TMP/run" >/dev/null 2>"$TMP/e1"; r1=$?
MBBENCH_LIBEXECDIR=$TMP/libexec "$TMP/lone/mbbench" report "$TMP/run" >/dev/null 2>"$TMP/e2"; r2=$?
[ $r1 -eq 1 ] && [ $r2 -eq 1 ] && grep -q "$TMP/nodata/" "$TMP/e1" && grep -q "$TMP/nodata/analysis" "$TMP/e2" &&
	[ "$(cat "$TMP/e1" "$TMP/e2" | wc -l)" -eq 2 ]
ok $? "plot and report without their data: exit 1, one line naming the path"
"$MBBENCH" sweep --mechanism null --output "$TMP/run" >/dev/null 2>"$TMP/e"
[ $? -eq 2 ] && grep -q 'not an empty directory' "$TMP/e"
ok $? "sweep --output onto a finished folder: exit 2, nothing overwritten"

# mbbench(1) has a section for every subcommand mbbench --help lists.
man=${top_builddir:-.}/bench/mbbench.1
missing=
for sub in $("$MBBENCH" --help | awk '/^  [a-z]/ { print $1 }'); do
	grep -Eq "^\.BI? $sub( |\$)" "$man" || missing="$missing $sub"
done
[ -z "$missing" ]
ok $? "mbbench(1) has a section for every subcommand (missing:${missing:- none})"
done_testing
