#!/bin/sh
# SPDX-License-Identifier: MIT
# compare never takes zero spread for certainty: a figure is known to its
# resolution (a latency percentile to half its histogram bucket, 0.4%; a
# mean in ns to the clock's nanosecond), so runs that all read one value
# still leave a standard error that wide. Three runs a side of p50 15000
# against 15420 ns (one bucket each): the change's interval and the pooled
# line's have a width, and the pooled line's detectable change is not the
# margin alone; one folder a side of 100 against 103 ns with CIs of 0.00:
# a p above 0.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 3

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables, run_json
t = Tables(src)
for side, v in (("a", 15000), ("b", 15420)):
    for k in range(3):
        d = os.path.join(tmp, f"{side}{k}")
        run_json(d)
        t.write(d, "latency", [dict(mechanism="membarrier-private-expedited", threads="2", behaviour="spin",
                                    scope="same-process", samples="50000", repeats="5", p50_ns=str(v),
                                    p50_ns_ci95="0", p99_ns=str(2 * v), p99_ns_ci95="0", replicates="5",
                                    p50_ns_per_process=";".join([str(v)] * 5))], replicates=True)
for side, v in (("one-a", "100"), ("one-b", "103")):
    d = os.path.join(tmp, side)
    run_json(d)
    t.write(d, "calls", [dict(mechanism="membarrier-private-expedited", threads="2", behaviour="spin",
                              scope="same-process", placement="compact", cpus="0;1", oversubscribed="0",
                              repeats="10", ns_per_call=v, ns_per_call_ci95="0.00")])
PY
ok $? "synthetic folders written"

"$MBBENCH" compare "$TMP/a0" "$TMP/a1" "$TMP/a2" --vs "$TMP/b0" "$TMP/b1" "$TMP/b2" --format json >"$TMP/h.json" 2>"$TMP/err" &&
	"$MBBENCH" compare "$TMP/one-a" "$TMP/one-b" --format json >"$TMP/one.json" 2>>"$TMP/err"
"$PY" - "$TMP/h.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
p = next(x for x in c["points"] if x["figure"] == "p50_ns")
pl = c["pooled"]
print(f"# p50: {p['change_lo']:+.4f} .. {p['change_hi']:+.4f}, detectable {p['detectable_pct']:.2f}%; "
      f"pooled {pl['pct']:+.2f}% [{pl['lo']:+.2f}, {pl['hi']:+.2f}]")
# half a bucket each side, as the SD of a uniform over it: the interval
# of the change is at least a few tenths of a percent wide
assert p["change_hi"] - p["change_lo"] > 0.003, p
assert p["detectable_pct"] > 0.3, p
assert pl["hi"] - pl["lo"] > 0.3, pl
PY
ok $? "three runs a side, one bucket each: the change and the pooled line have intervals ($(head -n 1 "$TMP/err"))"
"$PY" - "$TMP/one.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
p = next(x for x in c["points"] if x["figure"] == "ns_per_call")
print(f"# 100 against 103 ns, CIs 0.00: p {p['p']:.3g}, change {p['change_lo']:+.4f} .. {p['change_hi']:+.4f}")
assert p["p"] > 0 and p["change_hi"] > p["change_lo"], p
PY
ok $? "one folder a side with CIs of 0.00: p above 0, the change an interval"
done_testing
