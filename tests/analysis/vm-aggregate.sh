#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/vm's guests run each point in several processes (--replicates):
# vmscale.csv and isolation.csv give each count as the mean over them with
# a t-interval from their spread, say how many there were, and still read
# a folder of one process per point. Synthetic guest output, no QEMU.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 4
PY=$top_srcdir/analysis/mbtool.py
HEAD="mechanism,round,role,cpu,phase,victim,policy,rate_per_s,elapsed_s,barriers,ipi_source,ipis,ipis_per_barrier,mb_ipis,mb_ipis_per_barrier,tlb_shootdowns,tlb_per_barrier,ipis_per_barrier_ci95,mb_ipis_per_barrier_ci95,tlb_per_barrier_ci95,idle_entries,signals,oncpu_fraction,samples,p50_ns,p99_ns,p999_ns,max_ns,repeats,p50_ns_ci95,p99_ns_ci95,p999_ns_ci95,status,skip_reason"
# guest DIR MECH SELF IDLE: one process's disturb.csv with storm rows
guest() {
	mkdir -p "$1"
	{
		echo "$HEAD"
		echo "$2,0,caller,0,storm,mbbench,SCHED_OTHER,100,1,100,proc,0,0,,,,,,,,0,0,1,100,1,2,3,4,1,,,,ok,"
		echo "$2,0,self-spin,1,storm,mbbench,SCHED_OTHER,100,1,100,proc,0,$3,,,,,0.01,,,0,0,1,100,1,2,3,4,1,,,,ok,"
		echo "$2,0,idle,2,storm,mbbench,SCHED_OTHER,100,1,100,proc,0,$4,,,,,0.01,,,0,0,1,100,1,2,3,4,1,,,,ok,"
		echo "$2,0,idle,3,baseline,mbbench,SCHED_OTHER,100,1,100,proc,0,9,,,,,0.01,,,0,0,1,100,1,2,3,4,1,,,,ok,"
	} >"$1/disturb.csv"
}
# scale: -smp 4, k=1 in three processes (1.0, 1.2, 1.1 on the thread's
# CPU, 0, 0.3, 0 on an idle one); k=3 in one (an older folder's layout).
o=$TMP/scale
guest "$o/raw/smp4/k1.1" seed-v5-expedited 1.0 0
guest "$o/raw/smp4/k1.2" seed-v5-expedited 1.2 0.3
guest "$o/raw/smp4/k1.3" seed-v5-expedited 1.1 0
guest "$o/raw/smp4/k3" seed-v5-expedited 3.0 0
"${PYTHON3:-python3}" "$PY" vm-aggregate scale "$o" 4 2-3 default /boot/x >"$TMP/out" 2>&1
ok $? "vm-aggregate scale on three processes and one"
"${PYTHON3:-python3}" - "$o/vmscale.csv" <<'PY'
import csv, sys
r = {x["k"]: x for x in csv.DictReader(open(sys.argv[1]))}
a, b = r["1"], r["3"]
# totals 1.0, 1.5, 1.1: mean 1.2, sd 0.2646, t(2) 4.303 -> 0.657
assert a["replicates"] == "3" and a["barriers"] == "300", a
assert abs(float(a["ipis_per_barrier_total"]) - 1.2) < 1e-3, a
assert abs(float(a["ipis_per_barrier_total_ci95"]) - 0.657) < 2e-3, a
assert abs(float(a["ipis_per_barrier_self"]) - 1.1) < 1e-3 and abs(float(a["ipis_per_barrier_idle"]) - 0.1) < 1e-3, a
assert b["replicates"] == "1" and b["ipis_per_barrier_total_ci95"] == "" and b["ipis_per_barrier_total"] == "3.000", b
PY
ok $? "k=1: the mean of 3 processes, its t-interval (1.2 +- 0.657), 300 barriers; k=3 from one process, no interval"

# isolation: three processes; the counts on CPU 1 are 1.0, 0.8, 0.9.
o=$TMP/iso
guest "$o/raw/smp4/iso.1" seed-v1-ipi-all 1.0 1
guest "$o/raw/smp4/iso.2" seed-v1-ipi-all 0.8 1
guest "$o/raw/smp4/iso.3" seed-v1-ipi-all 0.9 1
"${PYTHON3:-python3}" "$PY" vm-aggregate isolation "$o" 4 2-3 default /boot/x >"$TMP/out" 2>&1
ok $? "vm-aggregate isolation on three processes"
"${PYTHON3:-python3}" - "$o/isolation.csv" <<'PY'
import csv, sys
r = {x["cpu"]: x for x in csv.DictReader(open(sys.argv[1]))}
a, b = r["1"], r["2"]
# 1.0, 0.8, 0.9: mean 0.9, sd 0.1, t(2) 4.303 / sqrt(3) -> 0.248
assert a["replicates"] == "3" and abs(float(a["ipis_per_barrier"]) - 0.9) < 1e-3, a
assert abs(float(a["ipis_per_barrier_ci95"]) - 0.248) < 2e-3, a
assert b["isolated"] == "yes" and float(b["ipis_per_barrier"]) == 1.0 and float(b["ipis_per_barrier_ci95"]) == 0, b
assert "3" not in r, "a baseline row is not a storm row"
PY
ok $? "isolation: CPU 1 0.9 +- 0.248 over 3 processes; the isolated CPU 2 marked yes"
done_testing
