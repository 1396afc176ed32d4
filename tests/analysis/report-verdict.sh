#!/bin/sh
# SPDX-License-Identifier: MIT
# The Verdict of mbbench report on synthetic results folders written from
# the result schema: each rule fires when its rows say so and stays quiet
# when they do not (the barrier and a tie, a kernel finding that excludes
# GLOBAL_EXPEDITED, the registration order, the CPUs interrupted, the RCU
# break-even, the host's changes, a disturbed run and its rerun advice, a
# reference of the host class, a missing experiment), the reconciliation
# table, honest digits, and the sweep's load record (raw/load.txt) in
# run.json, with a folder from before it still read.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}

need_python
plan 29

"$PY" - "$TMP" "$src" <<'PY'
import csv, json, os, sys
tmp, src = sys.argv[1], sys.argv[2]
schema = {t["name"]: [c["name"] for c in t["columns"]] for t in json.load(open(os.path.join(src, "results", "schema.json")))["tables"]}

def table(d, name, rows):
    with open(os.path.join(d, name + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=schema[name], restval="")
        w.writeheader()
        for r in rows:
            w.writerow(dict({"status": "ok"} if "status" in schema[name] else {}, **r))

def calls(m, t, ns, ci, n=10):
    return dict(mechanism=m, threads=t, behaviour="spin", scope="same-process", placement="compact", cpus="0;1",
                oversubscribed=1 if t > 2 else 0, repeats=n, ns_per_call=ns, ns_per_call_ci95=ci,
                calls_per_s=1e9 / ns, cv=0.02)

def storm(m, rnd, role, ipis, ci=0.01, **kw):
    return dict(mechanism=m, round=rnd, role=role, cpu=1, phase="storm", barriers=1000, ipi_source="tracepoint",
                ipis_per_barrier=ipis, ipis_per_barrier_ci95=ci, **kw)

def rcu(s, reads, writes, n=10):
    return dict(scheme=s, family="ours", readers=1, writers=1, duration_s=0.3, repeats=n, reads_per_s=reads,
                reads_per_s_ci95=reads * 0.02, writes_per_s=writes, writes_per_s_ci95=writes * 0.02, violations=0)

DOCTOR_OK = [dict(probe="lazy-mm", result="ok", reason="GLOBAL_EXPEDITED reached every CPU"),
             dict(probe="register-cost", result="info", reason="registering with a thread running costs 0.1 ms",
                  measure=0.1, measure_unit="ms", evidence="REGISTER_PRIVATE_EXPEDITED in a fresh process: 1.5 us "
                  "with no other thread, 0.1 ms with one other thread running (66x; mean of 3 each)")]

def folder(name, ge=19000, pe=20000, lazy=False, reg=(1500, 100000), steal=0, load=True, dist=20000,
           drop=(), virt="guest (hypervisor synthetic)", doctor=True, scale=1.0, dscale=1.0, mpbad=False, tlb=None):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    host = {"hostname": "h", "kernel_release": "6.18.0", "machine": "x86_64", "cpu_model": "AMD EPYC",
            "cpus_online": "2", "virtualization": virt, "rcu_expedited": "0", "hz": "250"}
    if tlb:
        host["remote_tlb_flush"] = tlb
    run = {"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "interrupted": False,
           "points_planned": 8, "points_done": 8, "points_failed": [], "info": {"host": host},
           "points": [{"experiment": "calls", "start": "2026-12-03T00:00:00Z", "end": "2026-12-03T00:01:00Z",
                       "notes": ["harness overhead: null 1.9 ns/call through the harness, 2.0 ns/call in a bare "
                                 "loop, ratio 0.95 (goal <= 1.02)"]}]}
    if load:
        run["load"] = [{"point": f"calls:p{i}", "load_before": 0.1, "load_after": 1.2,
                        "steal_jiffies": steal, "total_jiffies": 100} for i in range(8)]
    json.dump(run, open(os.path.join(d, "run.json"), "w"))
    s = scale
    if "calls" not in drop:
        table(d, "calls", [calls("membarrier-private-expedited", 1, 1300 * s, 30),
                           calls("membarrier-private-expedited", 2, pe * s, 1000 * s),
                           calls("membarrier-global-expedited", 2, ge * s, 1000 * s),
                           calls("membarrier-global", 2, 8e6 * s, 8260, n=3),
                           calls("signal", 2, 25000 * s, 1000 * s), calls("mprotect", 2, 30000 * s, 2000 * s),
                           calls("signal", 3, 4.0e6, 600, n=12)])
    table(d, "distance", [dict(mechanism=m, level="core", caller_cpu=0, spinner_cpu=1, repeats=10, ns_per_call=v,
                               ns_per_call_ci95=v * 0.05)
                          for m, v in (("membarrier-private-expedited", dist), ("signal", 25000 * dscale),
                                       ("mprotect", 30000 * dscale))]
          + [dict(mechanism="membarrier-private-expedited", level="smt", status="skipped",
                  skip_reason="no SMT on this host")])
    table(d, "contend", [dict(mechanism="membarrier-private-expedited", mode="threads", callers=1, spinners=1,
                              repeats=10, aggregate_calls_per_s=5e4, aggregate_calls_per_s_ci95=2e3)])
    if "register" not in drop:
        table(d, "register", [dict(mechanism="membarrier-private-expedited", other_threads=0, repeats=10,
                                   register_ns=reg[0], register_ns_ci95=reg[0] * 0.05, steady_barrier_ns=1300),
                              dict(mechanism="membarrier-private-expedited", other_threads=1, repeats=10,
                                   register_ns=reg[1], register_ns_ci95=reg[1] * 0.05, steady_barrier_ns=20000)])
    if "disturb" not in drop:
        table(d, "disturb", [storm("membarrier-private-expedited", 0, "self-spin", 1.0, oncpu_fraction=1.01),
                             storm("membarrier-private-expedited", 1, "foreign-rt", -0.137, ci=0.2, p99_ns=31),
                             storm("membarrier-global", 0, "self-spin", 1.0, oncpu_fraction=1.0),
                             storm("membarrier-global", 1, "foreign-rt", 1.0, p99_ns=31),
                             storm("membarrier-global", 2, "idle", 0.0)])
    if "rcu" not in drop:
        table(d, "rcu", [rcu("signal", 1e9, 1e3), rcu("mb", 1e7, 1e6), rcu("membarrier-private-expedited", 4e8, 4e4)])
    table(d, "litmus", [dict(pairing="none", a_side="compiler", b_side="compiler", expect="allowed", trials=1000,
                             r1_0_r2_0=10, forbidden_per_million=10000), 
                        dict(pairing="membarrier-global-expedited", a_side="membarrier-global-expedited",
                             b_side="compiler", expect="forbidden", trials=100000, r1_0_r2_0=0,
                             forbidden_per_million=0),
                        dict(pairing="seed-v1-ipi-all", status="skipped",
                             skip_reason="needs the patched kernel (kernel-patch/)")])
    if doctor:
        rows = [dict(r) for r in DOCTOR_OK]
        if lazy:
            rows[0].update(result="affected", reason="GLOBAL_EXPEDITED skipped CPU 0", measure=0,
                           measure_unit="IPIs/barrier", fix="kernel-patch/fixes/0001.patch: refresh the state")
        if mpbad:
            rows.append(dict(probe="mprotect-barrier", result="affected", measure=0, measure_unit="IPIs/barrier",
                             reason="mprotect interrupted the running thread's CPU 0.00 times per barrier"))
        table(d, "doctor", rows)

folder("good")
folder("lazy", lazy=True)
folder("apart", ge=30000, pe=20000)
folder("same", reg=(1500, 1500), doctor=False)
folder("steal", steal=20)
folder("old", load=False)
folder("split", dist=40000, dscale=2)
folder("one", dist=40000)
folder("bare", drop=("rcu", "disturb", "register"), doctor=False)
folder("nocalls", drop=("calls",))
folder("doconly", drop=("register",))
folder("mpbad", mpbad=True, tlb='by hypercall (kernel log: "pvm-pv: remote TLB flushes via PVM_HC_FLUSH_TLB_MULTI")')
folder("mpunk", mpbad=True, tlb="by IPI (no invlpgb flag; the kernel log names no paravirtual flush)")
# The sweep marks the rows a doctor finding explains (mbassemble.assemble).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(src, "analysis"))
import mbassemble
for name in ("lazy", "good"):
    d = os.path.join(tmp, name)
    outs = {os.path.join(d, n): open(os.path.join(d, n)).read() for n in ("doctor.csv", "calls.csv", "litmus.csv")}
    mbassemble._mark_findings(d, outs)
    for p, t in outs.items():
        open(p, "w").write(t)
PY
ok $? "synthetic folders written from the schema"

rep() { "$MBBENCH" report "$TMP/$1" --output "$TMP/$1.md" 2>"$TMP/$1.err" || diag "$(cat "$TMP/$1.err")"; }
verdict() { sed -n '/^## Verdict/,/^## /p' "$TMP/$1.md"; }
for f in good lazy apart same steal old split one bare nocalls doconly mpbad mpunk; do rep $f; done

first=$(grep -m 1 '^## ' "$TMP/good.md")
n=$(verdict good | wc -l)
[ "$first" = "## Verdict" ] && [ "$n" -le 27 ]
ok $? "the Verdict is the first section, $n lines"

verdict good | grep -q 'Barrier at T=2\*\*: GLOBAL_EXPEDITED, 19.0 ± 1.0 µs; tie with PRIVATE_EXPEDITED 20.0 ± 1.0 µs'
ok $? "the cheapest barrier at T=2 with its CI, and a tie where the CIs overlap"

verdict apart | grep 'Barrier at T=2' | grep -q 'PRIVATE_EXPEDITED, 20.0 ± 1.0 µs (§calls)'
ok $? "no tie where the CIs are apart"

verdict lazy | grep 'Barrier at T=2' | grep -q 'PRIVATE_EXPEDITED, 20.0 ± 1.0 µs' &&
	verdict lazy | grep -q 'Not GLOBAL_EXPEDITED\*\*: skips CPUs.*whatever the registration order.*doctor lazy-mm: affected.*within a process use PRIVATE_EXPEDITED, across processes GLOBAL or a kernel with the fix' &&
	! verdict lazy | grep 'Barrier at T=2' | grep -q GLOBAL_EXPEDITED
ok $? "lazy-mm affected: GLOBAL_EXPEDITED is not recommended; PRIVATE_EXPEDITED within a process, GLOBAL across"

# Its rows say so: kernel_finding on GLOBAL_EXPEDITED's rows only, a line
# under calls and litmus, and its clean litmus trials not "as promised".
marked() { csv_cols "$TMP/$1/$2.csv" "$3" kernel_finding | awk -F'\t' '$2 != "" { print $1 "=" $2 }' | sort -u | tr '\n' ' '; }
[ "$(marked lazy calls mechanism)" = "membarrier-global-expedited=lazy-mm " ] &&
	[ "$(marked lazy litmus pairing)" = "membarrier-global-expedited=lazy-mm " ] &&
	[ -z "$(marked good calls mechanism)" ] &&
	[ "$(grep -c 'membarrier-global-expedited here measures a kernel bug' "$TMP/lazy.md")" -eq 1 ] &&
	! grep -q 'here measures a kernel bug' "$TMP/good.md" &&
	! grep 'as promised' "$TMP/lazy.md" | grep -q 'membarrier-global-expedited' &&
	grep 'as promised' "$TMP/good.md" | grep -q 'membarrier-global-expedited'
ok $? "lazy-mm affected: GLOBAL_EXPEDITED's rows carry kernel_finding and the report says once what they measure"

# Where the mprotect trick sends no IPI, the Verdict never offers it.
verdict mpbad | grep -q 'Not mprotect\*\*: does not interrupt.*doctor mprotect-barrier: affected' &&
	verdict mpbad | grep 'Without membarrier' | grep -qv mprotect &&
	verdict good | grep 'Without membarrier' | grep -q mprotect
ok $? "mprotect-barrier affected: mprotect is not offered, not even without membarrier"

# The cause is the one the host facts saw (remote_tlb_flush), or "not
# identified"; never one that was not seen (INVLPGB on a host without it).
verdict mpbad | grep 'Not mprotect' | grep -q 'remote_tlb_flush: by hypercall (kernel log: "pvm-pv: remote TLB flushes via PVM_HC_FLUSH_TLB_MULTI"); doctor mprotect-barrier: affected' &&
	verdict mpunk | grep 'Not mprotect' | grep -q '(cause not identified; doctor mprotect-barrier: affected)' &&
	! grep -qi 'invlpgb\|arm64' "$TMP/mpbad.md" && ! grep -q 'INVLPGB\|arm64\|hypercall' "$TMP/mpunk.md"
ok $? "mprotect-barrier affected: the Verdict names the cause the host facts saw, or says it is not identified"

! verdict good | grep -q 'Not GLOBAL_EXPEDITED' && ! verdict good | grep -q 'Kernel: lazy-mm affected'
ok $? "lazy-mm ok: GLOBAL_EXPEDITED is not excluded and no finding is claimed"

# Said once: the Verdict's "Not" line carries the finding and its fix, the
# Kernel section its row; What this host changes is the host's, not the kernel's.
verdict lazy | grep -q 'Not GLOBAL_EXPEDITED.*kernel with the fix (kernel-patch/fixes/0001.patch)' &&
	! verdict lazy | grep -q 'Kernel: lazy-mm affected' &&
	sed -n '/^## Kernel/,/^## /p' "$TMP/lazy.md" | grep -q '| lazy-mm | affected |' &&
	! sed -n '/^## What this host changes/,/^## /p' "$TMP/lazy.md" | grep -q 'lazy-mm'
ok $? "the kernel finding once in the Verdict (with its fix), in §Kernel, not in What this host changes"

verdict good | grep -q 'Without membarrier\*\* (T=2): signal 25.0 ± 1.0 µs; mprotect 30.0 ± 2.0 µs'
ok $? "the best fallback without membarrier, cheapest first"

verdict good | grep -q 'Registration\*\*: register before creating threads: 1.50 ± 0.08 µs with no other thread, 100 ± 5 µs with 1 running' &&
	verdict doconly | grep -q 'Registration\*\*: register before creating threads (doctor); register.csv not measured; doctor register-cost: 1.5 us with no other thread, 0.1 ms'
ok $? "registration: before threads exist, with both costs (register.csv, or doctor's alone)"

verdict same | grep -q 'Registration\*\*: the order makes no measurable difference' &&
	! verdict same | grep -q 'register before'
ok $? "registration: no order claimed where both costs are equal (doctor says nothing else)"

verdict good | grep -q 'Interrupts.*PRIVATE_EXPEDITED: own threads; GLOBAL: realtime, own threads'
ok $? "the CPUs each mechanism interrupts, realtime only where it did"

verdict good | grep -q 'RCU\*\*: reads dominate: signal.*writes dominate: mb.*write share of 0.0099%'
ok $? "RCU: the best scheme each way and the break-even write share from the rates"

! verdict good | grep -q 'rerun' && verdict good | grep -q 'steal 0% over 8 points; experiments agree'
ok $? "a quiet run: load and steal recorded, experiments agree, no rerun advice"

verdict steal | grep -q 'Disturbed (steal 20% > 5%): rerun on a quieter host'
ok $? "steal time above 5%: disturbed, rerun on a quieter host"

verdict old | grep -q 'load and steal time not recorded'
ok $? "a folder without the load record says not recorded"

verdict split | grep -q 'experiments disagree for 3 of 3 mechanisms (PRIVATE_EXPEDITED' &&
	verdict split | grep -q 'rerun on a quieter host' &&
	verdict one | grep -q 'experiments disagree for 1 of 3 mechanisms (PRIVATE_EXPEDITED' &&
	! verdict one | grep -q 'rerun' &&
	grep -q '^| membarrier-private-expedited | 20.0 ± 1.0 µs | 40.0 ± 2.0 µs | 20.0 ± 0.8 µs | 20 µs | no: calls T=2 vs distance core |' "$TMP/split.md"
ok $? "calls and distance disagree: the table says no, the Verdict says so; for most mechanisms the run is disturbed"

verdict bare | grep -q 'RCU\*\*: not measured' && verdict bare | grep -q 'Interrupts\*\*: not measured' &&
	verdict bare | grep -q 'Registration\*\*: not measured' && verdict bare | grep -q 'Kernel\*\*: not probed' &&
	verdict nocalls | grep -q 'Barrier\*\*: not measured'
ok $? "a missing experiment: its line says not measured"

grep -q '8.0 ms (n=3)' "$TMP/good.md" && ! grep -q '8.26' "$TMP/good.md"
ok $? "no CI from 3 repeats: n instead, and no digit beyond it"

grep -q '1 tick at HZ=250' "$TMP/good.md"
ok $? "a cost of one scheduler tick is flagged as the tick's"

grep -q 'a difference: the storm.s less the baseline.s' "$TMP/good.md" && grep -q '| -0.14 ± 0.20 |' "$TMP/good.md" &&
	grep -q '| +1.000 ± 0.010 (oncpu 1.00) |' "$TMP/good.md" && ! grep -q 'oncpu 1.01' "$TMP/good.md" &&
	grep -q 'no effect measurable (loop floor)' "$TMP/good.md"
ok $? "disturb: IPIs per barrier as a signed difference, oncpu within 0-1, a victim at its loop floor has no effect measurable"

grep -q 'ratio 0.95; within a few % of 1 either way (below 1 too) is noise' "$TMP/good-appendix.md" &&
	! grep -q 'goal <=' "$TMP/good.md" "$TMP/good-appendix.md" && grep -q 'are in `good-appendix.md`' "$TMP/good.md"
ok $? "a harness ratio below 1 is explained as noise, with no pass or fail (in the appendix the report names)"

! grep -q '?' "$TMP/good.md" && grep -q '^- needs the patched kernel (kernel-patch/): seed-v1-ipi-all; in litmus (1 row)' "$TMP/good.md"
ok $? "no ? label; a skip reason is one line naming its points and the experiments it skipped"

grep -q 'oversubscribed' "$TMP/good.md" && grep -q 'rcu readers / writers 6 / 2 against 1 / 1' "$TMP/good-appendix.md" &&
	! grep -q '^## Fidelity' "$TMP/good.md"
ok $? "oversubscribed points flagged; fidelity (the appendix's): the configurations side by side"

# The reference rule, on a reference directory of the test's own.
"$PY" - "$TMP" "$src" <<'PY'
import os, shutil, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "analysis"))
from mbresults import host, load_folder
import verdict
ref = os.path.join(tmp, "ref")
os.makedirs(ref)
shutil.copytree(os.path.join(tmp, "good"), os.path.join(ref, "same-class"))
run, data = load_folder(os.path.join(tmp, "good"))
parts, why = verdict.run_quality(run, data, host(run), ref)
assert any("1x the reference same-class" in p for p in parts) and not why, (parts, why)
# Twice the reference's costs: disturbed.
for f in os.listdir(ref):
    shutil.rmtree(os.path.join(ref, f))
shutil.copytree(os.path.join(tmp, "good"), os.path.join(ref, "half"))
import csv
rows = list(csv.DictReader(open(os.path.join(ref, "half", "calls.csv"))))
for r in rows:
    r["ns_per_call"] = str(float(r["ns_per_call"]) / 2)
with open(os.path.join(ref, "half", "calls.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
parts, why = verdict.run_quality(run, data, host(run), ref)
# Twice a reference's costs is another host, never a disturbed run.
assert any("2x the reference half" in p and "another host of this class" in p for p in parts) and not why, \
    (parts, why)
# Another CPU generation under the same name: not compared.
import json
rj = os.path.join(ref, "half", "run.json")
r = json.load(open(rj))
r["info"]["host"]["cpu_id"] = "AuthenticAMD family 25 model 1 stepping 1"
json.dump(r, open(rj, "w"))
run["info"]["host"]["cpu_id"] = "AuthenticAMD family 25 model 17 stepping 0"
parts, why = verdict.run_quality(run, data, host(run), ref)
assert any("another CPU generation (AuthenticAMD family 25 model 1 stepping 1; this host: "
           "AuthenticAMD family 25 model 17 stepping 0)" in p for p in parts) and not why, (parts, why)
assert not any("x the reference" in p for p in parts), parts
run["info"]["host"]["cpu_id"] = r["info"]["host"]["cpu_id"]
parts, why = verdict.run_quality(run, data, host(run), ref)
assert any("2x the reference half" in p for p in parts), parts
# Another hypervisor: not compared.
run["info"]["host"]["virtualization"] = "guest (hypervisor bhyve bhyve )"
run["info"]["host"]["hypervisor_features"] = "unknown (hypervisor 'bhyve bhyve ' does not describe its features here)"
parts, why = verdict.run_quality(run, data, host(run), ref)
assert any("another hypervisor" in p for p in parts) and not why, (parts, why)
# A folder recorded before CPUID's padding was trimmed reads without it.
assert host(run)["virtualization"] == "guest (hypervisor bhyve bhyve)", host(run)
assert "'bhyve bhyve' does" in host(run)["hypervisor_features"], host(run)
# The run's own evidence: repeats left out and why; the floor's drift.
calls = data["calls"]
assert any("no repeat was left out" in p for p in parts), parts
calls[1]["repeats_degraded"], calls[1]["degraded_reason"] = "4", "a target thread was on its CPU 52% of the repeat: another task had it 47%"
calls[1]["floor_ns"], calls[2]["floor_ns"] = "15000", "20000"
parts, why = verdict.run_quality(run, data, host(run), ref)
assert any("4 repeats at 1 point left out and measured again: 4 because another task had the target's CPU"
           in p for p in parts) and not why, (parts, why)
assert any("the delivery floor at T=2 15-20 µs over 2 points (1.3x)" in p for p in parts), parts
calls[2]["floor_ns"] = "60000"
parts, why = verdict.run_quality(run, data, host(run), ref)
assert why == ["the delivery floor moved 4x between points"], (parts, why)
# When in the run: the processes' own stamps (a busy task 10-20 s in).
# Each cause with its own stretch: another task 10-20 s in, fewer IPIs
# than due all along (a straggler at 35 s left out of nine in ten).
TASK = "a target thread was on its CPU 52% of the repeat: another task had it 47%"
FEWER = "0.5 IPIs per barrier, fewer than the 1 due, with its target on its CPU 99% of the repeat"
def env(a, b, n, why=TASK):
    return {"start": f"2026-12-07T01:00:{a:02d}Z", "end": f"2026-12-07T01:00:{b:02d}Z",
            "points": [{"mechanism": "x", "repeats_degraded": str(n), "degraded_reason": why}]}
run["points"] = [env(0, 5, 0), env(5, 10, 0), env(10, 15, 2), env(15, 20, 2), env(20, 40, 0)] + \
    [env(t, t + 1, 1, FEWER) for t in range(0, 10)] + [env(35, 36, 1, FEWER)]
parts, why = verdict.run_quality(run, data, host(run), ref)
assert any("measured again: 11 because fewer IPIs than due with the targets on their CPUs (11 processes, nine in "
           "ten of them between 0 s and 10 s of the run's 40 s); 4 because another task had the target's CPU "
           "(2 processes, between 10 s and 20 s of the run's 40 s)" in p for p in parts), parts
PY
ok $? "a reference of the host class is compared, never judged (2x is another host), another CPU generation or hypervisor is not compared, an old folder's CPUID padding trimmed; repeats left out (and when in the run) and the floor's drift come from the run itself"

# The sweep's load record: raw/load.txt into run.json, and a folder without it.
"$PY" - "$TMP" "$src" <<'PY'
import json, os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "analysis"))
import mbassemble
for name, load in (("withload", "calls null 0.10 1.20 3 200\ncalls fence - - - -\n"), ("noload", None)):
    d = os.path.join(tmp, name)
    raw = os.path.join(d, "raw")
    for p in ("calls-null", "calls-fence"):
        os.makedirs(os.path.join(raw, p))
        open(os.path.join(raw, p, "calls.json"), "w").write('{"experiment": "calls"}')
        open(os.path.join(raw, p, "calls.csv"), "w").write("mechanism,status\nx,ok\n")
    open(os.path.join(raw, "points.txt"), "w").write("calls null ok\ncalls fence ok\n")
    open(os.path.join(raw, "info.json"), "w").write('{"host": {}}')
    if load:
        open(os.path.join(raw, "load.txt"), "w").write(load)
    mbassemble.assemble(d, "quick", 2, False)
    run = json.load(open(os.path.join(d, "run.json")))
    if load:
        assert run["load"] == [{"point": "calls:null", "load_before": 0.1, "load_after": 1.2, "steal_jiffies": 3,
                                "total_jiffies": 200},
                               {"point": "calls:fence", "load_before": None, "load_after": None,
                                "steal_jiffies": None, "total_jiffies": None}], run["load"]
    else:
        assert "load" not in run
# A damaged load.txt stops the assembly with one line.
open(os.path.join(tmp, "withload", "raw", "load.txt"), "w").write("calls null x\n")
try:
    mbassemble.assemble(os.path.join(tmp, "withload"), "quick", 2, False)
    sys.exit("a damaged load.txt was accepted")
except mbassemble.AssembleError as e:
    assert "load.txt:1" in str(e), e
PY
ok $? "raw/load.txt becomes run.json's load; a folder without it has none; a damaged one is refused"

grep -q 'loadrecord "$exp" "$name"' "$src/bench/sweep" && grep -q '/proc/loadavg' "$src/bench/common.sh" &&
	grep -q '/proc/stat' "$src/bench/common.sh"
ok $? "the sweep records the load average and steal time around every point it runs"
