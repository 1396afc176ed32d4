#!/bin/sh
# SPDX-License-Identifier: MIT
# The suite's readers of its own CSV and JSON take a quoted field for one
# field: bench/mbb-csv (the shell scripts' and the busybox guest's reader,
# under the host's awk and under busybox's), the tests' csv_col and
# csv_cols (python3's csv) and json_val (python3's json). A summary or a
# reason may hold commas and quotes; a pattern over the line would split it
# and read the columns after it wrong.
. "${top_srcdir:-.}/tests/lib.sh"
need_python
plan 11
CSV=${top_srcdir:-.}/bench/mbb-csv
T=$(printf '\t')

# A quoted field with commas and doubled quotes before the columns a row is
# selected by, a quoted key, an empty last field.
cat >"$TMP/t.csv" <<'EOF'
mechanism,summary,threads,status,skip_reason
fence,"a fence, then ""another"", then a third",2,ok,
null,plain,1,skipped,"no barrier, none"
"sig,nal","x ""y"",z",2,ok,
EOF

# check_awk NAME SHELL AWK: bench/mbb-csv run by SHELL with MBB_AWK=AWK.
check_awk() {
	_n=$1 _sh=$2 _awk=$3
	# shellcheck disable=SC2086
	mbb() { MBB_AWK=$_awk $_sh "$CSV" "$@"; }
	got=$(mbb "$TMP/t.csv" mechanism,summary threads=2)
	[ "$got" = "fence${T}a fence, then \"another\", then a third
sig,nal${T}x \"y\",z" ]
	ok $? "$_n: a condition on a column after the quoted field selects the rows, the fields whole ($(echo "$got" | tr '\t\n' '|/'))"
	got=$(mbb "$TMP/t.csv" mechanism,skip_reason status!=ok 'skip_reason~^no barrier, ')
	[ "$got" = "null${T}no barrier, none" ]
	ok $? "$_n: != and ~ on the columns after it ($got)"
	got=$({ echo "# progress"; cat "$TMP/t.csv"; } | mbb -n -H mechanism - mechanism status=ok)
	[ "$got" = 2 ]
	ok $? "$_n: -n counts the matching rows, -H skips the lines before the header (got $got)"
	mbb "$TMP/t.csv" mechanism,nosuch >"$TMP/out" 2>"$TMP/err"
	rc=$?
	mbb "$TMP/t.csv" mechanism nosuch=1 >>"$TMP/out" 2>"$TMP/err2"
	rc2=$?
	[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		[ "$(wc -l <"$TMP/err2")" -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q '"nosuch"' "$TMP/err"
	ok $? "$_n: a missing column (in COLS or COND) is exit 2 and one line (rc=$rc, $rc2: $(head -c 160 "$TMP/err"))"
}

check_awk awk sh awk
if command -v busybox >/dev/null 2>&1 && busybox awk 'BEGIN { exit 0 }' 2>/dev/null; then
	check_awk "busybox (the guest's sh and awk)" "busybox sh" "busybox awk"
else
	for _ in 1 2 3 4; do skip "busybox is not installed (apt-get install busybox-static): the guest's awk untested"; done
fi

got=$(csv_col "$TMP/t.csv" summary 1)/$(csv_col "$TMP/t.csv" threads 3)/$(csv_col "$TMP/t.csv" mechanism 3)
[ "$got" = 'a fence, then "another", then a third/2/sig,nal' ]
ok $? "csv_col: the quoted cells whole, the cells after them in place ($got)"
got=$(csv_cols "$TMP/t.csv" mechanism threads | awk -F'\t' '$2 == 2 { print $1 }' | paste -sd '|')
got2=$(csv_cols - status skip_reason nosuch <"$TMP/t.csv" | sed -n 2p)
[ "$got" = "fence|sig,nal" ] && [ "$got2" = "skipped${T}no barrier, none${T}" ]
ok $? "csv_cols (a file and stdin): rows selected by a column after the quoted field ($got), a missing column empty"

printf '{"notes": ["a, b \\"c\\", d", "e"], "host": {"cpus_allowed": "0-1 (every online CPU)"}}\n' >"$TMP/t.json"
got=$(json_val "$TMP/t.json" notes 0)/$(json_val "$TMP/t.json" notes | wc -l)/$(json_val "$TMP/t.json" host)
json_val "$TMP/t.json" host nosuch >/dev/null
rc=$?
[ "$got" = 'a, b "c", d/2/cpus_allowed' ] && [ $rc -eq 1 ]
ok $? "json_val: a string with commas and quotes whole, a list one item a line, an object's keys; a missing key exit 1 ($got, rc=$rc)"
done_testing
