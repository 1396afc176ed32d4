#!/bin/sh
# SPDX-License-Identifier: MIT
# compare on a signed figure (ns_over_floor: the cost less the delivery
# floor, which crosses 0): a rise from -300 to +1800 ns is worse, a fall the
# other way better, whatever the ratio of two numbers of opposite signs says.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 2

"$PY" - "$TMP" <<'PY'
import json, os, random, sys
tmp = sys.argv[1]
rng = random.Random(3)
cols = ("mechanism,threads,behaviour,scope,placement,cpus,oversubscribed,repeats,calls_per_repeat,"
        "ns_per_call,ns_per_call_stddev,ns_per_call_ci95,calls_per_s,calls_per_s_ci95,cv,"
        "ns_over_floor,ns_over_floor_ci95,status,skip_reason,replicates,ns_per_call_per_process,"
        "ns_over_floor_per_process")
for name, net in (("a", -300.0), ("b", 1800.0)):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False,
               "points_planned": 1, "points_done": 1, "points_failed": [],
               "info": {"host": {"hostname": "h", "kernel_release": "6.1.0", "cmdline": "quiet",
                                 "virtualization": "none"}},
               "points": [{"version": "0.1.0", "end": "2026-12-03T00:00:00Z"}]},
              open(os.path.join(d, "run.json"), "w"))
    ns = [17000 + net + rng.gauss(0, 150) for _ in range(10)]
    nets = [v - 17000 for v in ns]
    m, mn = sum(ns) / 10, sum(nets) / 10
    with open(os.path.join(d, "calls.csv"), "w") as f:
        f.write(cols + "\n")
        f.write(f"membarrier-private-expedited,2,spin,same-process,compact,0;1,0,10,1000,{m:.1f},150,107,"
                f"{1e9 / m:.1f},1,0.01,{mn:.1f},107,ok,,10,{';'.join(f'{v:.1f}' for v in ns)},"
                f"{';'.join(f'{v:.1f}' for v in nets)}\n")
PY
"$MBBENCH" compare "$TMP/a" "$TMP/b" --format csv >"$TMP/ab.csv" 2>"$TMP/err"
v=$(csv_cols "$TMP/ab.csv" figure verdict | awk -F'\t' '$1 == "ns_over_floor" { print $2 }')
[ "$v" = worse ]
ok $? "a signed figure rising across 0 is worse (verdict: ${v:-none}; $(head -n 1 "$TMP/err"))"
"$MBBENCH" compare "$TMP/b" "$TMP/a" --format csv >"$TMP/ba.csv" 2>"$TMP/err"
v=$(csv_cols "$TMP/ba.csv" figure verdict | awk -F'\t' '$1 == "ns_over_floor" { print $2 }')
[ "$v" = better ]
ok $? "falling across 0 is better (verdict: ${v:-none})"
done_testing
