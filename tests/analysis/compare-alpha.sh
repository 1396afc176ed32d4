#!/bin/sh
# SPDX-License-Identifier: MIT
# compare's --alpha sets the level of every interval beside a verdict, not
# only the threshold of q: four runs a side of ns_per_call, A 15000, 15300,
# 14800, 15100 against B 15600, 15200, 15900, 15350 (p 0.051), is worse at
# --alpha 0.10 with a 90% interval that leaves no change out, and "-" at
# the default 0.05, whose 95% interval holds it; the pooled line's
# interval follows --alpha too.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 3

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables, run_json
t = Tables(src)
for side, vals in (("a", (15000, 15300, 14800, 15100)), ("b", (15600, 15200, 15900, 15350))):
    for k, v in enumerate(vals):
        d = os.path.join(tmp, f"{side}{k}")
        run_json(d)
        t.write(d, "calls", [dict(mechanism="membarrier-private-expedited", threads="2", behaviour="spin",
                                  scope="same-process", placement="compact", cpus="0;1", oversubscribed="0",
                                  repeats="10", ns_per_call=f"{v:.2f}", ns_per_call_ci95="150.00")])
PY
ok $? "synthetic folders written"
A="$TMP/a0 $TMP/a1 $TMP/a2 $TMP/a3" B="$TMP/b0 $TMP/b1 $TMP/b2 $TMP/b3"
# shellcheck disable=SC2086
"$MBBENCH" compare $A --vs $B --format json --alpha 0.10 >"$TMP/10.json" 2>"$TMP/err" &&
	"$MBBENCH" compare $A --vs $B --format json >"$TMP/05.json" 2>>"$TMP/err"
"$PY" - "$TMP" <<'PY'
import json, sys
pt = {}
for a in ("10", "05"):
    c = json.load(open(f"{sys.argv[1]}/{a}.json"))["comparisons"][0]
    pt[a] = next(x for x in c["points"] if x["figure"] == "ns_per_call"), c["pooled"]
    p = pt[a][0]
    print(f"# alpha 0.{a}: q {p['q']:.3f}, B/A [{p['ratio_low']:.4f}, {p['ratio_high']:.4f}]: {p['verdict']}")
p10, p05 = pt["10"][0], pt["05"][0]
assert 0.05 < p10["q"] < 0.10, p10
assert p10["verdict"] == "worse" and p10["ratio_low"] > 1, p10
assert p05["verdict"] == "-" and p05["ratio_low"] < 1, p05
PY
ok $? "q 0.051 at --alpha 0.10: worse, its 90% interval above 1; at 0.05: - ($(head -n 1 "$TMP/err"))"
"$PY" - "$TMP" <<'PY'
import json, sys
w = {}
for a in ("10", "05"):
    pl = json.load(open(f"{sys.argv[1]}/{a}.json"))["comparisons"][0]["pooled"]
    w[a] = pl["hi"] - pl["lo"]
assert w["10"] < 0.9 * w["05"], w
PY
ok $? "the pooled line's interval narrows with --alpha 0.10"
done_testing
