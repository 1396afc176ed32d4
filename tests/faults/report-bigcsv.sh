#!/bin/sh
# SPDX-License-Identifier: MIT
# A results folder whose CSV is absurdly large (over 64 MB: no sweep writes
# that) is refused at once by report, compare, plot and advise: one line,
# exit 2, nothing written. A large one that may be real (over 8 MB) gets a
# line on stderr saying it is being read and how long it takes. Before,
# report on a 170 MB calls.csv ran 45 s (and minutes for more) silently.
. "${srcdir:-.}/tests/lib.sh"
need_python
R=$(cd "${srcdir:-.}" && pwd)/results/reference/vm-quick-20261203T141826Z
cp -r "$R" "$TMP/huge" && rm -rf "$TMP/huge/plots" "$TMP/huge/report.md"
truncate -s 70M "$TMP/huge/calls.csv" || { echo "1..0 # SKIP truncate cannot make a sparse file here"; exit 0; }
plan 6
for c in "report $TMP/huge --output $TMP/r.md" "compare $TMP/huge $R --output $TMP/c.md" "plot $TMP/huge" \
	"advise --validate --results $TMP/huge --output $TMP/a.md"; do
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$MBBENCH" $c >"$TMP/out" 2>"$TMP/err"
	rc=$? took=$(($(date +%s) - start))
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "calls.csv is 70 MB; a results folder's CSV is at most 64 MB" "$TMP/err" &&
		[ "$took" -le 10 ] && [ ! -e "$TMP/r.md" ] && [ ! -e "$TMP/c.md" ] && [ ! -e "$TMP/a.md" ] && [ ! -e "$TMP/huge/plots" ]
	ok $? "${c%% *}: exit 2 at once (${took}s), one line, nothing written (rc=$rc: $(head -c 160 "$TMP/err"))"
done
# A 9 MB calls.csv: read, and said so first.
cp -r "$R" "$TMP/large" && rm -rf "$TMP/large/plots"
"$PY" - "$TMP/large/calls.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h, body = rows[0], rows[1:]
t = h.index("threads")
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(h)
    k = 0
    while f.tell() < 9 << 20:
        for r in body:
            r = list(r)
            r[t] = str(int(r[t]) + 64 * k)
            w.writerow(r)
        k += 1
PY
"$MBBENCH" report "$TMP/large" --output "$TMP/l.md" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ -s "$TMP/l.md" ] && grep -q "^# report: reading .*calls.csv (9 MB; about 2 s)" "$TMP/err"
ok $? "report on a 9 MB calls.csv says it is reading it, then writes the report (rc=$rc: $(head -c 160 "$TMP/err"))"
"$MBBENCH" plot "$TMP/large" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ -s "$TMP/large/plots/calls.png" ]
ok $? "plot on it still draws (rc=$rc: $(grep -v '^# plot' "$TMP/err" | head -c 160))"
done_testing
