#!/bin/sh
# SPDX-License-Identifier: MIT
# An unset, empty, relative or missing TMPDIR, or one that is a file: every
# helper just works (falls back to /tmp), with no error line. Before, a
# sweep with TMPDIR=/nonexistent measured everything and then failed
# ("cannot create a temporary directory"), leaving the folder .incomplete.
. "${srcdir:-.}/tests/lib.sh"
need_python
R=$(cd "${srcdir:-.}" && pwd)/results/reference/vm-quick-20261203T141826Z
need_reference "$R"
MBB=$(cd "$(dirname "$MBBENCH")" && pwd)/$(basename "$MBBENCH")
: >"$TMP/afile"
plan 25
k=0
for t in unset '' /nonexistent/mbb-tmp relative "$TMP/afile"; do
	k=$((k + 1))
	case $t in unset) set -- env -u TMPDIR ;; *) set -- env TMPDIR="$t" ;; esac
	# errs: the lines of stderr that are not '#' progress or notes
	errs() { grep -v '^#' "$TMP/err" | head -n 3 | tr '\n' ' '; }
	"$@" "$MBB" sweep --quick --mechanism null --experiment calls --budget 10 --output "$TMP/s$k" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && [ -s "$TMP/s$k/report.md" ] && [ -z "$(errs)" ]
	ok $? "TMPDIR=$t: sweep finishes its folder (rc=$rc $(errs))"
	"$@" "$MBB" report "$R" --output "$TMP/r$k.md" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && [ -s "$TMP/r$k.md" ] && [ -z "$(errs)" ]
	ok $? "TMPDIR=$t: report (rc=$rc $(errs))"
	"$@" "$MBB" compare "$R" "$R" --output "$TMP/c$k.md" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && [ -z "$(errs)" ]
	ok $? "TMPDIR=$t: compare (rc=$rc $(errs))"
	"$@" "$MBB" advise --validate --results "$R" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && [ -z "$(errs)" ]
	ok $? "TMPDIR=$t: advise (rc=$rc $(errs))"
	if [ -d "$TMP/s$k" ]; then
		"$@" "$MBB" plot "$TMP/s$k" >/dev/null 2>"$TMP/err"
		rc=$?
		[ $rc -eq 0 ] && [ -z "$(errs)" ]
		ok $? "TMPDIR=$t: plot (rc=$rc $(errs))"
	else
		ok 1 "TMPDIR=$t: plot (no folder to draw)"
	fi
done
done_testing
