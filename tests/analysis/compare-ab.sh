#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench compare as an A/B of several runs a side (--vs), on synthetic
# folders whose runs drift together (a whole run 4% slow or fast, as a VM's
# IPI delivery does) and whose points are measured in 5 processes each:
# the run is the unit, so an A/A set whose sides' drifts differ by 2.4% flags
# no point and gives no pooled verdict (the processes as the unit flag it);
# a 10% slowdown of every IPI-sending membarrier command (not of signal or
# mprotect) gives the pooled "membarrier commands" line "worse" with an
# interval above 2% (--min-effect), first in every format, and finds each of its points;
# every "worse" sits beside an interval that leaves "no change" out; the
# headline points are their own false-discovery family (300 secondary
# figures more change none of their q values), oversubscribed points never
# headline; one run a side has no pooled verdict.
. "${top_srcdir:-.}/tests/lib.sh"

need_scipy
plan 8

"$PY" - "$TMP" <<'PY'
import json, os, random, sys
tmp = sys.argv[1]
rng = random.Random(11)
IPI = ("membarrier-global-expedited", "membarrier-private-expedited", "membarrier-private-expedited-sync-core",
       "membarrier-private-expedited-rseq", "membarrier-private-expedited-rseq-cpu")
calls_cols = ("mechanism,threads,behaviour,scope,placement,cpus,oversubscribed,repeats,calls_per_repeat,"
              "ns_per_call,ns_per_call_stddev,ns_per_call_ci95,replicates,ns_per_call_per_process,status,skip_reason")
dist_cols = ("mechanism,level,caller_cpu,spinner_cpu,repeats,ns_per_call,ns_per_call_ci95,replicates,"
             "ns_per_call_per_process,status,skip_reason")

def row(level):
    xs = [level * (1 + 0.01 * rng.gauss(0, 1)) for _ in range(5)]
    m = sum(xs) / 5
    sd = (sum((x - m) ** 2 for x in xs) / 4) ** 0.5
    return m, sd, 2.776 * sd / 5 ** 0.5, ";".join(f"{x:.2f}" for x in xs)

def folder(name, drift, slow=1.0, secondary=0):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    host = {"hostname": "h", "kernel_release": "6.1.0", "virtualization": "kvm"}
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "ab", "interrupted": False,
               "points_planned": 1, "points_done": 1, "points_failed": [],
               "info": {"host": host}, "points": [{"version": "0.1.0", "end": "2026-12-07T00:00:00Z"}]},
              open(os.path.join(d, "run.json"), "w"))
    rows = [calls_cols]
    for i, mech in enumerate(IPI + ("signal", "mprotect")):
        for t, over in ((2, 0), (3, 1)):
            f = slow if mech in IPI else 1.0
            m, sd, ci, per = row(15000.0 * (1 + 0.02 * i) * drift * f * (1.3 if over else 1))
            rows.append(f"{mech},{t},spin,same-process,compact,0;1,{over},5,100,{m:.2f},{sd:.2f},{ci:.2f},5,{per},ok,")
    for i in range(secondary):
        m, sd, ci, per = row(100.0 * drift)
        rows.append(f"m{i},2,spin,same-process,compact,0;1,0,5,100,{m:.2f},{sd:.2f},{ci:.2f},5,{per},ok,")
    open(os.path.join(d, "calls.csv"), "w").write("\n".join(rows) + "\n")
    rows = [dist_cols]
    for lvl, k in (("core", 1.0), ("l3", 1.2)):
        for mech in IPI:
            m, sd, ci, per = row(16000.0 * k * drift * slow)
            rows.append(f"{mech},{lvl},0,1,5,{m:.2f},{ci:.2f},5,{per},ok,")
    open(os.path.join(d, "distance.csv"), "w").write("\n".join(rows) + "\n")

# The sides' drifts: A's mean +1.2%, B's -1.2% (each run within 3.5%).
da, db = (1.035, 0.995, 1.03, 0.99, 1.01), (0.965, 1.005, 0.97, 1.01, 0.99)
for k in range(5):
    folder(f"a{k}", da[k])
    folder(f"b{k}", db[k])
    folder(f"p{k}", db[k], slow=1.10)
    folder(f"s{k}", da[k], secondary=300)
    folder(f"sp{k}", db[k], slow=1.10, secondary=300)
PY
ok $? "synthetic folders written"
A="$TMP/a0 $TMP/a1 $TMP/a2 $TMP/a3 $TMP/a4"
B="$TMP/b0 $TMP/b1 $TMP/b2 $TMP/b3 $TMP/b4"
P="$TMP/p0 $TMP/p1 $TMP/p2 $TMP/p3 $TMP/p4"
# shellcheck disable=SC2086
"$MBBENCH" compare $A --vs $B --format json >"$TMP/aa.json" 2>"$TMP/e" &&
	"$MBBENCH" compare $A --vs $P --format json >"$TMP/ab.json" 2>>"$TMP/e" &&
	"$MBBENCH" compare $A --vs $P --format text >"$TMP/ab.txt" 2>>"$TMP/e" &&
	"$MBBENCH" compare $A --vs $P >"$TMP/ab.md" 2>>"$TMP/e" &&
	"$MBBENCH" compare $TMP/s0 $TMP/s1 $TMP/s2 $TMP/s3 $TMP/s4 --vs \
		$TMP/sp0 $TMP/sp1 $TMP/sp2 $TMP/sp3 $TMP/sp4 --format json >"$TMP/sec.json" 2>>"$TMP/e" &&
	"$MBBENCH" compare "$TMP/a0" "$TMP/p0" --format json >"$TMP/one.json" 2>>"$TMP/e"
ok $? "the comparisons run ($(head -n 1 "$TMP/e"))"

"$PY" - "$TMP" <<'PY'
import json, sys
c = json.load(open(sys.argv[1] + "/aa.json"))["comparisons"][0]
flagged = [p["point"] for p in c["points"] if p["verdict"] in ("worse", "better")]
assert not flagged and c["pooled"]["verdict"] == "-", (flagged, c["pooled"])
PY
ok $? "A/A, runs drifting together: no point flagged, no pooled verdict"

"$PY" - "$TMP" <<'PY'
import json, sys
from scipy.stats import mannwhitneyu
tmp = sys.argv[1]
# The same A/A with each run's processes pooled as 25 against 25 (the
# process the unit): the sides' drift is taken for a change.
def procs(side):
    out = []
    for k in range(5):
        for line in open(f"{tmp}/{side}{k}/calls.csv").read().splitlines()[1:]:
            f = line.split(",")
            if f[0] == "membarrier-private-expedited" and f[1] == "2":
                out += [float(x) for x in f[13].split(";")]
    return out
p = mannwhitneyu(procs("a"), procs("b")).pvalue
assert p < 0.01, p
print(f"# the processes as the unit: Mann-Whitney p {p:.2g}")
PY
ok $? "the same A/A with the processes as the unit would flag it (so the test above can fail)"

"$PY" - "$TMP" <<'PY'
import json, sys
c = json.load(open(sys.argv[1] + "/ab.json"))["comparisons"][0]
pl = c["pooled"]
assert pl["verdict"] == "worse" and pl["lo"] >= 2 and 5 < pl["pct"] < 15 and pl["points"] == 10, pl
pts = {(p["experiment"], p["point"].split(" ")[0], p["point"]): p for p in c["points"] if p["figure"] == "ns_per_call"}
head = [p for p in c["points"] if p.get("family") == "headline"]
ipi = [p for p in head if "membarrier-" in p["point"]]
assert len(ipi) == 10 and all(p["verdict"] == "worse" for p in ipi), [(p["point"], p["verdict"]) for p in ipi]
base = [p for p in head if "signal" in p["point"] or "mprotect" in p["point"]]
assert len(base) == 2 and all(p["verdict"] == "-" for p in base), base
over = [p for p in c["points"] if "threads=3" in p["point"]]
assert over and all(p["family"] == "secondary" for p in over), over
l3 = [p for p in c["points"] if "level=l3" in p["point"]]
assert l3 and all(p["family"] == "secondary" for p in l3)
assert c["families"]["headline"] == 12, c["families"]
PY
ok $? "a 10% slowdown of the membarrier commands: pooled worse, its interval above 2%, each of their 10 headline points worse, signal and mprotect not, T=3 and the farther level secondary"

"$PY" - "$TMP" <<'PY'
import json, sys
bad = []
for f in ("aa", "ab", "sec", "one"):
    for c in json.load(open(f"{sys.argv[1]}/{f}.json"))["comparisons"]:
        for p in c["points"]:
            if p["verdict"] in ("worse", "better") and p.get("ratio_low") is not None:
                if p["ratio_low"] <= 1 <= p["ratio_high"]:
                    bad.append((f, p["point"], p["figure"], p["ratio_low"], p["ratio_high"]))
assert not bad, bad
PY
ok $? "no verdict sits beside an interval that holds no change"

"$PY" - "$TMP" <<'PY'
import json, sys
a = json.load(open(sys.argv[1] + "/ab.json"))["comparisons"][0]
s = json.load(open(sys.argv[1] + "/sec.json"))["comparisons"][0]
qa = {p["point"]: p["q"] for p in a["points"] if p.get("family") == "headline"}
qs = {p["point"]: p["q"] for p in s["points"] if p.get("family") == "headline"}
assert s["families"]["secondary"] >= 300 + a["families"]["secondary"] and set(qa) == set(qs), s["families"]
# the data differ (the random draws follow the extra rows), so compare the verdicts, not the q values
va = {p["point"]: p["verdict"] for p in a["points"] if p.get("family") == "headline"}
vs = {p["point"]: p["verdict"] for p in s["points"] if p.get("family") == "headline"}
assert va == vs, [(k, va[k], vs[k]) for k in va if va[k] != vs[k]]
PY
ok $? "300 secondary figures more leave every headline verdict as it was"

none=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["comparisons"][0]["pooled"])' "$TMP/one.json")
head -n 3 "$TMP/ab.txt" | grep -q '^membarrier commands: +[0-9.]*% \[+[0-9.]*, +[0-9.]*\] WORSE' &&
	grep -q '^\*\*membarrier commands: +[0-9.]*% \[+[0-9.]*, +[0-9.]*\] WORSE' "$TMP/ab.md" &&
	[ "$none" = None ]
ok $? "the pooled line leads the text and Markdown; one run a side has none ($(head -n 3 "$TMP/ab.txt" | tr '\n' ' '))"
done_testing
