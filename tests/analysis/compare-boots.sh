#!/bin/sh
# SPDX-License-Identifier: MIT
# compare --vs with the boot as a level (run.json's boot_id): a boot moves
# every figure of its runs together (here by up to 5%), so runs nested in
# boots are tested at the boot level, each boot's runs one figure, and the
# boot's share of the variance is reported; one boot a side, the sides
# sharing none, gives no verdict (a 3% difference between two boots is not
# a change); runs all in one boot are tested as runs and find a 5% change.
. "${top_srcdir:-.}/tests/lib.sh"
need_scipy
plan 5

"$PY" - "$TMP" "${top_srcdir:-.}" <<'PY'
import os, random, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables, processes, run_json
t = Tables(src)
rng = random.Random(23)
IPI = ("membarrier-global-expedited", "membarrier-private-expedited", "membarrier-private-expedited-rseq")

def run(name, boot, level, slow=1.0):
    d = os.path.join(tmp, name)
    run_json(d, boot_id=boot)
    rows = []
    dr = level * (1 + 0.003 * rng.gauss(0, 1))
    for i, m in enumerate(IPI):
        ns = [15000 * (1 + 0.1 * i) * dr * slow * (1 + 0.002 * rng.gauss(0, 1)) for _ in range(5)]
        mean, ci, per = processes(ns)
        rows.append(dict(mechanism=m, threads="2", behaviour="spin", scope="same-process", placement="compact",
                         cpus="0;1", oversubscribed="0", repeats="5", ns_per_call=mean, ns_per_call_ci95=ci,
                         ns_per_call_per_process=per, replicates="5"))
    t.write(d, "calls", rows, replicates=True)

boot = {f"{s}{k}": (f"{s}{k}-0000-0000", 1 + 0.05 * rng.uniform(-1, 1)) for s in "ab" for k in range(3)}
for s in "ab":
    for k in range(3):
        for j in range(2):	# two runs in each boot
            run(f"n{s}{k}{j}", *boot[f"{s}{k}"])
for k in range(4):
    run(f"ca{k}", "1111-0000", 1.0)
    run(f"cb{k}", "2222-0000", 1.03)
    run(f"sa{k}", "3333-0000", 1.0)
    run(f"sb{k}", "3333-0000", 1.0, slow=1.05)
PY
ok $? "synthetic runs in boots written"
runs() { s=; for x in "$@"; do s="$s $TMP/$x"; done; echo "$s"; }
# shellcheck disable=SC2046
"$MBBENCH" compare $(runs na00 na01 na10 na11 na20 na21) --vs $(runs nb00 nb01 nb10 nb11 nb20 nb21) --format json >"$TMP/n.json" 2>"$TMP/err" &&
	"$MBBENCH" compare $(runs ca0 ca1 ca2 ca3) --vs $(runs cb0 cb1 cb2 cb3) --format json >"$TMP/c.json" 2>>"$TMP/err" &&
	"$MBBENCH" compare $(runs ca0 ca1 ca2 ca3) --vs $(runs cb0 cb1 cb2 cb3) --format text >"$TMP/c.txt" 2>>"$TMP/err" &&
	"$MBBENCH" compare $(runs sa0 sa1 sa2 sa3) --vs $(runs sb0 sb1 sb2 sb3) --format json >"$TMP/s.json" 2>>"$TMP/err"
ok $? "the comparisons run ($(head -n 1 "$TMP/err"))"
"$PY" - "$TMP/n.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
pl = c["pooled"]
print(f"# nested: {pl['pct']:+.2f}% [{pl['lo']:+.2f}, {pl['hi']:+.2f}] {pl['verdict']}, {pl['runs_a']} boots a side, "
      f"boot share {pl['boot_share']:.2f}")
assert c["boots"] == "nested" and pl["unit"] == "boots" and pl["runs_a"] == 3 and pl["runs_b"] == 3, pl
assert pl["boot_share"] > 0.5 and pl["verdict"] == "-", pl
assert all(x["unit"] == "boots" and x["verdict"] == "-" for x in c["points"]), c["points"]
PY
ok $? "runs nested in boots: the boot the unit, its share of the variance said, no verdict on an A/A"
"$PY" - "$TMP/c.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
assert c["boots"] == "confounded" and c["pooled"]["verdict"] == "-", (c["boots"], c["pooled"])
assert all(x["verdict"] == "-" for x in c["points"]), c["points"]
PY
ok $? "one boot a side, none shared: no verdict ($(grep -m 1 -o 'no verdict' "$TMP/c.txt"))"
"$PY" - "$TMP/s.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
assert c["boots"] == "common" and c["pooled"]["verdict"] == "worse", (c["boots"], c["pooled"])
PY
ok $? "every run in one boot: tested as runs, a 5% change found"
done_testing
