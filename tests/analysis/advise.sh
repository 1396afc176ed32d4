#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench advise on synthetic results folders whose costs are known: the
# ranking, the break-even write rate (and the calls.csv row at the thread
# count nearest readers + 1), schemes whose intervals overlap marked as a
# tie, --validate's ratios, the csv and json formats, and bad input (one
# line, exit 2, nothing written).
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 14

# Folders with the schema's columns (results/schema.json). Costs, in ns of
# thread time: mb reads 10 and writes 1000 (its writer's time in rcu.csv: a
# fence is no process-wide barrier); membarrier-private-expedited reads 1,
# its barrier 20000 ns at 2 threads and 40000 at 3; signal-spin reads 1, its
# barrier 50000 ns at 2 threads; qsbr reads 1 and writes 10000. CIs 0.1%.
"$PY" - "$TMP" "${top_srcdir:-.}/results/schema.json" <<'PY'
import csv, json, os, sys
tmp, schema = sys.argv[1], sys.argv[2]
cols = {t["name"]: [c["name"] for c in t["columns"]] for t in json.load(open(schema))["tables"]}

def folder(name, rcu, calls):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "points": [],
               "info": {"host": {"hostname": "h"}}}, open(os.path.join(d, "run.json"), "w"))
    for table, rows in (("rcu", rcu), ("calls", calls)):
        if rows is None:
            continue
        with open(os.path.join(d, table + ".csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols[table], restval="")
            w.writeheader()
            w.writerows(rows)

def rcu(scheme, read_ns, write_ns, family="ours", writes=None, readers=1):
    r, w = readers * 1e9 / read_ns, writes or 1e9 / write_ns
    return dict(scheme=scheme, family=family, readers=readers, writers=1, placement="compact", cpus="0;1",
                oversubscribed=0, cs_ns=0, writer_delay_ns=0, repeats=5, duration_s=0.5, reads=r / 2,
                writes=w / 2, reads_per_s=r, reads_per_s_ci95=r / 1000, writes_per_s=w,
                writes_per_s_ci95=w / 1000, violations=0, peak_quarantine=1, status="ok")

def calls(mech, threads, ns, ci=None):
    return dict(mechanism=mech, threads=threads, behaviour="spin", scope="same-process", placement="compact",
                cpus="0", oversubscribed=0, repeats=5, calls_per_repeat=100, ns_per_call=ns,
                ns_per_call_stddev=ns / 100, ns_per_call_ci95=ns / 1000 if ci is None else ci,
                calls_per_s=1e9 / ns, calls_per_s_ci95=1, cv=0.01, status="ok")

skipped = dict(scheme="seed-v5-expedited", family="ours", readers=1, writers=1, status="skipped",
               skip_reason="needs the patched kernel (kernel-patch/)")
base = [rcu("mb", 10, 1000), rcu("membarrier-private-expedited", 1, 0, writes=40000),
        rcu("signal-spin", 1, 50000), rcu("qsbr", 1, 10000), skipped]
barriers = [calls("membarrier-private-expedited", 1, 1000), calls("membarrier-private-expedited", 2, 20000),
            calls("membarrier-private-expedited", 3, 40000), calls("signal", 2, 50000)]
folder("a", base, barriers)
# signal-spin's barrier as costly as membarrier's, with a wide CI: a tie.
folder("tie", base, barriers[:3] + [calls("signal", 2, 20000, ci=15000)])
folder("norcu", None, barriers)
PY

adv() { "$MBBENCH" advise "$@"; }

# 1e6 reads/s and 10 writes/s over 1 reader: qsbr 1.1 ms/s, membarrier
# 1.2, signal-spin 1.5, mb 10.01.
adv --readers 1 --reads-per-s 1e6 --writes-per-s 10 --results "$TMP/a" --format csv >"$TMP/rank.csv" 2>"$TMP/e"
ok $? "advise on a folder: exit 0"
order=$(csv_cols "$TMP/rank.csv" scheme | tr '\n' ' ')
[ "$order" = "qsbr membarrier-private-expedited signal-spin mb " ]
ok $? "ranked by predicted cost (got: $order)"
csv_cols "$TMP/rank.csv" scheme rank cost_ms_per_s tie write_source |
	awk -F'\t' '$1 == "membarrier-private-expedited" && $2 == 2 && $3 + 0 > 1.19 && $3 + 0 < 1.21 &&
		$4 == "" && $5 == "calls T=2" { f = 1 } END { exit !f }'
ok $? "membarrier's cost is 1 ns x 1e6 + 20 us x 10, its barrier from calls.csv at 2 threads, no tie"
! csv_cols "$TMP/rank.csv" scheme | grep -q seed-v5
ok $? "a skipped scheme is not ranked"

# Break-even between membarrier (read-optimized) and mb (write-optimized):
# R (10 - 1) / (20000 - 1000) = 473.7 writes/s at 1e6 reads/s; at 2
# readers calls.csv's row at 3 threads: 9e6 / 39000 = 230.8.
adv --readers 1 --reads-per-s 1e6 --writes-per-s 10 --results "$TMP/a" --format json >"$TMP/be.json"
"$PY" -c 'import json, sys
b = json.load(open(sys.argv[1]))["break_even"]
assert b["read_optimized"] == "membarrier-private-expedited" and b["write_optimized"] == "mb", b
assert abs(b["writes_per_s"] - 9e6 / 19000) < 0.01, b
assert b["low"] < b["writes_per_s"] < b["high"] and b["high"] - b["low"] < 5, b
assert abs(b["share"] - b["writes_per_s"] / (1e6 + b["writes_per_s"])) < 1e-12, b' "$TMP/be.json"
ok $? "break-even write rate 473.7/s with its interval and write share (json)"
adv --readers 2 --reads-per-s 1e6 --writes-per-s 10 --results "$TMP/a" --format json |
	"$PY" -c 'import json, sys
b = json.load(sys.stdin)["break_even"]
assert abs(b["writes_per_s"] - 9e6 / 39000) < 0.01, b'
ok $? "at 2 readers the barrier's cost is calls.csv's at 3 threads"
adv --readers 1 --reads-per-s 1e6 --writes-per-s 10 --results "$TMP/a" >"$TMP/human"
grep -q '^Break-even: above 474 writes/s' "$TMP/human" && grep -q 'mb (fence in every read)' "$TMP/human"
ok $? "the human table names the break-even and the two schemes"

# Overlapping intervals: signal-spin ties with membarrier (same rank).
adv --readers 1 --reads-per-s 1e6 --writes-per-s 10 --results "$TMP/tie" --format csv >"$TMP/tie.csv"
csv_cols "$TMP/tie.csv" scheme rank tie | awk -F'\t' '
	$1 == "membarrier-private-expedited" { mr = $2; mt = $3 }
	$1 == "signal-spin" { sr = $2; st = $3 }
	$1 == "mb" { b = $2 " " $3 }
	END { exit !(mr == 2 && sr == 2 && mt ~ /signal-spin/ && st ~ /membarrier/ && b == "4 ") }'
ok $? "overlapping intervals: tie, same rank; mb, far apart, no tie"
adv --readers 1 --reads-per-s 1e6 --writes-per-s 10 --results "$TMP/tie" | grep -E '^ +[0-9]+ +signal-spin ' | grep -qw tie
ok $? "the human table marks the tie"

# --validate: membarrier's rcu row wrote 40000/s, its barrier says 50000/s.
adv --validate --results "$TMP/a" --format csv >"$TMP/val.csv"
csv_cols "$TMP/val.csv" scheme reads_ratio writes_ratio | awk -F'\t' '
	$1 == "membarrier-private-expedited" && $2 == 1 && $3 == 1.25 { m = 1 }
	$1 == "mb" && $3 == 1 { b = 1 } END { exit !(m && b) }'
ok $? "--validate: predicted/measured per scheme (membarrier writes 1.25)"

# Bad input: one line, exit 2, nothing on stdout, no --output file.
bad=0
for args in "--results $TMP/none" "--results $TMP/norcu" "--readers 0" "--readers -3" "--readers 10000000" \
	"--reads-per-s 0" "--writes-per-s -5" "--reads-per-s 1e13" "--readers two" "--frobnicate" \
	"--format xml"; do
	case $args in --results*) set -- $args;; *) set -- --results "$TMP/a" $args;; esac
	for a in --readers --reads-per-s --writes-per-s; do
		case " $* " in *" $a "*) ;; *) set -- "$@" "$a" 1;; esac
	done
	"$MBBENCH" advise "$@" --output "$TMP/out" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/e")" -ne 1 ] || [ -s "$TMP/o" ] || [ -e "$TMP/out" ]; then
		diag "advise $*: exit $rc, stderr: $(cat "$TMP/e")"
		bad=1
	fi
done
[ $bad -eq 0 ]
ok $? "bad counts, folders and options: one line, exit 2, nothing written"
"$MBBENCH" advise --readers 1 --reads-per-s 1 --writes-per-s 1 --results "$TMP/norcu" 2>&1 | grep -q 'has no rcu.csv'
ok $? "a folder without rcu.csv is named as such"
"$MBBENCH" advise --validate 2>"$TMP/e"
[ $? -eq 2 ] && grep -q -- '--validate needs --results' "$TMP/e"
ok $? "--validate without --results names the fix"
"$MBBENCH" advise --results "$TMP/a" 2>"$TMP/e"
[ $? -eq 2 ] && grep -q -- 'give --readers, --reads-per-s, --writes-per-s' "$TMP/e"
ok $? "no workload: names the three options"

done_testing
