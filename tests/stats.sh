#!/bin/sh
# SPDX-License-Identifier: MIT
# The statistics of the analysis (analysis/mbstats.py): every distribution
# and test from scipy.stats, none written by hand, and one line naming the
# package where it is missing.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 2
src=${top_srcdir:-.}
export MBB_ANALYSIS="$src/analysis"

# No special function written by hand is left in the analysis.
hand=$(grep -lE '_ibeta|_betacf|lgamma|Lentz|continued fraction' "$src"/analysis/*.py "$src/analysis/compare" \
	"$src/analysis/report" "$src/analysis/advise" 2>/dev/null)
[ -z "$hand" ] && grep -q 'scipy.stats' "$src/analysis/mbresults.py"
ok $? "no hand-written special function in the analysis; scipy.stats is imported in mbresults.py (${hand:-none})"

# Without scipy: one line naming the package, exit 1, no traceback.
mkdir -p "$TMP/noscipy/scipy"
echo 'raise ModuleNotFoundError("No module named scipy", name="scipy")' >"$TMP/noscipy/scipy/__init__.py"
mkdir -p "$TMP/empty"
echo '{"format_version": 1, "tool": "mbbench sweep", "points": []}' >"$TMP/empty/run.json"
PYTHONPATH="$TMP/noscipy" "$MBBENCH" compare "$TMP/empty" "$TMP/empty" >/dev/null 2>"$TMP/e1"
r1=$?
PYTHONPATH="$TMP/noscipy" "$MBBENCH" report "$TMP/empty" --output "$TMP/r.md" 2>"$TMP/e2"
r2=$?
[ $r1 -eq 1 ] && [ $r2 -eq 1 ] && [ "$(cat "$TMP/e1" "$TMP/e2" | wc -l)" -eq 2 ] &&
	grep -qx 'compare: python3-scipy not found: apt-get install python3-scipy' "$TMP/e1" &&
	grep -qx 'report: python3-scipy not found: apt-get install python3-scipy' "$TMP/e2"
ok $? "without scipy: compare exit $r1, report exit $r2, one line each ($(cat "$TMP/e1"))"
done_testing
