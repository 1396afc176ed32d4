#!/bin/sh
# SPDX-License-Identifier: MIT
# The report's read-side model under §rcu, on a synthetic folder written
# from the result schema: the host's unit costs in one sentence, one row a
# scheme with the model beside the measurement, agreement judged on the
# interval of the difference (yes; yes outside the measured interval
# alone; no with the lines the rate implies, more or fewer than the code's;
# no where the writer is too
# rare to matter, which is not called a line count), our mb against
# liburcu-mb explained by the terms, the fidelity row's reason from the
# model; a folder whose model rows were all skipped says why in one line,
# one without rcu-model.csv shows no model.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}

need_python
plan 7

"$PY" - "$TMP" "$src" <<'PY'
import json, os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables
T = Tables(src)

def table(d, name, rows):
    T.write(d, name, rows, replicates=True)

host = {"hostname": "h", "kernel_release": "6.18.0", "machine": "x86_64", "cpu_model": "AMD EPYC",
        "cpus_online": "2", "virtualization": "guest (hypervisor synthetic)", "rcu_expedited": "0", "hz": "250"}
UNIT = dict(loop_ns=1.0, rmw_ns=8.0, rmw_idle_ns=4.0, mfence_ns=12.0, mfence_idle_ns=10.0, line_ns=60.0,
            line_paid_ns=120.0, readers=1, writers=1)

def model(s, fam, solo, wpr, lines, read, ci, mci, rmw=0, rmw_idle=0, mf=0, mf_idle=0, intr=0, what="", stolen=""):
    fence = rmw * 8 + rmw_idle * 4 + mf * 12 + mf_idle * 10
    transfer = wpr * lines * 120
    inter = wpr * intr * (stolen or 0)
    m = solo + transfer + inter
    return dict(UNIT, scheme=s, family=fam, rmw_per_read=rmw, rmw_idle_per_read=rmw_idle, mfence_per_read=mf,
                mfence_idle_per_read=mf_idle, lines_per_write=lines, interrupts_per_write=intr, interrupt=what,
                interruption_ns=stolen, writes_per_read=wpr, fence_ns=fence, model_solo_ns=1.0 + fence,
                solo_read_ns=solo, transfer_ns=transfer, interrupt_ns=inter, model_read_ns=m, model_read_ns_ci95=mci,
                model_reads_per_s=1e9 / m, lines_implied=(read - solo - inter) / (wpr * 120),
                read_ns=read, reads_per_s=1e9 / read, reads_per_s_ci95=ci, replicates=10)

PE = "membarrier-private-expedited"
rows = [
    # agrees inside the measured interval: 2.40 ns modelled, 2.38 measured
    model(PE, "ours", 0.98, 0.00012, 4, 1e9 / 420e6, 10e6, 0.05, intr=1, what=PE, stolen=11650),
    # agrees only on the difference's interval
    model("mb", "ours", 12.0, 0.08, 4, 52.0, 0.6e6, 3.0, rmw=1, rmw_idle=1),
    # the lines disagree: 100 ns measured where 12 + 0.3 x 5 x 120 = 192 ns ... rather 300 ns measured
    model("liburcu-mb", "liburcu", 42.0, 0.3, 5, 300.0, 0.1e6, 5.0, mf=2, mf_idle=1),
    # fewer lines than the code moves: 1.00 ns measured, 1.13 modelled
    model("qsbr", "ours", 0.70, 0.0009, 4, 1.00, 2e6, 0.01, rmw=2 / 1024),
    # the writer is too rare to matter: 1.49 alone, 1.60 running
    model("liburcu-signal", "liburcu", 1.49, 1e-6, 5, 1.60, 5e6, 0.01, intr=2, what="signal", stolen=10000),
]
for name, mrows in (("m", rows), ("skip", None), ("none", False)):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False, "replicates": 10,
               "points_planned": 1, "points_done": 1, "points_failed": [], "info": {"host": host}, "points": []},
              open(os.path.join(d, "run.json"), "w"))
    table(d, "rcu", [dict(scheme=s, family=f, readers=1, writers=1, repeats=1, duration_s=0.05, reads=1, writes=1,
                          reads_per_s=r, reads_per_s_ci95=r / 50, writes_per_s=w, writes_per_s_ci95=w / 50,
                          violations=0, replicates=10)
                     for s, f, r, w in (("mb", "ours", 19e6, 1.5e6), (PE, "ours", 420e6, 57e3),
                                        ("liburcu-mb", "liburcu", 3.3e6, 1.0e6), ("liburcu-signal", "liburcu", 625e6, 600))])
    if mrows:
        table(d, "rcu-model", mrows)
    elif mrows is None:
        table(d, "rcu-model", [dict(scheme=s, family="ours", readers=1, writers=1, status="skipped",
                                    skip_reason="readers and writers share a CPU: no line moves between them")
                               for s in ("mb", PE)])
PY
ok $? "synthetic folders written from the schema"

for f in m skip none; do
	"$MBBENCH" report "$TMP/$f" --output "$TMP/$f.md" 2>"$TMP/$f.err" || diag "$(cat "$TMP/$f.err")"
done
# The model is the appendix's (report.md says where it is).
sec() { sed -n '/^## rcu: what one read costs/,/^## /p' "$TMP/$1-appendix.md"; }
sec m | sed 's/^/# /'

sec m | grep -q '^Priced on this host (`rcu-model.csv`): the reader loop alone 1 ns a read; one locked add 8 ns with a store pending, 4 ns without; one mfence 12 ns, 10 ns without; one cache line from the writer.s CPU 120 ns as a running reader pays for it (a hand-over alone: 60 ns); one membarrier-private-expedited interruption of a running reader 11.7 µs; one signal interruption of a running reader 10 µs\.$'
ok $? "the unit costs in one sentence"

sec m | grep -q '^| membarrier-private-expedited | none | 1 ns / 0.98 ns | 0.00012 | 4, 1 × membarrier-private-expedited | .* | 2.4. ns / 2.38 ns | yes |$' &&
	sec m | grep -q '^| mb | 1 locked add + 1 locked add, idle | 13 ns / 12 ns | 0.08 | 4 | 38.4 ns + 0 ns | 50.4 ns / 52 ns | yes (outside the measured interval alone) |$'
ok $? "agreement on the difference's interval, said when only that holds"

sec m | grep -q '^| liburcu-mb | 2 mfence + 1 mfence, idle | 35 ns / 42 ns | 0.3 | 5 | 180 ns + 0 ns | 222 ns / 300 ns | no: the rate implies 7.2 lines a write |$' &&
	sec m | grep -q '^Where the rate implies more lines than the code moves (liburcu-mb): ' &&
	sec m | grep -q '^| liburcu-signal | .* | no: 0.0894 ns a read slower than the reader alone and its writer.s 1e-06 writes a read explain |$' &&
	sec m | grep -q '^Where the writer is too rare to matter (liburcu-signal), ' &&
	sec m | grep -q '^| qsbr | 0.002 locked add | .* | no: the rate implies 2.8 lines a write |$' &&
	sec m | grep -q '^Where the rate implies fewer lines than the code moves (qsbr): '
ok $? "a disagreement is said with its kind: the lines a rate implies, or a writer too rare to matter"

sec m | grep -q "^Two implementations of one scheme: liburcu-mb's read takes 5.8× ours (300 ns against 52 ns)\. Alone, 3.5× (42 ns against 12 ns): its fences are 2 mfence + 1 mfence, idle against our 1 locked add + 1 locked add, idle, priced 34 ns against 12 ns\. "
ok $? "our mb against liburcu-mb, explained by the terms"

grep -q "^| RCU read side, membarrier over mb | 4.5:1 | 22:1 | mb's read here: 12 ns alone (12 ns of fences) and 40 ns more from a writer at 0.08 writes a read; membarrier's: 0.98 ns and 1.4 ns of interruptions\." "$TMP/m-appendix.md" &&
	grep -q "^What one read costs, and why each scheme reads as fast as it does (the read-side model, .rcu-model.csv.), is in the appendix\.$" "$TMP/m.md"
ok $? "the fidelity row's reason is the model's"

[ "$(sec skip | grep -vc "^## \|^$")" -eq 1 ] &&
	sec skip | grep -q '^The read-side model was not priced: readers and writers share a CPU: no line moves between them\.$' &&
	! grep -q 'what one read costs' "$TMP/none-appendix.md" && ! grep -q 'read-side model' "$TMP/none.md" &&
	grep -q '^## rcu' "$TMP/none.md"
ok $? "all model rows skipped: the reason in one line; no rcu-model.csv: no model"
