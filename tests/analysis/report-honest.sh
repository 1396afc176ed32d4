#!/bin/sh
# SPDX-License-Identifier: MIT
# The report a reader decides from, on the reference quick sweep of a
# 2-vCPU guest (results/reference/): at most 200 lines with the Verdict in
# its first 30, no Verdict line from a point with more threads than CPUs,
# no symmetric interval of a cost or a rate that runs below 0, no sentence
# (outside tables) said twice, and the appendix beside it.
. "${top_srcdir:-.}/tests/lib.sh"
need_python
ref=$(ls -d "${top_srcdir:-.}"/results/reference/vm-quick-* 2>/dev/null | head -n 1)
[ -n "$ref" ] || {
	echo "1..0 # SKIP no reference quick run (a release tarball has none)"
	exit 0
}
plan 5
mkdir "$TMP/r"
"$MBBENCH" report "$ref" --output "$TMP/r/report.md" 2>"$TMP/err"
ok $? "report on $(basename "$ref"): exit 0 ($(head -c 200 "$TMP/err"))"
n=$(wc -l <"$TMP/r/report.md")
v=$(grep -n '^## Verdict' "$TMP/r/report.md" | cut -d: -f1)
e=$(awk 'NR > 1 && /^## / && f { print NR; exit } /^## Verdict/ { f = 1 }' "$TMP/r/report.md")
[ "$n" -le 200 ] && [ "${v:-99}" -le 5 ] && [ "${e:-99}" -le 30 ] && [ -s "$TMP/r/appendix.md" ]
ok $? "$n lines, the Verdict from line ${v:-?} to ${e:-?}, appendix.md beside it"
sed -n '/^## Verdict/,/^## [^V]/p' "$TMP/r/report.md" | grep -q 'Barrier at T=3'
[ $? -ne 0 ]
ok $? "no Verdict line ranks a point with more threads than CPUs (T=3 on 2 CPUs)"
"$PY" - "$TMP/r/report.md" <<'PY'
import re, sys
bad, sec = [], ""
for i, l in enumerate(open(sys.argv[1]).read().split("\n"), 1):
    if l.startswith("## "):
        sec = l
    if "disturb" in sec:	# a difference of two counts: signed, said so
        continue
    for m in re.finditer(r"(?<![\w.+-])(-?[0-9][0-9,.]*) ± ([0-9][0-9,.]*)", l):
        a, b = float(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))
        if 0 < a <= b:
            bad.append(f"line {i}: {m.group(0)}")
assert not bad, bad
PY
ok $? "no symmetric interval of a cost or a rate runs below 0"
"$PY" - "$TMP/r/report.md" <<'PY'
import re, sys
seen = {}
for i, l in enumerate(open(sys.argv[1]).read().split("\n"), 1):
    if l.startswith(("|", "#", "![")) or not l.strip():
        continue
    for s in re.split(r"(?<=[.;:])\s+", l):
        if len(s.strip()) > 40:
            seen.setdefault(s.strip(), []).append(i)
dup = {s: v for s, v in seen.items() if len(v) > 1}
assert not dup, list(dup.items())[:3]
PY
ok $? "no sentence outside the tables is said twice"
done_testing
