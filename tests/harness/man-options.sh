#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench(1) documents every option: each --option that a subcommand's
# --help shows appears in that subcommand's entry of the man page (or, for
# an experiment built into mbbench, under COMMON OPTIONS), and mbbench's
# own options appear in the page. Subcommands come from `mbbench --help` and
# options from each `--help`, so a new one is checked without a list here.
# Options are the first --word of a help line that starts with spaces and
# "--" (or "-x, --"), and every --word of the usage paragraph (up to the
# first blank line).
. "${top_srcdir:-.}/tests/lib.sh"

man=${top_builddir:-.}/bench/mbbench.1
export LC_ALL=C

# The subcommands by heading of mbbench --help: "experiments:" (built in,
# COMMON OPTIONS apply) and the others (helpers with options of their own).
"$MBBENCH" --help >"$TMP/top" 2>&1 || { echo "1..0 # SKIP mbbench --help failed"; exit 0; }
subs=$(awk '/^[a-z].*:$/ { h = $0 } /^  [a-z]/ { print (h == "experiments:" ? "e" : "h") ":" $1 }' "$TMP/top")
[ -n "$subs" ] || { echo "Bail out! no subcommands in mbbench --help"; exit 1; }
plan $(($(echo "$subs" | wc -l) + 1))

# The page as text, each line tagged with the entry it belongs to: a
# subcommand's (".TP" then ".B NAME" or ".BI NAME ...", outside any
# .RS/.RE block, where an entry lists its own options), "_common" under
# COMMON OPTIONS, "_other" under any other heading. \- is -, fonts dropped.
names=$(echo "$subs" | sed 's/^.://' | tr '\n' ' ')
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man" |
	awk -v names=" $names " '
	/^\.SH / { owner = ($0 ~ /^\.SH "?COMMON OPTIONS/) ? "_common" : "_other"; tp = 0; depth = 0; next }
	/^\.RS/ { depth++ }
	/^\.RE/ && depth > 0 { depth-- }
	tp && depth == 0 && /^\.BI? / && index(names, " " $2 " ") { owner = $2 }
	{ tp = ($0 ~ /^\.TP/); print owner "\t" $0 }' >"$TMP/man"

# options FILE: the --options of one --help output, one a line.
options() {
	{
		awk 'NF == 0 { exit } { print }' "$1" | grep -o -- '--[a-z][a-z0-9-]*'
		sed -n 's/^[[:space:]]\{1,\}\(-[A-Za-z0-9],\{0,1\}[[:space:]]\{1,\}\)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' "$1"
	} | sort -u
}
# documented OPTION OWNER...: does the entry of one of the owners name it?
documented() {
	_re="(^|[^A-Za-z0-9-])$1([^a-z0-9-]|\$)"
	shift
	while [ $# -gt 0 ]; do
		awk -F'\t' -v o="$1" '$1 == o { sub(/^[^\t]*\t/, ""); print }' "$TMP/man" | grep -Eq -- "$_re" && return 0
		shift
	done
	return 1
}

# mbbench's own options, anywhere in the page.
missing=
for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$TMP/top" | sort -u); do
	sed 's/\\-/-/g' "$man" | grep -Eq -- "(^|[^A-Za-z0-9-])$o([^a-z0-9-]|\$)" || missing="$missing $o"
done
[ -z "$missing" ]
ok $? "mbbench(1) has mbbench's own options (missing:${missing:- none})"

for s in $subs; do
	kind=${s%%:*} sub=${s#?:}
	if ! "$MBBENCH" "$sub" --help >"$TMP/help" 2>&1; then
		ok 1 "mbbench $sub --help fails: $(head -n 1 "$TMP/help")"
		continue
	fi
	if ! awk -F'\t' -v o="$sub" '$1 == o { f = 1 } END { exit !f }' "$TMP/man"; then
		ok 1 "mbbench(1) has no entry for $sub"
		continue
	fi
	owners=$sub
	[ "$kind" = e ] && owners="$sub _common"
	missing='' n=0
	for o in $(options "$TMP/help"); do
		n=$((n + 1))
		# shellcheck disable=SC2086 # owners is a word list
		documented "$o" $owners || missing="$missing $o"
	done
	[ -z "$missing" ]
	ok $? "mbbench(1) documents the $n options of mbbench $sub --help (missing:${missing:- none})"
done
done_testing
