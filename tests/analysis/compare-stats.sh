#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench compare on synthetic results folders with known shifts: no more
# false alarms than the nominal level on 200 unchanged points, a 5% shift
# at CV 1% found on every shifted point and nowhere else, --fail-on-regression,
# rows keyed by their full identity (disturb rounds), rows in one run only,
# host differences, the csv and json formats, and replicate runs (--vs)
# on a host whose runs differ from each other more than their CIs say.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 17

# nrows FILE EXPERIMENT POINT FIGURE A B SIG VERDICT: how many rows of
# compare's CSV match, read by column (a point may hold commas): POINT is
# an ERE, every other argument the whole cell, "" any cell.
nrows() {
	csv_cols "$1" experiment point figure a b sig verdict |
		awk -F'\t' -v e="$2" -v p="$3" -v f="$4" -v a="$5" -v b="$6" -v s="$7" -v v="$8" '
			(e == "" || $1 == e) && $2 ~ p && (f == "" || $3 == f) && (a == "" || $4 == a) &&
				(b == "" || $5 == b) && (s == "" || $6 == s) && (v == "" || $7 == v) { n++ }
			END { print n + 0 }'
}
# has_row FILE EXPERIMENT POINT FIGURE A B SIG VERDICT: 0 when a row matches.
has_row() { [ "$(nrows "$@")" -gt 0 ]; }

"$PY" - "$TMP" <<'PY'
import json, math, os, random, sys
tmp = sys.argv[1]
rng = random.Random(7)
T975 = {9: 2.262}
calls_cols = ("mechanism,threads,behaviour,scope,placement,cpus,oversubscribed,repeats,calls_per_repeat,"
              "ns_per_call,ns_per_call_stddev,ns_per_call_ci95,calls_per_s,calls_per_s_ci95,cv,status,skip_reason")
dist_cols = ("mechanism,round,role,cpu,phase,victim,policy,rate_per_s,elapsed_s,barriers,ipi_source,ipis,"
             "ipis_per_barrier,mb_ipis,mb_ipis_per_barrier,tlb_shootdowns,tlb_per_barrier,idle_entries,signals,"
             "oncpu_fraction,samples,p50_ns,p99_ns,p999_ns,max_ns,status,skip_reason")

def folder(name, shift=lambda i: 1.0, kernel="6.1.0", cmdline="quiet", extra=0, ipis=(1.0, 0.0), run_sd=0.0):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    host = {"hostname": "h", "kernel_release": kernel, "cmdline": cmdline, "virtualization": "none"}
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False,
               "points_planned": 1, "points_done": 1, "points_failed": [],
               "info": {"host": host}, "points": [{"version": "0.1.0", "end": "2026-12-03T00:00:00Z"}]},
              open(os.path.join(d, "run.json"), "w"))
    rows = [calls_cols]
    for i in range(200 + extra):
        level = 1000.0 * shift(i) * (1 + run_sd * rng.gauss(0, 1))    # this run's own level
        xs = [level * (1 + 0.01 * rng.gauss(0, 1)) for _ in range(10)]
        m = sum(xs) / 10
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / 9)
        ci = T975[9] * sd / math.sqrt(10)
        rows.append(f"m{i},1,spin,same-process,compact,0,0,10,1000,{m:.4f},{sd:.4f},{ci:.4f},"
                    f"{1e9 / m:.1f},0,{sd / m:.4f},ok,")
    open(os.path.join(d, "calls.csv"), "w").write("\n".join(rows) + "\n")
    rows = [dist_cols]
    for rnd, v in enumerate(ipis):
        rows.append(f"x,{rnd},self-spin,1,storm,mbbench,SCHED_OTHER,1000,1,1000,tracepoint,0,{v},0,0,0,0,,,1,0,"
                    f"100,200,300,400,ok,")
    open(os.path.join(d, "disturb.csv"), "w").write("\n".join(rows) + "\n")

folder("a")
folder("null")
folder("shift", shift=lambda i: 1.05 if i < 50 else 1.0)
folder("host", kernel="6.12.0", cmdline="quiet rcu_expedited=1", extra=3, ipis=(1.0, 0.9))
# Runs whose levels differ by 10% from one run to the next (CV 1% inside).
for k in range(5):
    folder(f"ra{k}", run_sd=0.10)
    folder(f"rb{k}", run_sd=0.10)
    folder(f"rs{k}", run_sd=0.10, shift=lambda i: 1.5 if i < 50 else 1.0)
PY
ok $? "synthetic folders written"

"$MBBENCH" compare "$TMP/a" "$TMP/null" --format csv --correction holm >"$TMP/null.csv" 2>"$TMP/e"
n=$(nrows "$TMP/null.csv" "" "" ns_per_call "" "" "*" "")
[ "$n" -le 10 ]
ok $? "200 unchanged points (CV 1%, 10 repeats), Holm: $n flagged (nominal 5%: at most 10)"
"$MBBENCH" compare "$TMP/a" "$TMP/null" --format csv >"$TMP/nullbh.csv"
n=$(nrows "$TMP/nullbh.csv" "" "" ns_per_call "" "" "*" "")
[ "$n" -le 10 ]
ok $? "the same with the default, Benjamini-Hochberg: $n flagged"

"$MBBENCH" compare "$TMP/a" "$TMP/shift" --format csv >"$TMP/shift.csv"
hit=$(nrows "$TMP/shift.csv" calls '^mechanism=m([0-9]|[1-4][0-9]) ' "" "" "" "*" worse)
false=$(nrows "$TMP/shift.csv" calls '^mechanism=m([5-9][0-9]|1[0-9][0-9]) ' "" "" "" "*" "")
[ "$hit" -eq 50 ] && [ "$false" -eq 0 ]
ok $? "a 5% shift at CV 1% on 50 of 200 points: $hit of 50 found worse, $false false alarms"

"$MBBENCH" compare "$TMP/a" "$TMP/shift" --fail-on-regression 3 >/dev/null 2>"$TMP/e1"; r1=$?
"$MBBENCH" compare "$TMP/a" "$TMP/null" --fail-on-regression 3 >/dev/null 2>"$TMP/e2"; r2=$?
"$MBBENCH" compare "$TMP/a" "$TMP/shift" --fail-on-regression 10 >/dev/null 2>"$TMP/e3"; r3=$?
[ $r1 -eq 1 ] && [ $r2 -eq 0 ] && [ $r3 -eq 0 ] && [ "$(wc -l <"$TMP/e1")" -eq 1 ]
ok $? "--fail-on-regression 3: exit $r1 for the 5% shift, $r2 for the unchanged pair; 10: exit $r3 ($(cat "$TMP/e1"))"

"$MBBENCH" compare "$TMP/a" "$TMP/host" >"$TMP/host.md"
grep -q 'round=0 role=self-spin cpu=1 phase=storm | ipis_per_barrier | 1 | 1 | +0.000 | - | ~' "$TMP/host.md" &&
	grep -q 'round=1 role=self-spin cpu=1 phase=storm | ipis_per_barrier | 0 | 0.9 | +0.900 | - | \* | worse' "$TMP/host.md"
ok $? "disturb rows keyed with their round; IPIs compared by difference"
[ "$(grep -c '^| B | calls | mechanism=m20[0-2] ' "$TMP/host.md")" -eq 3 ]
ok $? "points in one run only are listed"
grep -q 'WARNING: the two runs differ in 2 things' "$TMP/host.md" && grep -q '| kernel_release | 6.1.0 | 6.12.0 |' "$TMP/host.md"
ok $? "the header lists the host differences and warns when more than one thing differs"
"$MBBENCH" compare "$TMP/a" "$TMP/shift" "$TMP/null" --format json >"$TMP/c.json" &&
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparisons"]
assert [x["b"].rsplit("/", 1)[1] for x in c] == ["shift", "null"]
assert sum(p["verdict"] == "worse" for p in c[0]["points"]) == 50
' "$TMP/c.json"
ok $? "several runs against the first, as JSON"

# Replicates: one run against one flags what the runs' own drift moved; the
# run as the unit (--vs) does not, and still finds a 50% change.
"$MBBENCH" compare "$TMP/ra0" "$TMP/rb0" --format csv >"$TMP/r1.csv"
one=$(nrows "$TMP/r1.csv" "" "" ns_per_call "" "" "*" "")
"$MBBENCH" compare "$TMP"/ra0 "$TMP"/ra1 "$TMP"/ra2 "$TMP"/ra3 "$TMP"/ra4 --vs \
	"$TMP"/rb0 "$TMP"/rb1 "$TMP"/rb2 "$TMP"/rb3 "$TMP"/rb4 --format csv >"$TMP/r5.csv" 2>"$TMP/r5.err"
five=$(nrows "$TMP/r5.csv" "" "" ns_per_call "" "" "*" "")
[ "$one" -gt 50 ] && [ "$five" -le 10 ] && [ ! -s "$TMP/r5.err" ]
ok $? "runs 10% apart: one against one flags $one of 200 unchanged points; 5 against 5 replicates flag $five (at most 10)"
"$MBBENCH" compare "$TMP"/ra0 "$TMP"/ra1 "$TMP"/ra2 "$TMP"/ra3 "$TMP"/ra4 --vs \
	"$TMP"/rs0 "$TMP"/rs1 "$TMP"/rs2 "$TMP"/rs3 "$TMP"/rs4 --correction bh --format csv >"$TMP/rs.csv"
hit=$(nrows "$TMP/rs.csv" calls '^mechanism=m([0-9]|[1-4][0-9]) ' "" "" "" "*" worse)
false=$(nrows "$TMP/rs.csv" calls '^mechanism=m([5-9][0-9]|1[0-9][0-9]) ' "" "" "" "*" "")
[ "$hit" -ge 45 ] && [ "$false" -le 10 ]
ok $? "a 50% change on 50 points, 5 against 5 replicates: $hit of 50 found worse, $false false alarms"
"$MBBENCH" compare "$TMP/ra0" --vs "$TMP/rb0" "$TMP/rb1" >/dev/null 2>&1; r1=$?
"$MBBENCH" compare --vs "$TMP/rb0" "$TMP/rb1" >/dev/null 2>"$TMP/vs.err"; r2=$?
"$MBBENCH" compare "$TMP/ra0" "$TMP/ra1" --vs "$TMP/rb0" --vs "$TMP/rb1" >/dev/null 2>&1; r3=$?
[ $r1 -eq 0 ] && [ $r2 -eq 2 ] && [ $r3 -eq 2 ] && [ "$(wc -l <"$TMP/vs.err")" -eq 1 ]
ok $? "--vs: one run on a side works ($r1); none on a side ($r2) or --vs twice ($r3) is exit 2: $(cat "$TMP/vs.err")"

# Litmus and percentiles: a control's rate (repeats and a CI) that moved is
# "changed", never worse; a barrier pairing that failed is worse; slices of
# a percentile that all fell in one histogram bucket (CI 0) are not taken
# as certain: 24 against 25 ns is within the 1 ns resolution, 24 against
# 40 is not.
"$PY" - "$TMP" <<'PY'
import json, os, sys
lit = ("pairing,a_side,b_side,expect,cpus,repeats,trials,r1_0_r2_0,r1_0_r2_1,r1_1_r2_0,r1_1_r2_1,"
       "forbidden_per_million,trials_per_s,forbidden_per_million_lo95,forbidden_per_million_hi95,"
       "forbidden_per_million_ci95,status,skip_reason")
lat = ("mechanism,threads,behaviour,scope,samples,min_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,repeats,"
       "p50_ns_ci95,p99_ns_ci95,status,skip_reason")
for name, rate, st, p99 in (("la", 30000, "ok", 24), ("lb", 90000, "failed", 25), ("lc", 30000, "ok", 40),
                             ("ld", 0, "ok", 24)):
    d = os.path.join(sys.argv[1], name)
    os.makedirs(d)
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False,
               "points_planned": 1, "points_done": 1, "points_failed": [],
               "info": {"host": {"hostname": "h"}}, "points": []}, open(os.path.join(d, "run.json"), "w"))
    fails = 3 if st == "failed" else 0
    open(os.path.join(d, "litmus.csv"), "w").write("\n".join([lit,
        f"none,compiler,compiler,allowed,0;1,3,1000000,{rate // 1},0,0,0,{rate},1e6,{max(rate - 500, 0)},{rate + 500},"
        f"{2000 if rate else 0},ok,",
        f"fence-both,fence,fence,forbidden,0;1,3,1000000,{fails},0,0,0,{fails},1e6,0,9,0,{st},"]) + "\n")
    open(os.path.join(d, "latency.csv"), "w").write("\n".join([lat,
        f"null,1,spin,same-process,1000,20,22,23,{p99},{p99},{p99},5,0,0,ok,",
        f"fence,1,spin,same-process,300,20,22,23,{p99},{p99},{p99},5,0,0,ok,"]) + "\n")
    # IPIs per barrier with CIs from slices: a noisy count 0.3 apart
    # within its spread, and an exact one that halved.
    g, e = (1.7, 1.0) if name == "la" else (1.4, 0.5)
    open(os.path.join(d, "disturb.csv"), "w").write("\n".join([
        "mechanism,round,role,cpu,phase,ipis_per_barrier,ipis_per_barrier_ci95,mb_ipis_per_barrier,"
        "tlb_per_barrier,oncpu_fraction,p50_ns,p99_ns,repeats,status",
        f"g,0,caller,0,storm,{g},0.25,,,,,,5,ok",
        f"e,0,self-spin,1,storm,{e},0.002,,,1,,,5,ok"]) + "\n")
PY
"$MBBENCH" compare "$TMP/la" "$TMP/lb" --format csv >"$TMP/l.csv" 2>"$TMP/l.err"
has_row "$TMP/l.csv" litmus '^pairing=none$' forbidden_per_million "" "" "*" changed &&
	has_row "$TMP/l.csv" litmus '^pairing=fence-both$' status ok failed "" worse &&
	has_row "$TMP/l.csv" latency '^mechanism=null ' p99_ns 24.0 25.0 "~" -
ok $? "a litmus control's rate that moved is changed, not worse; a failed pairing is worse; 24 vs 25 ns in one bucket each is not flagged ($(head -c 120 "$TMP/l.err"))"
"$MBBENCH" compare "$TMP/la" "$TMP/lc" --format csv >"$TMP/l2.csv" 2>"$TMP/l2.err"
has_row "$TMP/l2.csv" latency '^mechanism=null ' p99_ns 24.0 40.0 "*" worse &&
	has_row "$TMP/l2.csv" litmus '^pairing=none$' forbidden_per_million "" "" "~" -
ok $? "a percentile from 24 to 40 ns with CIs of 0 is flagged worse; an unchanged control rate is not"
has_row "$TMP/l2.csv" latency '^mechanism=fence ' p99_ns 24.0 40.0 "?" -
ok $? "the same p99 from batches of 60 samples (each batch's max) is not tested"
has_row "$TMP/l.csv" disturb '^mechanism=g round=0 role=caller cpu=0 phase=storm$' ipis_per_barrier 1.7 1.4 "~" - &&
	has_row "$TMP/l.csv" disturb '^mechanism=e round=0 role=self-spin cpu=1 phase=storm$' ipis_per_barrier 1.0 0.5 "*" better
ok $? "IPIs per barrier with CIs: 0.3 apart within a 0.25 spread is not flagged, 1.0 to 0.5 at 0.002 is"
"$MBBENCH" compare "$TMP/ld" "$TMP/la" --format csv >"$TMP/l3.csv" 2>"$TMP/l3.err"
has_row "$TMP/l3.csv" litmus '^pairing=none$' forbidden_per_million 0.0 30000.0 "*" changed
ok $? "a control that starts to reorder (0 to 30000 per million) has changed"
done_testing
