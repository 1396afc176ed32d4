#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench vm semantics' assembly (analysis/mbtool.py vm-semantics) on
# synthetic guests' folders written from the result schema: each
# architecture's disturb replicates merged into one row per (mechanism,
# kind of CPU) with its CI over the processes, arm64's missing TLB count
# said as broadcast TLBI rather than a zero, signals per barrier, a
# mechanism no guest could run in one line, each guest's doctor probes,
# a guest that measured nothing as a skipped row with its reason, the
# patched kernels' guests (ARCH-fixed, ARCH-unfixed) as columns of their
# own, what differs between kernels and architectures in sentences, a
# guest with doctor only as a doctor line, and guests of two kernel
# sources (ARCH-SOURCE-KERNEL, vm semantics --source 6.1,7.3) with what
# differs between the sources said, or that nothing does.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}

need_python
plan 8

"$PY" - "$TMP" "$src" <<'PY'
import os, sys
tmp, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests"))
from synth import Tables
table = Tables(src).write

def storm(m, role, ipb, n=200, tlb="", sig=""):
    return dict(mechanism=m, round=0, role=role, cpu=1, phase="storm", elapsed_s=0.2, barriers=n,
                ipis=int(ipb * n), ipis_per_barrier=ipb, tlb_per_barrier=tlb, signals=sig, oncpu_fraction=1)

for arch, mp, tlb in (("x86_64", (1.0, 0.98, 1.02), "1"), ("arm64", (0.0, 0.0, 0.005), "")):
    d = os.path.join(tmp, "out", arch)
    os.makedirs(d)
    open(os.path.join(d, "release"), "w").write("6.1.0-57-" + ("amd64" if arch == "x86_64" else "arm64") + "\n")
    for i, v in enumerate(mp, 1):
        table(os.path.join(d, f"disturb.{i}", "disturb.csv"), "disturb", [
            storm("mprotect", "self-spin", v, tlb=tlb),
            storm("membarrier-private-expedited", "self-spin", 1.0),
            storm("signal", "self-sleep", 1.0, sig=200),
            dict(mechanism="seed-v1-ipi-all", role="self-spin", phase="storm", status="skipped",
                 skip_reason="needs the patched kernel (kernel-patch/)")])
    table(os.path.join(d, "doctor", "doctor.csv"), "doctor", [
        dict(probe="mprotect-barrier", result="ok" if arch == "x86_64" else "affected")])
os.makedirs(os.path.join(tmp, "dead", "arm64"))
# The patched kernels: arm64-fixed measured the seed designs (v5 reaching
# no CPU) and GLOBAL_EXPEDITED reaching the caller's thread, which
# arm64-unfixed's misses; x86_64-unfixed in a folder of its own ran
# doctor only (its disturb failed).
for g in ("arm64", "arm64-fixed", "arm64-unfixed"):
    d = os.path.join(tmp, "both", g)
    os.makedirs(d)
    open(os.path.join(d, "release"), "w").write("6.1.0-57-arm64\n" if g == "arm64" else "Linux 6.1.192 with the seed series\n")
    for i in (1, 2):
        table(os.path.join(d, f"disturb.{i}", "disturb.csv"), "disturb", [
            storm("membarrier-private-expedited", "self-spin", 1.0),
            storm("membarrier-global-expedited", "self-spin", 0.0 if g == "arm64-unfixed" else 1.0),
            storm("seed-v5-expedited", "self-spin", 0.0) if g != "arm64" else
            dict(mechanism="seed-v5-expedited", role="self-spin", phase="storm", status="skipped",
                 skip_reason="needs the patched kernel (kernel-patch/)")])
    table(os.path.join(d, "doctor", "doctor.csv"), "doctor", [
        dict(probe="lazy-mm", result="ok" if g == "arm64-fixed" else "affected")])
d = os.path.join(tmp, "doconly", "x86_64-unfixed")
os.makedirs(d)
open(os.path.join(d, "release"), "w").write("Linux 6.1.192 with the seed series\n")
table(os.path.join(d, "doctor", "doctor.csv"), "doctor", [dict(probe="lazy-mm", result="affected")])
# Two sources: on x86_64 stock, 7.3 interrupts a running thread's CPU with
# mprotect where 6.1 does not, and doctor's rseq-restart differs; the
# fixed kernels agree on everything.
for src in ("6.1", "7.3"):
    for k in ("stock", "fixed"):
        d = os.path.join(tmp, "srcs", f"x86_64-{src}-{k}")
        os.makedirs(d)
        open(os.path.join(d, "release"), "w").write(f"Linux {src}\n")
        mp = 0.0 if (src, k) == ("6.1", "stock") else 1.0
        for i in (1, 2):
            table(os.path.join(d, f"disturb.{i}", "disturb.csv"), "disturb", [
                storm("mprotect", "self-spin", mp, tlb="1"),
                storm("membarrier-private-expedited", "self-spin", 1.0)])
        table(os.path.join(d, "doctor", "doctor.csv"), "doctor", [
            dict(probe="lazy-mm", result="ok" if k == "fixed" else "affected"),
            dict(probe="rseq-restart", result="affected" if (src, k) == ("7.3", "stock") else "ok")])
# riscv64: mprotect reaches no one (the SBI remote fence, as doctor's
# evidence says), v5 reaches the thread (mm_cpumask kept), SYNC_CORE is
# offered, the lazy-mm bug on the unfixed kernel and not on the fixed one.
for k in ("unfixed", "fixed"):
    d = os.path.join(tmp, "rv", f"riscv64-{k}")
    os.makedirs(d)
    open(os.path.join(d, "release"), "w").write("Linux 7.3.4 with the seed series\n")
    for i in (1, 2):
        table(os.path.join(d, f"disturb.{i}", "disturb.csv"), "disturb", [
            storm("mprotect", "self-spin", 0.0),
            storm("seed-v5-expedited", "self-spin", 1.0),
            storm("membarrier-private-expedited-sync-core", "self-spin", 1.0),
            storm("membarrier-global-expedited", "self-spin", 1.0 if k == "fixed" else 0.0)])
    table(os.path.join(d, "doctor", "doctor.csv"), "doctor", [
        dict(probe="lazy-mm", result="ok" if k == "fixed" else "affected"),
        dict(probe="sync-core", result="ok"),
        dict(probe="mprotect-barrier", result="affected",
             evidence="control 1.000; mprotect 0.000; remote TLB flushes: by SBI call to the firmware's remote fence")])
PY
ok $? "synthetic guests' folders written from the schema"

"$PY" -I "$src/analysis/mbtool.py" vm-semantics "$TMP/out" x86_64 arm64 2>"$TMP/err" &&
	"$PY" -I "$src/analysis/mbtool.py" vm-semantics "$TMP/dead" arm64 2>>"$TMP/err"
ok $? "assembled ($(head -c 200 "$TMP/err"))"
sed 's/^/# /' "$TMP/out/semantics.md"

csv_cols "$TMP/out/semantics.csv" arch mechanism role ipis_per_barrier ipis_per_barrier_ci95 replicates tlb_note >"$TMP/rows"
grep -q "^arm64	mprotect	self-spin	0.001.*	3	no TLB-shootdown IPIs on this architecture (broadcast TLBI)$" "$TMP/rows" &&
	grep -q "^x86_64	mprotect	self-spin	1	0.0[0-9]*	3	$" "$TMP/rows"
ok $? "one row per (architecture, mechanism, CPU): the replicates' mean and CI; arm64's TLB said, not zero"

grep -q '^| mprotect | a CPU running a thread of the caller.s process | +1.000 ± 0.0[0-9]* | +0.002 ± 0.0[0-9]* |$' "$TMP/out/semantics.md" &&
	grep -q '^| signal | a sleeping thread.s CPU (of the caller.s process) | +1.000 ± 0.000, 1.00 signals | +1.000 ± 0.000, 1.00 signals |$' "$TMP/out/semantics.md" &&
	grep -q '^Not measured: seed-v1-ipi-all (needs the patched kernel (kernel-patch/))\.$' "$TMP/out/semantics.md" &&
	! grep -q '^| seed-v1-ipi-all' "$TMP/out/semantics.md" &&
	grep -q '^mbbench doctor on arm64 (6.1.0-57-arm64): mprotect-barrier: affected\.$' "$TMP/out/semantics.md" &&
	grep -q '^\*\*What differs between the architectures\.\*\* .*: mprotect (x86_64 +1.000, arm64 +0.002)\.$' "$TMP/out/semantics.md"
ok $? "semantics.md: the architectures side by side, signals, the absent mechanism in one line, doctor per guest, what differs said"

[ "$(csv_col "$TMP/dead/semantics.csv" status)" = skipped ] &&
	csv_col "$TMP/dead/semantics.csv" skip_reason | grep -q 'the arm64 guest (stock kernel) measured nothing'
ok $? "a guest that measured nothing: a skipped row with its reason"

"$PY" -I "$src/analysis/mbtool.py" vm-semantics "$TMP/both" arm64 arm64-unfixed arm64-fixed 2>"$TMP/err" &&
	"$PY" -I "$src/analysis/mbtool.py" vm-semantics "$TMP/doconly" x86_64-unfixed 2>>"$TMP/err" &&
	sed 's/^/# /' "$TMP/both/semantics.md" &&
	grep -q '^| mechanism | CPU | arm64 (stock) | arm64 (unfixed) | arm64 (fixed) |$' "$TMP/both/semantics.md" &&
	grep -q '^| seed-v5-expedited | a CPU running a thread of the caller.s process | skipped: needs the patched kernel (kernel-patch/) | +0.000 ± 0.000 | +0.000 ± 0.000 |$' "$TMP/both/semantics.md" &&
	grep -q '^\*\*What differs between the kernels\.\*\* .*membarrier-global-expedited (arm64 (stock) +1.000, arm64 (fixed) +1.000, arm64 (unfixed) +0.000): the fix.s doing' "$TMP/both/semantics.md" &&
	grep -q '^\*\*Orders nothing there:\*\* membarrier-global-expedited on arm64 (unfixed); seed-v5-expedited on arm64 (unfixed); seed-v5-expedited on arm64 (fixed):' "$TMP/both/semantics.md" &&
	grep -q '^\*\*The GLOBAL_EXPEDITED lazy-mm bug\*\* .*: affected on arm64 (stock), arm64 (unfixed); ok on arm64 (fixed)\.$' "$TMP/both/semantics.md" &&
	csv_cols "$TMP/both/semantics.csv" kernel_build mechanism ipis_per_barrier | grep -q '^fixed	seed-v5-expedited	0$' &&
	grep -q 'x86_64 (unfixed) on Linux 6.1.192 with the seed series (doctor only)' "$TMP/doconly/semantics.md" &&
	grep -q '^mbbench doctor on x86_64 (unfixed) (Linux 6.1.192 with the seed series): lazy-mm: affected\.$' "$TMP/doconly/semantics.md" &&
	[ "$(wc -l <"$TMP/doconly/semantics.csv")" -eq 1 ]
ok $? "the patched kernels' guests: a column each, what differs between kernels and architectures said, a guest with doctor only a line, no rows"

"$PY" -I "$src/analysis/mbtool.py" vm-semantics "$TMP/srcs" x86_64-6.1-stock x86_64-6.1-fixed \
	x86_64-7.3-stock x86_64-7.3-fixed 2>"$TMP/err" &&
	sed 's/^/# /' "$TMP/srcs/semantics.md" &&
	grep -q '^| mechanism | CPU | x86_64 6.1 (stock) | x86_64 6.1 (fixed) | x86_64 7.3 (stock) | x86_64 7.3 (fixed) |$' "$TMP/srcs/semantics.md" &&
	grep -q '^\*\*What differs between 6.1 and 7.3\.\*\* x86_64 (stock): mprotect (7.3 +1.000, 6.1 +0.000); doctor rseq-restart: 6.1 ok, 7.3 affected\.$' "$TMP/srcs/semantics.md" &&
	grep -q '^\*\*The same on 6.1 and 7.3:\*\* x86_64 (fixed): ' "$TMP/srcs/semantics.md"
ok $? "two kernel sources: a column each, what differs between them said per kernel, and where nothing does"

"$PY" -I "$src/analysis/mbtool.py" vm-semantics "$TMP/rv" riscv64-unfixed riscv64-fixed 2>"$TMP/err" &&
	sed 's/^/# /' "$TMP/rv/semantics.md" &&
	csv_cols "$TMP/rv/semantics.csv" arch mechanism tlb_note | grep -q '^riscv64	mprotect	no TLB-shootdown row on riscv64 (an SBI remote fence, or a function-call IPI)$' &&
	grep -q "^\*\*On riscv64:\*\* mprotect reaches a running thread's CPU riscv64 (unfixed) +0.000, riscv64 (fixed) +0.000 IPIs per barrier (doctor mprotect-barrier: affected; remote TLB flushes: by SBI call to the firmware's remote fence); the seed's v5 .*: it reaches the thread's CPU, so the kernel keeps mm_cpumask; SYNC_CORE is offered and reaches the thread's CPU .*(doctor sync-core: ok); doctor lazy-mm affected on riscv64 (unfixed), ok on riscv64 (fixed); the fixed kernel is the unfixed tree with the same fix" "$TMP/rv/semantics.md" &&
	grep -q '^TCG runs a riscv64 guest ' "$TMP/rv/semantics.md"
ok $? "riscv64: its TLB note, and its answers in a sentence (mprotect and its cause, v5 and mm_cpumask, SYNC_CORE, lazy-mm and the fix)"
