#!/bin/sh
# SPDX-License-Identifier: MIT
# Host facts that change the numbers, read from a made-up /sys and /proc
# (MBBENCH_SYSROOT), and the report's "What this host changes": each rule
# explained by its fact, or "unexplained" when the fact is absent.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 10
R=$TMP/root
mkdir -p "$R/sys/kernel" "$R/sys/devices/system/cpu/vulnerabilities" "$R/sys/devices/system/cpu/smt" "$R/proc/sys/kernel"
echo 1 >"$R/sys/kernel/rcu_expedited"
echo 0 >"$R/sys/kernel/rcu_normal"
echo 2-3 >"$R/sys/devices/system/cpu/nohz_full"
echo 2-3 >"$R/sys/devices/system/cpu/isolated"
echo "Mitigation: PTI" >"$R/sys/devices/system/cpu/vulnerabilities/meltdown"
echo on >"$R/sys/devices/system/cpu/smt/control"
echo 1 >"$R/sys/devices/system/cpu/smt/active"
echo -1 >"$R/proc/sys/kernel/sched_rt_runtime_us"
printf '           CPU0       CPU1\n TLB:          0          0   TLB shootdowns\n' >"$R/proc/interrupts"
# Two CPUs of one family, model and stepping; the second's are not read.
printf 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nstepping\t: 0\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\nstepping\t: 0\n' >"$R/proc/cpuinfo"

MBBENCH_SYSROOT=$R "$MBBENCH" info --json - >"$TMP/info.json" 2>"$TMP/e"
"$PY" - "$TMP/info.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h, s = d["host"], d["host_sources"]
want = {"rcu_expedited": "1", "rcu_normal": "0", "nohz_full": "2-3", "isolated": "2-3",
        "sched_rt_runtime_us": "-1", "tlb_shootdowns_since_boot": "0", "vulnerabilities": "meltdown: Mitigation: PTI",
        "smt": "on (active 1)", "cpu_id": "AuthenticAMD family 25 model 17 stepping 0"}
bad = {k: h.get(k) for k, v in want.items() if h.get(k) != v}
assert not bad, bad
assert s["rcu_expedited"] == "/sys/kernel/rcu_expedited", s
PY
ok $? "info --json: the made-up host's facts, each with where it came from (cpu_id from the first CPU's block)"
"$PY" - "$TMP/info.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["host"]
for k in ("rcu_expedited", "rcu_normal", "nohz_full", "isolated", "preemption", "hz", "kernel_config",
          "vulnerabilities", "smt", "cpuidle", "sched_rt_runtime_us", "hypervisor_features",
          "membarrier_ipi_serialized", "suite_version", "suite_commit", "compiler", "cflags",
          "tlb_shootdowns_since_boot", "cpu_id", "paravirt_interface", "remote_tlb_flush"):
    assert h.get(k), k
    assert k in d["host_sources"], k
PY
ok $? "every host fact is present with a source (or says unknown)"
# The hypervisor's name without CPUID's padding (bhyve signs "bhyve bhyve "):
# no fact ends in a space, none has one before a closing quote or bracket
# (on a bhyve-signed host, such as a PVM guest, this failed before the trim).
"$PY" - "$TMP/info.json" <<'PY'
import json, re, sys
h = json.load(open(sys.argv[1]))["host"]
bad = {k: v for k, v in h.items() if re.search(r"\s$|\s['\"](\s|$|\))|\s[)\]]", v)}
assert not bad, bad
PY
ok $? "no host fact carries padding ($("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["virtualization"])' "$TMP/info.json"))"
MBBENCH_SYSROOT=$R "$MBBENCH" list | grep -A1 '^membarrier-global  ' | grep -q 'expedited on this host (rcu_expedited=1)'
ok $? "mbbench list words membarrier-global after the host (rcu_expedited=1)"

# Synthetic folders for the report's rules.
folder() { # name rcu_expedited tlb global_ns mprotect_tlb
	"$PY" - "$TMP/$1" "$2" "$3" "$4" "$5" <<'PY'
import json, os, sys
d, rcu, tlb, gns, mtlb = sys.argv[1:]
os.makedirs(d)
# The clean host is bare metal: a guest's IPIs are VM exits, which the report names.
host = {"hostname": "h", "kernel_release": "6.18",
        "virtualization": "none" if d.endswith("clean") else "guest (hypervisor KVMKVMKVM)",
        "rcu_expedited": rcu, "tlb_shootdowns_since_boot": tlb, "hz": "250"}
json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "points_done": 2, "points_planned": 2,
           "info": {"host": host}, "points": []}, open(os.path.join(d, "run.json"), "w"))
open(os.path.join(d, "calls.csv"), "w").write(
    "mechanism,threads,behaviour,scope,placement,cpus,oversubscribed,repeats,calls_per_repeat,ns_per_call,"
    "ns_per_call_stddev,ns_per_call_ci95,calls_per_s,calls_per_s_ci95,cv,status,skip_reason\n"
    f"membarrier-global,1,spin,same-process,compact,0,0,3,10,{gns},1,1,1,1,0.01,ok,\n")
cols = ("mechanism,round,role,cpu,phase,victim,policy,rate_per_s,elapsed_s,barriers,ipi_source,ipis,"
        "ipis_per_barrier,mb_ipis,mb_ipis_per_barrier,tlb_shootdowns,tlb_per_barrier,idle_entries,signals,"
        "oncpu_fraction,samples,p50_ns,p99_ns,p999_ns,max_ns,status,skip_reason")
open(os.path.join(d, "disturb.csv"), "w").write(
    cols + "\n" + f"mprotect,1,self-spin,1,storm,mbbench,SCHED_OTHER,1000,1,1000,proc,0,0,,,0,{mtlb},,,0.99,0,,,,,ok,\n")
PY
}
# What this host changes: a part of "## Kernel and host", from its line on.
changes() { sed -n '/^What this host changes/,/^## /p' "$TMP/$1/report.md"; }
folder expedited 1 5 16000 0 && "$MBBENCH" report "$TMP/expedited" 2>"$TMP/e1" &&
	changes expedited | grep 'membarrier-global costs a grace period' | grep -q 'rcu_expedited=1'
ok $? "rcu_expedited=1: the fast membarrier-global is explained by it ($(cat "$TMP/e1"))"
folder normal 0 5 16000 1 && "$MBBENCH" report "$TMP/normal" 2>/dev/null &&
	changes normal | grep 'membarrier-global costs a grace period' | grep -q '\*\*unexplained\*\*'
ok $? "rcu_expedited=0 and a 16 µs membarrier-global: **unexplained**"
folder notlb 0 0 8000000 0 && "$MBBENCH" report "$TMP/notlb" 2>/dev/null &&
	changes notlb | grep 'mprotect causes one TLB shootdown' | grep -q 'not observable'
ok $? "a TLB counter that never moved: mprotect's shootdowns are not observable"
! changes notlb | grep -q 'membarrier-global'
ok $? "an 8 ms membarrier-global is what is expected: no line for it"
folder tlbzero 0 5 8000000 0 && "$MBBENCH" report "$TMP/tlbzero" 2>/dev/null &&
	changes tlbzero | grep 'mprotect causes one TLB shootdown' | grep -q '\*\*unexplained\*\*'
ok $? "a TLB counter that moves but no shootdown on the self-spin CPU: **unexplained**"
folder clean 0 5 8000000 1 && "$MBBENCH" report "$TMP/clean" 2>/dev/null &&
	changes clean | grep -q 'nothing measured here left what the mechanism does' &&
	changes notlb | grep 'an IPI costs what it costs on bare metal' | grep -q 'VM exit'
ok $? "a host that changes nothing says so; a guest is named for its IPIs"
done_testing
