#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench doctor: its three output forms parse, its exit status says whether
# a probe found the host affected (1), bad input is one line and exit 2, and
# the probes read a made-up host (MBBENCH_SYSROOT) as they should. The
# lazy-mm probe measures the real host, whose verdict may differ: only a
# valid result with its evidence is asserted.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 19
cd "$TMP" || exit 1
export LC_ALL=C

# A made-up /sys and /proc: root A with nohz_full, root B with rcu_expedited=1.
mkroot() { # dir nohz_full rcu_expedited
	mkdir -p "$1/sys/kernel" "$1/sys/devices/system/cpu"
	echo "$3" >"$1/sys/kernel/rcu_expedited"
	echo 0 >"$1/sys/kernel/rcu_normal"
	[ -z "$2" ] || echo "$2" >"$1/sys/devices/system/cpu/nohz_full"
}
mkroot "$TMP/nohz" 1-3 0
mkroot "$TMP/exp" "" 1
mkroot "$TMP/normal" "" 0

# A cell of the first row, read with a CSV reader (the texts hold commas).
cell() { # file column
	"$PY" -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1], newline="")))[sys.argv[2]])' "$1" "$2"
}
# A cell of the row of a probe, read the same way.
probe_cell() { # file probe column
	csv_cols "$1" probe "$3" | awk -F'\t' -v p="$2" '$1 == p { print $2 }'
}

# CSV through Python's csv module: every row has a valid result and its texts.
check_csv() { # file [probe=result ...]
	"$PY" - "$@" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
for r in rows:
    assert r["result"] in ("ok", "affected", "cannot tell", "info"), r
    assert r["question"] and r["consequence"] and r["workaround"] and r["fix"] and r["reference"], r
    if r["result"] == "cannot tell":
        assert r["reason"], r
    if r["measure"]:
        float(r["measure"])
        assert r["measure_unit"], r
want = dict(a.split("=", 1) for a in sys.argv[2:])
got = {r["probe"]: r["result"] for r in rows}
for p, v in want.items():
    assert got.get(p) == v, (p, got.get(p), v)
PY
}

"$MBBENCH" doctor --probe sync-core,rseq,guest-ipi --format csv >d.csv 2>err
rc=$?
[ "$rc" -eq 0 ] && check_csv d.csv && [ "$(csv_cols d.csv probe | tr '\n' ' ')" = "sync-core rseq guest-ipi " ] && [ ! -s err ]
ok $? "--format csv: one header, one row per probe asked for, valid results (rc=$rc)"

"$MBBENCH" doctor --probe guest-ipi --json d.json >human.txt 2>err
rc=$?
"$PY" - d.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "doctor", d["experiment"]
assert [p["probe"] for p in d["points"]] == ["guest-ipi"], d["points"]
assert d["points"][0]["result"] == "info" and d["points"][0]["measure"] is None
assert d["derived"]["probes_affected"] == 0, d["derived"]
assert "hypervisor_features" in d["host"]
PY
ok $? "--json FILE: the envelope with the rows and probes_affected (rc=$rc)"
[ "$rc" -eq 0 ] && grep -q '^guest-ipi: info' human.txt && grep -q '^  evidence ' human.txt &&
	grep -q '^# 0 probes found this host affected' human.txt
ok $? "human output by default: result line, labelled fields, the count"

cp d.json d.before
"$MBBENCH" doctor --probe guest-ipi --json d.json >/dev/null 2>err
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && cmp -s d.json d.before
ok $? "an existing --json file is kept without --force (rc=$rc: $(head -c 120 err))"
"$MBBENCH" doctor --probe sync-core --json d.json --force >/dev/null 2>err &&
	[ "$(json_val d.json points 0 probe)" = sync-core ]
ok $? "--force replaces it"

for args in "--probe nosuch" "--probe lazy-mm,,global" "--probe" "extra" "--format yaml"; do
	# shellcheck disable=SC2086
	"$MBBENCH" doctor $args >out 2>err
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ ! -s out ] || break
done
[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ ! -s out ]
ok $? "bad input: exit 2, one line, nothing on stdout (last: doctor $args, rc=$rc)"
grep -q 'valid: lazy-mm, expedited-serialization' err || "$MBBENCH" doctor --probe nosuch 2>&1 | grep -q 'valid: lazy-mm'
ok $? "an unknown probe names the valid ones"

# GLOBAL on made-up hosts. A host whose kernel refuses GLOBAL for real reads
# affected whatever the made-up files say: those cases skip.
if mechanism_available membarrier-global; then
	MBBENCH_SYSROOT=$TMP/nohz "$MBBENCH" doctor --probe global,sync-core --format csv >g.csv 2>err
	rc=$?
	[ "$rc" -eq 1 ] && check_csv g.csv global=affected &&
		probe_cell g.csv global reason | grep -q 'nohz_full'
	ok $? "nohz_full: GLOBAL refused reads affected, exit status 1 (rc=$rc)"
	MBBENCH_SYSROOT=$TMP/nohz "$MBBENCH" doctor --probe global >g.txt 2>err
	rc=$?
	[ "$rc" -eq 1 ] && grep -q '^global: affected: GLOBAL is refused (EINVAL) on a nohz_full kernel' g.txt &&
		grep -q '^# 1 probe found this host affected (exit status 1)' g.txt
	ok $? "nohz_full: the human form says so and counts it (rc=$rc)"
	MBBENCH_SYSROOT=$TMP/exp "$MBBENCH" doctor --probe global --format csv >e.csv 2>err
	rc=$?
	[ "$rc" -eq 0 ] && check_csv e.csv global=info &&
		probe_cell e.csv global reason | grep -q 'expedited (rcu_expedited=1)' &&
		[ -n "$(cell e.csv measure)" ]
	ok $? "rcu_expedited=1: GLOBAL available, expedited, with its measured cost (rc=$rc)"
	MBBENCH_SYSROOT=$TMP/normal "$MBBENCH" doctor --probe global --format csv >n.csv 2>err
	rc=$?
	[ "$rc" -eq 0 ] && check_csv n.csv global=info &&
		probe_cell n.csv global reason | grep -q 'a normal grace period'
	ok $? "rcu_expedited=0: GLOBAL is a normal grace period (rc=$rc)"
else
	for i in 1 2 3 4; do skip "this kernel does not offer MEMBARRIER_CMD_GLOBAL"; done
fi

# The measuring probes on this host: a valid result with evidence.
"$MBBENCH" doctor --probe register-cost --format csv >r.csv 2>err
rc=$?
res=$(cell r.csv result)
check_csv r.csv && { [ "$res" = "cannot tell" ] || { [ "$res" = info ] && [ -n "$(cell r.csv measure)" ]; }; } &&
	[ "$rc" -eq 0 ]
ok $? "register-cost: info with the registration's cost in ms, or cannot tell (got '$res', rc=$rc)"

"$MBBENCH" doctor --probe expedited-serialization --format csv >s.csv 2>err
rc=$?
check_csv s.csv && [ "$rc" -eq 0 ] && { cell s.csv evidence; cell s.csv reason; } | grep -q 'serialized'
ok $? "expedited-serialization: a valid result (rc=$rc: $(cell s.csv result))"

"$MBBENCH" doctor --probe lazy-mm --format csv >l.csv 2>err
rc=$?
res=$(cell l.csv result)
diag "lazy-mm on this host: $res (rc=$rc)"
check_csv l.csv && { cell l.csv evidence | grep -q 'caller on CPU' ||
	cell l.csv reason | grep -q 'not offered\|needs two CPUs'; }
ok $? "lazy-mm: a valid result with its evidence"
case $res in
affected) [ "$rc" -eq 1 ] ;;
ok | "cannot tell") [ "$rc" -eq 0 ] ;;
*) false ;;
esac
ok $? "lazy-mm: exit status 1 exactly when affected ($res, rc=$rc)"
# One case per way in (paths A and B), path C named, and advice that holds.
ev=$(cell l.csv evidence)
wa=$(cell l.csv workaround)
case $ev in *"not offered"* | *"needs two CPUs"*) true ;; *)
	for want in "A: a thread ran there before registration" "A: the main thread ran there and moved" \
		"B: a thread exited there after registration" "path C"; do
		case $ev in *"$want"*) ;; *) false ;; esac || break
	done ;;
esac &&
	case $wa in *PRIVATE_EXPEDITED*"across processes"*) true ;; *) false ;; esac
ok $? "lazy-mm: a case for each path, path C named, the advice within and across processes"

# The facts behind the targeted command and the mprotect fallback.
"$MBBENCH" doctor --probe rseq,mprotect-barrier --format csv >f.csv 2>err
rc=$?
check_csv f.csv && "$PY" - f.csv "$rc" <<'PY'
import csv, sys
rows = {r["probe"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
ev = rows["rseq"]["evidence"]
assert "glibc " in ev and "rseq" in ev and ("AT_RSEQ_FEATURE_SIZE" in ev or "before 6.3" in ev), ev
mp = rows["mprotect-barrier"]
assert mp["result"] in ("ok", "affected", "cannot tell"), mp
assert mp["result"] == "cannot tell" or "per barrier" in mp["evidence"], mp
assert (mp["result"] == "affected") == (sys.argv[2] == "1"), (mp["result"], sys.argv[2])
PY
ok $? "rseq: glibc's registration and the kernel's rseq area; mprotect-barrier: a valid result with its counts ($(cell f.csv result))"

# mprotect-barrier names only a cause it saw: on a made-up PVM guest (no
# invlpgb flag; the kernel log's flush hypercall) and on a made-up host with
# nothing to see, whatever this host measures, no column names INVLPGB; the
# evidence carries the remote_tlb_flush fact, and an affected row's fix the
# hypercall, or "cause not identified".
for h in pvm none; do
	mkdir -p "$TMP/$h/proc/sys/kernel" "$TMP/$h/dev"
	echo x86_64 >"$TMP/$h/proc/sys/kernel/arch"
	printf 'processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu tsc hypervisor lahf_lm\n\n' >"$TMP/$h/proc/cpuinfo"
done
printf '6,0,0,-;Hypervisor detected: PVM\n6,1,247,-;pvm-pv: remote TLB flushes via PVM_HC_FLUSH_TLB_MULTI\n' >"$TMP/pvm/dev/kmsg"
printf '6,0,0,-;Linux version 6.18.44\n' >"$TMP/none/dev/kmsg"
for h in pvm none; do
	MBBENCH_SYSROOT=$TMP/$h "$MBBENCH" doctor --probe mprotect-barrier --format csv >"mp-$h.csv" 2>err
done
"$PY" - mp-pvm.csv mp-none.csv <<'PY'
import csv, sys
pvm, none = (next(csv.DictReader(open(f, newline=""))) for f in sys.argv[1:])
for r in (pvm, none):
    assert "INVLPGB" not in " ".join(r.values()), r
line = 'pvm-pv: remote TLB flushes via PVM_HC_FLUSH_TLB_MULTI'
assert 'remote TLB flushes: by hypercall (kernel log: "%s")' % line in pvm["evidence"], pvm["evidence"]
assert "remote TLB flushes: by IPI" in none["evidence"], none["evidence"]
if pvm["result"] == "affected":
    assert line in pvm["fix"] and "hypervisor's flush hypercall" in pvm["reason"], pvm
if none["result"] == "affected":
    assert none["fix"].startswith("cause not identified") and "not identified" in none["reason"], none
PY
ok $? "mprotect-barrier on made-up hosts names no INVLPGB; the cause it saw, or not identified ($(cell mp-pvm.csv result), $(cell mp-none.csv result))"
MBBENCH_SYSROOT=$TMP/pvm "$MBBENCH" doctor --probe guest-ipi --format csv >gi.csv 2>err
cell gi.csv evidence | grep -q 'paravirtual interface: PVM; remote TLB flushes: by hypercall (kernel log: "pvm-pv: remote TLB flushes via PVM_HC_FLUSH_TLB_MULTI")'
ok $? "guest-ipi: the paravirtual interface and the remote TLB flush as the made-up kernel log names them"
done_testing
