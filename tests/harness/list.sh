#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench list: CSV and JSON carry every mechanism once with its membarrier
# command and one 0/1 column per flag, after the four columns scripts read;
# the human list keeps its lines; rcu schemes and litmus pairings list the
# same way; bad input is one line and exit 2. The consumers choose by those
# flags: distance's default mechanisms are the process-wide ones without a
# grace period, litmus pairs every mechanism that is not fence-like. The
# targeted rseq mechanism refuses when glibc does not register rseq.
. "${top_srcdir:-.}/tests/lib.sh"
need_python
plan 11

"$MBBENCH" list --format csv >"$TMP/list.csv" &&
	"$MBBENCH" list --format json >"$TMP/list.json" &&
	"$MBBENCH" list >"$TMP/list.txt"
ok $? "list --format csv, --format json and human run"

# The names the CLI accepts, from the error that lists them.
"$MBBENCH" calls --mechanism no-such-mechanism 2>"$TMP/names" >/dev/null
"$MBBENCH" litmus --pairing no-such-pairing 2>"$TMP/pairings" >/dev/null

"$PY" - "$TMP" <<'PY'
import csv, json, re, sys
d = sys.argv[1]
FLAGS = ["process_wide", "ipi", "grace_period", "register", "patched_kernel", "fence_like"]
with open(f"{d}/list.csv", newline="") as f:
    rd = csv.DictReader(f)
    rows, head = list(rd), rd.fieldnames
assert head[:4] == ["mechanism", "available", "reason", "summary"], head
assert head[4:] == ["membarrier_cmd", "doctor"] + FLAGS, head
names = [r["mechanism"] for r in rows]
assert len(names) == len(set(names)), names
valid = re.search(r"\(valid: (.*), all\)", open(f"{d}/names").read()).group(1).split(", ")
assert names == valid, (names, valid)
for r in rows:
    assert all(r[c] in ("0", "1") for c in FLAGS), r
    assert r["available"] in ("0", "1") and (r["available"] == "1") == (r["reason"] == ""), r
    assert r["summary"], r
    assert r["membarrier_cmd"] == "" or r["membarrier_cmd"].startswith("MEMBARRIER_CMD_"), r
    assert r["doctor"] == "", r  # only with --doctor or --doctor-csv
    assert not (r["fence_like"] == "1" and r["process_wide"] == "1"), r
by = {r["mechanism"]: r for r in rows}
assert by["membarrier-private-expedited"]["membarrier_cmd"] == "MEMBARRIER_CMD_PRIVATE_EXPEDITED"
assert by["null"]["fence_like"] == "1" and by["null"]["membarrier_cmd"] == ""
assert by["membarrier-global"]["grace_period"] == "1"
rc = by["membarrier-private-expedited-rseq-cpu"]
assert rc["membarrier_cmd"] == "MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ" and rc["process_wide"] == "0", rc
PY
ok $? "CSV: mechanism, available, reason, summary first, then membarrier_cmd and the six 0/1 flags; every mechanism once"

"$PY" - "$TMP" <<'PY'
import csv, json, sys
d = sys.argv[1]
doc = json.load(open(f"{d}/list.json"))
assert list(doc) == ["mechanisms"], list(doc)
with open(f"{d}/list.csv", newline="") as f:
    rows = list(csv.DictReader(f))
assert len(doc["mechanisms"]) == len(rows)
for j, c in zip(doc["mechanisms"], rows):
    assert list(j) == list(c), (list(j), list(c))
    for k, v in c.items():
        want = None if v == "" else int(v) if k not in ("mechanism", "reason", "summary", "membarrier_cmd") else v
        assert j[k] == want, (k, j[k], v)
PY
ok $? "JSON: the CSV's rows under \"mechanisms\", flags as numbers"

"$PY" - "$TMP" <<'PY'
import csv, sys
d = sys.argv[1]
names = [r["mechanism"] for r in csv.DictReader(open(f"{d}/list.csv", newline=""))]
lines = open(f"{d}/list.txt").read().splitlines()
firsts = [l.split()[0] for l in lines if not l.startswith(" ")]
assert firsts == names, (firsts, names)
for i, l in enumerate(lines):
    if not l.startswith(" "):
        assert l.split()[1] in ("available", "unavailable"), l
        assert lines[i + 1].startswith("    ") and not lines[i + 1].startswith("    reason:"), lines[i + 1]
assert sum(l.startswith("    flags: ") for l in lines) == len(names)
PY
ok $? "human: each mechanism's name line and summary line as before, then its flags"

"$MBBENCH" list --what rcu-schemes --format csv >"$TMP/rcu.csv" &&
	"$MBBENCH" list --what rcu-schemes --format json >"$TMP/rcu.json" &&
	"$MBBENCH" list --what litmus-pairings --format csv >"$TMP/pairs.csv" &&
	"$MBBENCH" list --what litmus-pairings --format json >"$TMP/pairs.json" &&
	"$MBBENCH" list --what litmus-pairings >"$TMP/pairs.txt" &&
	"$PY" - "$TMP" <<'PY'
import csv, json, re, sys
d = sys.argv[1]
rcu = list(csv.DictReader(open(f"{d}/rcu.csv", newline="")))
assert [r["scheme"] for r in rcu] == [r["scheme"] for r in json.load(open(f"{d}/rcu.json"))["rcu-schemes"]]
assert len({r["scheme"] for r in rcu}) == len(rcu) and "mb" in {r["scheme"] for r in rcu}, rcu
assert all(r["available"] in ("0", "1") and r["family"] for r in rcu), rcu
mechs = list(csv.DictReader(open(f"{d}/list.csv", newline="")))
pairs = list(csv.DictReader(open(f"{d}/pairs.csv", newline="")))
assert [p["pairing"] for p in pairs] == [p["pairing"] for p in json.load(open(f"{d}/pairs.json"))["litmus-pairings"]]
# litmus pairs the controls, then every mechanism that is not fence-like.
want = ["none", "fence-one-side", "fence-both"] + [m["mechanism"] for m in mechs if m["fence_like"] == "0"]
assert [p["pairing"] for p in pairs] == want, ([p["pairing"] for p in pairs], want)
valid = re.search(r"\(valid: (.*), all\)", open(f"{d}/pairings").read()).group(1).split(", ")
assert valid == want, (valid, want)
for p in pairs[3:]:
    assert p["a_side"] == p["pairing"] and p["b_side"] == "compiler" and p["expect"] == "forbidden", p
txt = [l.split()[0] for l in open(f"{d}/pairs.txt") if not l.startswith(" ")]
assert txt == want, txt
PY
ok $? "--what rcu-schemes and litmus-pairings in CSV, JSON and human; litmus pairs every mechanism not fence-like"

# distance's default mechanisms: the process-wide ones without a grace period.
"$MBBENCH" distance --level smt --duration 1ms --repeat 1 --json - >"$TMP/dist.json" 2>/dev/null &&
	"$PY" - "$TMP" <<'PY'
import csv, json, sys
d = sys.argv[1]
got = json.load(open(f"{d}/dist.json"))["params"]["mechanisms"]
want = [r["mechanism"] for r in csv.DictReader(open(f"{d}/list.csv", newline=""))
        if r["process_wide"] == "1" and r["grace_period"] == "0"]
assert got == want, (got, want)
PY
ok $? "distance's default mechanisms are list's process_wide 1, grace_period 0"

bad=
for args in "--format xml" "--what everything" "--what" "--format csv extra" "--flags"; do
	# shellcheck disable=SC2086
	"$MBBENCH" list $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] || bad="$bad [$args: $rc]"
done
[ -z "$bad" ]
ok $? "bad --format, --what or argument: one line, exit 2, no output (bad:${bad:- none})"
"$MBBENCH" list --format xml 2>&1 | grep -q "use human, csv or json"
ok $? "a bad --format names the three formats"

# The targeted rseq mechanism needs the thread registered with rseq.
rseq_cpu=$("$PY" - "$TMP/list.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if r["mechanism"] == "membarrier-private-expedited-rseq-cpu":
        print("ok" if r["available"] == "1" else r["reason"])
PY
)
if [ "$rseq_cpu" = ok ]; then
	GLIBC_TUNABLES=glibc.pthread.rseq=0 "$MBBENCH" list --format csv >"$TMP/norseq.csv"
	"$PY" - "$TMP/norseq.csv" <<'PY'
import csv, sys
r = {r["mechanism"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}["membarrier-private-expedited-rseq-cpu"]
assert r["available"] == "0" and "rseq" in r["reason"], r
PY
	ok $? "rseq-cpu with glibc.pthread.rseq=0: unavailable, the reason names rseq"
else
	skip "membarrier-private-expedited-rseq-cpu is not available here: $rseq_cpu"
fi
# --doctor-csv: a doctor.csv's affected probes mark the mechanisms whose
# command they concern (by command, not by name); bad files are exit 2.
cat >"$TMP/doctor.csv" <<'EOF'
probe,question,result,reason,measure,measure_unit,evidence,consequence,workaround,fix,reference
lazy-mm,"Does it, with commas?",affected,"skipped CPU 0, lazily",0,IPIs/barrier,"a ""quoted"" word",c,w,f,r
expedited-serialization,q,cannot tell,needs 4 CPUs,,,e,c,w,f,r
register-cost,q,info,x,0.1,ms,e,c,w,f,r
EOF
"$MBBENCH" list --doctor-csv "$TMP/doctor.csv" --format csv >"$TMP/dl.csv" &&
	"$MBBENCH" list --doctor-csv "$TMP/doctor.csv" >"$TMP/dl.txt" &&
	"$PY" - "$TMP/dl.csv" "$TMP/dl.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
marked = {r["mechanism"]: r["doctor"] for r in rows if r["doctor"]}
want = {r["mechanism"]: "lazy-mm" for r in rows
        if r["membarrier_cmd"] == "MEMBARRIER_CMD_GLOBAL_EXPEDITED"}
assert want and marked == want, (marked, want)
human = open(sys.argv[2]).read()
for m in want:
    if next(r for r in rows if r["mechanism"] == m)["available"] == "1":
        line = human.split(m + " ", 1)[1].split("\n")[0]
        assert line.strip() == "available, but see mbbench doctor: lazy-mm", line
PY
ok $? "--doctor-csv: lazy-mm affected marks the GLOBAL_EXPEDITED mechanisms only; cannot tell marks nothing"
bad=
printf 'mechanism,available\n' >"$TMP/notdoc.csv"
printf 'probe,result\nno-such-probe,affected\n' >"$TMP/unknown.csv"
for args in "--doctor-csv $TMP/none.csv" "--doctor-csv $TMP/notdoc.csv" "--doctor-csv $TMP/unknown.csv" \
	"--doctor --doctor-csv $TMP/doctor.csv" "--doctor-csv $TMP/doctor.csv --what rcu-schemes"; do
	# shellcheck disable=SC2086
	"$MBBENCH" list $args >"$TMP/o" 2>"$TMP/e"
	rc=$?
	{ [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && [ ! -s "$TMP/o" ]; } || bad="$bad [$args: rc $rc]"
done
[ -z "$bad" ]
ok $? "list --doctor-csv with a missing, foreign or unknown-probe file, or with --doctor or --what: exit 2, one line (bad:${bad:- none})"
done_testing
