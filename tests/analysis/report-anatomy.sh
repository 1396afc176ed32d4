#!/bin/sh
# SPDX-License-Identifier: MIT
# The report's anatomy section on a synthetic results folder written from
# the result schema: the conclusion in a sentence (and in the Verdict), each
# phase's median with its CI, the untraced cost over the delivery floor, the
# software share, the tracing overhead, the clock check, the barriers with
# missing events, a row from ipi:* alone, and one line for the skipped rows;
# a folder without anatomy.csv says not measured, one whose rows were all
# skipped gives the reason in one line. The figure's bars: each
# mechanism's phases and its untraced cost, drawn.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}

need_python
plan 11

"$PY" - "$TMP" "$src" <<'PY'
import csv, json, os, sys
tmp, src = sys.argv[1], sys.argv[2]
schema = {t["name"]: [c["name"] for c in t["columns"]] for t in json.load(open(os.path.join(src, "results", "schema.json")))["tables"]}

def table(d, name, rows):
    with open(os.path.join(d, name + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=schema[name] + ["replicates"], restval="")
        w.writeheader()
        for r in rows:
            w.writerow(dict({"status": "ok"} if "status" in schema[name] else {}, **r))

PE, SC = "membarrier-private-expedited", "membarrier-private-expedited-sync-core"

def ana(m, frm, **kw):
    return dict(dict(mechanism=m, threads=2, cpus="0;1", phases_from=frm, barriers=2000, complete=1000, no_call=950,
                     missing_handler=30, missing_handler_exit=20, unclosed=0, lost_records=0, foreign_events=12,
                     clock_inversions=0, untraced_ns=11000, untraced_ns_ci95=500, traced_ns=18000,
                     traced_ns_ci95=700, replicates=3), **kw)

def ph(m, phase, p50, ci, tgt="all"):
    return dict(mechanism=m, threads=2, phase=phase, target_cpu=tgt, samples=1000, p50_ns=p50, p90_ns=p50 * 1.2,
                p99_ns=p50 * 2, mean_ns=p50, batches=5, p50_ns_ci95=ci, replicates=3)

host = {"hostname": "h", "kernel_release": "6.18.0", "machine": "x86_64", "cpu_model": "AMD EPYC",
        "cpus_online": "2", "virtualization": "guest (hypervisor synthetic)", "rcu_expedited": "0", "hz": "250"}
clock = "clock check CPU 1 vs 0: offset %+d ns within +-%d ns (half the shortest of 20000 CLOCK_MONOTONIC ping-pongs); %d rounds stamped out of order"
for name, with_anatomy in (("ana", True), ("none", False), ("skip", None)):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    points = [{"experiment": "anatomy", "end": "2026-12-03T00:01:00Z", "notes": [clock % (o, h, b)],
               "derived": {"clock_offset_ns": o, "clock_rtt_ns": 2 * h}}
              for o, h, b in ((-9, 120, 0), (30, 110, 2), (5, 100, 0))] if with_anatomy else []
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False, "replicates": 3,
               "points_planned": 3, "points_done": 3, "points_failed": [], "info": {"host": host},
               "points": points}, open(os.path.join(d, "run.json"), "w"))
    table(d, "calls", [dict(mechanism=PE, threads=2, behaviour="spin", scope="same-process", placement="compact",
                            repeats=10, ns_per_call=11000, ns_per_call_ci95=400, calls_per_s=1e9 / 11000)])
    if with_anatomy is None:	# every row skipped: no tracepoint could be opened
        why = "perf_event_paranoid is 2: tracepoints need root or CAP_PERFMON (or sysctl kernel.perf_event_paranoid=-1)"
        table(d, "anatomy", [dict(mechanism=m, threads=2, status="skipped", skip_reason=why) for m in (PE, SC)])
        table(d, "anatomy-phases", [])
    if not with_anatomy:
        continue
    table(d, "anatomy", [
        ana(PE, "csd", untraced_sent_p50_ns=11000, traced_sent_p50_ns=18000, total_p50_ns=18000,
            phase_sum_p50_ns=18000, phase_sum_over_total=1.0, delivery_p50_ns=14000,
            untraced_over_delivery=0.786, software_share=0.222),
        ana(SC, "ipi", phase_sum_over_total=0.97, untraced_over_delivery="", software_share="", replicates=2),
        dict(mechanism="mprotect", threads=2, barriers=2000, complete=0, no_call=2000, status="skipped",
             skip_reason="2000 windows traced, none complete: 2000 queued no cross-CPU call"),
        dict(mechanism="seed-v1-ipi-all", threads=2, status="skipped",
             skip_reason="needs the patched kernel (kernel-patch/)")])
    table(d, "anatomy-phases", [ph(PE, "setup", 2000, 100), ph(PE, "send", 500, 50),
                                ph(PE, "delivery", 14000, 500), ph(PE, "delivery", 14000, 500, tgt="1"),
                                ph(PE, "handler", 1000, 100), ph(PE, "wait", 1000, 200), ph(PE, "total", 18000, 600),
                                ph(SC, "to-ipi", 3000, 300), ph(SC, "after-ipi", 15000, 900),
                                ph(SC, "total", 18000, 900)])
PY
ok $? "synthetic folders written from the schema"

for f in ana none skip; do
	"$MBBENCH" report "$TMP/$f" --output "$TMP/$f.md" 2>"$TMP/$f.err" || diag "$(cat "$TMP/$f.err")"
done
sec() { sed -n '/^## anatomy/,/^## /p' "$TMP/ana.md"; }
sec | sed 's/^/# /'

sec | grep -q "^\*\*On this host 78% of a PRIVATE_EXPEDITED barrier (T=2, traced) is IPI delivery, 14 µs of 18 µs; the software around it is 4.0 µs; untraced, one that sends costs 11 µs, 0.79x the delivery floor\.\*\* "
ok $? "the section opens with its conclusion: delivery's share, the software, the untraced cost over the floor"

sec | grep -q '^| membarrier-private-expedited | 2 | 2.00 ± 0.10 µs | 14.0 ± 0.5 µs | 1.00 ± 0.10 µs | 1.00 ± 0.20 µs | 18.0 ± 0.6 µs | 11 µs → 18 µs | 0.8x | 22% |$'
ok $? "each phase's p50 with its CI, the traced total, untraced -> traced (what tracing costs), x floor and software share"

sec | grep -q '^| membarrier-private-expedited-sync-core | 2 | 3.00 ± 0.30 µs (to IPI) | - | - | 15.0 ± 0.9 µs (after IPI) | 18.0 ± 0.9 µs | .* | - | - |$'
ok $? "a row from ipi:* alone: entry -> IPI and IPI -> exit, no made-up phases"

sec | grep -q '^Clocks: 3 checks of the caller.s CPU against each target.s (ping-pong) put them within ±140 ns, 2 rounds out of order; of 4,000 syscall windows traced, 100 lacked a handler.s entry or exit, 0 syscall events were unpaired and 0 records lost (counted, left out of the phases); 1,900 queued no cross-CPU call; the phases sum to 0.97–1.00 of the traced total; from fewer than the run.s 3 processes (the others. rows were skipped: their raw/anatomy-\*\.N/anatomy\.csv say why): membarrier-private-expedited-sync-core T=2 (2)\. Skipped: '
ok $? "the clock check, the windows with missing events, the phase sum and the rows from fewer processes, in one line"

sec | grep -q ' Skipped: mprotect: 2000 windows traced, none complete: 2000 queued no cross-CPU call\. seed-v1-ipi-all: needs the patched kernel (kernel-patch/)\.$' &&
	! grep -q '^- anatomy' "$TMP/ana.md"
ok $? "the skipped rows in one line of the section, not again under Skipped measurements"

grep -q "^- \*\*Where a barrier's time goes\*\* (§anatomy): On this host 78% of a PRIVATE_EXPEDITED barrier" "$TMP/ana.md" &&
	! grep -q 'clock_offset_ns' "$TMP/ana.md"
ok $? "the finding is one line of the Verdict; the clock checks are not repeated among the derived figures"

n=$(sec | wc -l)
[ "$n" -le 13 ]
ok $? "the section is short: $n lines with two mechanisms measured and two skipped"

grep -q "^- \*\*Where a barrier's time goes\*\*: not measured (no anatomy.csv)\.$" "$TMP/none.md" &&
	! grep -q '^## anatomy' "$TMP/none.md"
ok $? "without anatomy.csv: the Verdict says not measured and there is no section"

[ "$(sed -n '/^## anatomy/,/^## /p' "$TMP/skip.md" | grep -c .)" -eq 3 ] &&
	grep -q '^Skipped: membarrier-private-expedited, membarrier-private-expedited-sync-core: perf_event_paranoid is 2: tracepoints need root or CAP_PERFMON (or sysctl kernel.perf_event_paranoid=-1)\.$' "$TMP/skip.md" &&
	grep -q "^- \*\*Where a barrier's time goes\*\*: no phases measured here (§anatomy says why)\.$" "$TMP/skip.md"
ok $? "every row skipped: the section is its heading and the reason in one line; the Verdict points to it"

"$PY" -I "$src/analysis/mbtool.py" plot-check "$TMP/ana" anatomy-phases:anatomy.gp >"$TMP/chk" &&
	grep -q '^extra anatomy-phases bar=membarrier-private-expedited@2:2000:14000:1000:1000:-:-:11000:600 bar=membarrier-private-expedited-sync-core@2:-:-:-:-:3000:15000:-:900$' "$TMP/chk" &&
	if command -v gnuplot >/dev/null 2>&1; then
		"$MBBENCH" plot "$TMP/ana" >"$TMP/plot.out" 2>&1 && grep -q '^# plot: .*/anatomy.png$' "$TMP/plot.out" &&
			grep -q 'queue → handler entry (IPI delivery)' "$TMP/ana/plots/anatomy.svg"
	fi
ok $? "the figure's bars: phases per mechanism and T, the untraced cost; drawn where gnuplot is"
