#!/bin/sh
# SPDX-License-Identifier: MIT
# The committed reference runs (results/reference/) as they are kept: no
# raw/, run.json on one line (analysis/slim-reference), and mbbench report
# and compare read each of them. Then analysis/slim-reference itself on
# copies: a reference run comes out unchanged, a raw/ that only repeats the
# folder is removed with the same values left for every reader, and a raw/
# file it cannot account for stops it before anything changes.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}
ref=$src/results/reference

need_python
if [ ! -d "$ref" ]; then
	echo "1..0 # SKIP no $ref (a release tarball has no reference runs)"
	exit 0
fi
# Each reference run: the folders with a run.json (an A/B run has one per kernel).
find "$ref" -name run.json ! -path '*/raw/*' | sort | sed 's,/run.json$,,' >"$TMP/folders"
n=$(wc -l <"$TMP/folders")
plan $((3 * n + 5))

prev=
while IFS= read -r d; do
	name=${d#"$ref"/}
	[ ! -e "$d/raw" ] && [ "$(wc -l <"$d/run.json")" -eq 1 ]
	ok $? "$name is kept as a reference run (no raw/, run.json on one line)"

	"$MBBENCH" report "$d" --output "$TMP/report.md" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q '^# membarrier-bench results' "$TMP/report.md" || {
		rc=1
		diag "$(head -n 3 "$TMP/err")"
	}
	ok $rc "mbbench report reads $name"

	# compare against the folder before it when they share an experiment
	# (the sweeps, the vm scale runs, an A/B run's kernels), else itself.
	other=$d
	for f in "$d"/*.csv; do
		[ -n "$prev" ] && [ -f "$prev/${f##*/}" ] && other=$prev && break
	done
	"$MBBENCH" compare "$other" "$d" >"$TMP/cmp.txt" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && [ -s "$TMP/cmp.txt" ] || {
		rc=1
		diag "$(head -n 3 "$TMP/err")"
	}
	ok $rc "mbbench compare reads $name (against ${other#"$ref"/})"
	prev=$d
done <"$TMP/folders"

# analysis/slim-reference on a copy of the first sweep folder (one with
# calls.csv), or else of the first reference run.
first=$(while IFS= read -r d; do [ -f "$d/calls.csv" ] && echo "$d"; done <"$TMP/folders" | head -n 1)
[ -n "$first" ] || first=$(head -n 1 "$TMP/folders")
slim() { "$PY" "$src/analysis/slim-reference" "$@"; }
cp -R "$first" "$TMP/a" && chmod -R u+w "$TMP/a"
slim "$TMP/a" >/dev/null 2>"$TMP/err" && cmp -s "$first/run.json" "$TMP/a/run.json"
ok $? "slim-reference leaves a reference run as it is"

# A raw/ as a sweep leaves it: the envelopes of run.json's points, the
# CSV rows of the folder, the host envelope, bookkeeping, empty stderr logs.
"$PY" - "$TMP/a" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
run = json.load(open(os.path.join(d, "run.json")))
# The latency envelopes' histograms back in, as a sweep writes them.
h = os.path.join(d, "latency-histogram.csv")
if os.path.isfile(h):
    rows = list(csv.DictReader(open(h)))
    for p in run["points"]:
        if p["experiment"] == "latency":
            p["histogram"] = [{k: (float(v) if "." in v else int(v)) if k != "mechanism" else v
                               for k, v in r.items()} for r in rows
                              if any(r["mechanism"] == q.get("mechanism") for q in p["points"])]
raw = os.path.join(d, "raw")
os.makedirs(raw)
json.dump(run["info"], open(os.path.join(raw, "info.json"), "w"), indent=2)
open(os.path.join(raw, "points.txt"), "w").write("x y done\n")
for i, p in enumerate(run["points"]):
    exp = p["experiment"]
    pd = os.path.join(raw, f"{exp}-{i}")
    os.makedirs(pd)
    json.dump(p, open(os.path.join(pd, exp + ".json"), "w"), indent=2)
    open(pd + ".err", "w").close()
    top = os.path.join(d, exp + ".csv")
    if os.path.isfile(top):
        lines = open(top).read().splitlines(keepends=True)
        open(os.path.join(pd, exp + ".csv"), "w").write("".join(lines[:1] + lines[1 + i:2 + i]))
json.dump(run, open(os.path.join(d, "run.json"), "w"), indent=2)
PY
cp -R "$TMP/a" "$TMP/b"
echo 'a warning nothing else keeps' >"$TMP/b/raw/calls-0.err"
slim "$TMP/b" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'calls-0.err is not empty' "$TMP/err" &&
	[ -d "$TMP/b/raw" ] && cmp -s "$TMP/a/run.json" "$TMP/b/run.json"
ok $? "slim-reference refuses a raw/ file that holds what the folder does not, changing nothing (exit $rc)"

slim "$TMP/a" >/dev/null 2>"$TMP/err" && [ ! -e "$TMP/a/raw" ] && cmp -s "$first/run.json" "$TMP/a/run.json"
rc=$?
[ $rc -eq 0 ] || diag "$(head -n 3 "$TMP/err")"
ok $rc "slim-reference removes a raw/ that only repeats the folder, back to the committed run.json"

mkdir -p "$TMP/ra" "$TMP/rf"
"$MBBENCH" report "$TMP/a" --output "$TMP/ra/report.md" >/dev/null 2>&1 &&
	"$MBBENCH" report "$first" --output "$TMP/rf/report.md" >/dev/null 2>&1 &&
	cmp -s "$TMP/ra/report.md" "$TMP/rf/report.md" && cmp -s "$TMP/ra/appendix.md" "$TMP/rf/appendix.md"
ok $? "mbbench report on the slimmed copy is the report on the reference run"

mkdir "$TMP/c" && echo '{"format_version": 1}' >"$TMP/c/run.json"
mkdir "$TMP/c/raw" && echo x >"$TMP/c/raw/notes.txt"
slim "$TMP/c" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ -f "$TMP/c/raw/notes.txt" ]
ok $? "slim-reference refuses a folder that is not a results folder (one line, exit 2)"
done_testing
