#!/bin/sh
# SPDX-License-Identifier: MIT
# Two header names swapped inside one table (every column's name present,
# the values under each other's names) are refused before anything is
# drawn or written: each text column that declares its values in the schema
# (anatomy-phases' phase and target_cpu, register's behaviour, ...) is
# checked, so plot and report exit 2 with one line naming the file and the
# column, and plots/ and report.md are not made. Before, plot handed the
# table to gnuplot and exited 1 ("anatomy.gp: no bar").
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "${top_srcdir:-.}" && pwd)

need_python
plan 5
cd "$TMP" || exit 1

"$PY" - "$TMP/f" "$src" <<'PY'
import json, os, sys
d, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables
t = Tables(src)
os.makedirs(d)
host = {"hostname": "h", "kernel_release": "6.18.0", "machine": "x86_64", "cpu_model": "AMD EPYC",
        "cpus_online": "2", "virtualization": "none detected (bare metal)"}
json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False,
           "points_planned": 2, "points_done": 2, "points_failed": [], "info": {"host": host},
           "points": [{"experiment": "anatomy", "end": "2026-12-03T00:01:00Z"}]}, open(os.path.join(d, "run.json"), "w"))
PE = "membarrier-private-expedited"
t.write(d, "anatomy", [dict(mechanism=PE, threads=2, cpus="0;1", phases_from="csd", barriers=2000, complete=1000,
                            untraced_ns=11000, untraced_ns_ci95=500, traced_ns=18000, traced_ns_ci95=700)])
t.write(d, "anatomy-phases", [dict(mechanism=PE, threads=2, phase=p, target_cpu=c, samples=1000, p50_ns=v,
                                   p90_ns=v, p99_ns=v, mean_ns=v, batches=5, p50_ns_ci95=v / 20)
                              for p, c, v in (("setup", "all", 2000), ("delivery", "all", 14000),
                                              ("delivery", "1", 14000), ("total", "all", 18000))])
t.write(d, "register", [dict(mechanism=PE, register_command="REGISTER_PRIVATE_EXPEDITED", other_threads=k,
                             behaviour="spin", repeats=10, register_ns=v, register_ns_ci95=v / 10,
                             steady_barrier_ns=1300) for k, v in ((0, 1500), (1, 100000))])
PY
ok $? "a synthetic folder with anatomy, anatomy-phases and register, from the schema"

swap() { # folder table a b: the header names a and b exchanged
	"$PY" - "$1/$2.csv" "$3" "$4" <<'PY'
import sys
p, a, b = sys.argv[1:]
head, rest = open(p).read().split("\n", 1)
h = head.split(",")
i, j = h.index(a), h.index(b)
h[i], h[j] = h[j], h[i]
open(p, "w").write(",".join(h) + "\n" + rest)
PY
}
refused() { # folder file column: exit 2, one line naming the file and the column, nothing made
	[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "$1/$2:[0-9]*: $3 is " err
}

"$MBBENCH" report f --output f.md >/dev/null 2>err
ok $? "the folder as written is read ($(head -n 1 err))"

bad=
for case in anatomy-phases:phase:target_cpu register:behaviour:mechanism register:behaviour:register_command; do
	IFS=: read -r table a b <<CASE
$case
CASE
	rm -rf g && cp -a f g && swap g "$table" "$a" "$b"
	"$MBBENCH" report g --output g.md >/dev/null 2>err
	rc=$?
	{ refused g "$table.csv" "\($a\|$b\)" && [ ! -e g.md ]; } || bad="$bad [report $case: rc $rc $(head -c 160 err)]"
	if command -v gnuplot >/dev/null 2>&1; then
		rm -rf g/plots
		"$MBBENCH" plot g >/dev/null 2>err.all
		rc=$?
		grep -v '^#' err.all >err
		{ refused g "$table.csv" "\($a\|$b\)" && [ ! -e g/plots ]; } || bad="$bad [plot $case: rc $rc $(head -c 160 err)]"
	fi
done
[ -z "$bad" ]
ok $? "swapped text columns: report and plot exit 2 naming the file and the column, nothing made (${bad:-none wrong})"

rm -rf g && cp -a f g && swap g anatomy-phases phase target_cpu
"$MBBENCH" report g --output g.md >/dev/null 2>err
grep -q "g/anatomy-phases.csv:2: target_cpu is 'setup', not one of all, other, a CPU number" err
ok $? "the line says which value is not the column's ($(cat err))"

# The schema declares the values (mbbench writes none outside them:
# table_set_str refuses one at the source).
"$PY" - "$src" <<'PY'
import json, os, sys
tables = json.load(open(os.path.join(sys.argv[1], "results", "schema.json")))["tables"]
declared = {(t["name"], c["name"]): c["values"] for t in tables for c in t["columns"] if c.get("values")}
assert "to-ipi-contended" in declared[("anatomy-phases", "phase")], declared
assert declared[("anatomy-phases", "target_cpu")] == ["all", "other", "N"], declared
assert declared[("register", "behaviour")] == ["spin", "sleep"], declared
assert all(c["type"] == "text" for t in tables for c in t["columns"] if c.get("values"))
PY
ok $? "the schema declares the values of the text key columns (schema.json)"
done_testing
