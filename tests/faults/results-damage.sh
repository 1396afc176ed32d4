#!/bin/sh
# SPDX-License-Identifier: MIT
# report and compare on damaged results folders: a specific damage (a
# wrong type, a number out of range, an unknown status or format_version,
# a directory for a file) is refused with exit 2 and one line naming the
# file; random damage (bytes flipped, lines cut, cells dropped, seeded)
# never gives a traceback or an exit status other than 0 or 2.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 20
"$MBBENCH" sweep --quick --mechanism null,fence --output "$TMP/good" >/dev/null 2>"$TMP/sweep.err"
ok $? "a small folder to damage ($(tail -n 1 "$TMP/sweep.err"))"

damage() { # name python-statement-on-folder-d
	rm -rf "$TMP/$1" && cp -r "$TMP/good" "$TMP/$1" &&
		"$PY" -c "import sys, os; d = sys.argv[1]; $2" "$TMP/$1"
}
judge() { # name file-named-in-error
	"$MBBENCH" report "$TMP/$1" --output "$TMP/$1.md" >/dev/null 2>"$TMP/$1.e1"
	r1=$?
	"$MBBENCH" compare "$TMP/good" "$TMP/$1" >/dev/null 2>"$TMP/$1.e2"
	r2=$?
	[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ "$(cat "$TMP/$1.e1" "$TMP/$1.e2" | wc -l)" -eq 2 ] &&
		grep -q "$2" "$TMP/$1.e1" && grep -q "$2" "$TMP/$1.e2" && [ ! -e "$TMP/$1.md" ]
	ok $? "$1: report and compare exit $r1 and $r2, one line naming $2 ($(cat "$TMP/$1.e1"))"
}
damage byte "open(os.path.join(d, 'calls.csv'), 'ab').write(b'\xff\n')"
judge byte calls.csv
damage threads "p = os.path.join(d, 'calls.csv'); L = open(p).read().split('\n'); h = L[0].split(','); c = L[1].split(','); c[h.index('threads')] = 'abc'; L[1] = ','.join(c); open(p, 'w').write('\n'.join(L))"
judge threads calls.csv
damage column "p = os.path.join(d, 'latency.csv'); L = open(p).read().split('\n'); L[0] = L[0].replace('p99_ns', 'p99'); open(p, 'w').write('\n'.join(L))"
judge column latency.csv
damage array "open(os.path.join(d, 'run.json'), 'w').write('[1,2,3]')"
judge array run.json

# run.json of the wrong shape: a traceback before.
json_set() { # name python-statement-on-run-r
	damage "$1" "import json; p = os.path.join(d, 'run.json'); r = json.load(open(p)); $2; json.dump(r, open(p, 'w'))"
}
json_set host5 "r['info']['host'] = 5"
judge host5 run.json
json_set hostlist "r['info']['host'] = []"
judge hostlist run.json
json_set points "r['points'] = [1, 2]"
judge points run.json
damage deep "open(os.path.join(d, 'run.json'), 'w').write('[' * 100000)"
judge deep run.json
# ... or accepted as it was.
damage emptyobj "open(os.path.join(d, 'run.json'), 'w').write('{}')"
judge emptyobj run.json
json_set version "r['format_version'] = 999"
judge version run.json

# A cell out of its column's range: a traceback (1e308 overflowed the
# statistics) or accepted before.
set_cell() { # name file column value
	damage "$1" "import csv; p = os.path.join(d, '$2'); rows = list(csv.reader(open(p))); rows[1][rows[0].index('$3')] = '$4'; csv.writer(open(p, 'w'), lineterminator='\\n').writerows(rows)"
}
set_cell huge latency.csv p50_ns 1e308
judge huge latency.csv
set_cell negthreads calls.csv threads -3
judge negthreads calls.csv
set_cell status calls.csv status bogus
judge status calls.csv
set_cell negci calls.csv ns_per_call_ci95 -1
judge negci calls.csv
set_cell repeats calls.csv repeats 0
judge repeats calls.csv
damage csvdir "os.unlink(os.path.join(d, 'calls.csv')); os.mkdir(os.path.join(d, 'calls.csv'))"
judge csvdir calls.csv

# An empty --output is a usage error, not the default file or stdout.
cp "$TMP/good/report.md" "$TMP/report.before"
"$MBBENCH" report "$TMP/good" --output '' >"$TMP/eo.out" 2>"$TMP/eo.e1"
r1=$?
"$MBBENCH" compare "$TMP/good" "$TMP/good" --output '' >>"$TMP/eo.out" 2>"$TMP/eo.e2"
r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ "$(cat "$TMP/eo.e1" "$TMP/eo.e2" | wc -l)" -eq 2 ] &&
	[ ! -s "$TMP/eo.out" ] && cmp -s "$TMP/good/report.md" "$TMP/report.before"
ok $? "--output '': report and compare exit $r1 and $r2, one line each, nothing written ($(cat "$TMP/eo.e1"))"

"$PY" - "$MBBENCH" "$TMP" <<'PY'
import os, random, shutil, subprocess, sys
mb, tmp = sys.argv[1], sys.argv[2]
rng = random.Random(20261203)
bad = []
files = ["calls.csv", "latency.csv", "latency-histogram.csv", "run.json"]
for k in range(25):
    d = os.path.join(tmp, f"rand{k}")
    shutil.copytree(os.path.join(tmp, "good"), d)
    f = os.path.join(d, rng.choice(files))
    data = bytearray(open(f, "rb").read())
    how = rng.choice(("flip", "cut", "line", "cell"))
    if how == "flip":
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif how == "cut":
        data = data[:rng.randrange(len(data))]
    elif how == "line":
        lines = data.split(b"\n")
        del lines[rng.randrange(len(lines))]
        data = b"\n".join(lines)
    else:
        lines = data.split(b"\n")
        i = rng.randrange(len(lines))
        lines[i] = lines[i].replace(b",", b"", 1)
        data = b"\n".join(lines)
    open(f, "wb").write(bytes(data))
    for args in (["report", d, "--output", d + ".md"], ["compare", os.path.join(tmp, "good"), d]):
        r = subprocess.run([mb] + args, capture_output=True, text=True, errors="replace")
        if r.returncode not in (0, 2) or "Traceback" in r.stderr or (r.returncode == 2 and r.stderr.count("\n") != 1):
            bad.append(f"{how} {os.path.basename(f)} {args[0]}: rc {r.returncode} {r.stderr.strip()[-120:]!r}")
print("\n".join("# " + b for b in bad))
sys.exit(1 if bad else 0)
PY
ok $? "25 random damages: report and compare exit 0 or 2, one line, never a traceback"
"$MBBENCH" compare "$TMP/good" "$TMP/good" >/dev/null && "$MBBENCH" report "$TMP/good" >/dev/null
ok $? "the undamaged folder still reads"
done_testing
