#!/bin/sh
# SPDX-License-Identifier: MIT
# The rcu read-side model (rcu-model.csv): each row's counts are the code's
# (the disassembled readers hold exactly the fences the rows price), its
# unit costs are measured and its sum adds up; --no-model leaves the table
# out; readers and writers that share a CPU get skipped rows with a reason.
# --keep-degraded: on a busy host (tests in parallel) a repeat whose reader
# lost its CPU still counts; the model is checked for its sums, not speed.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON3:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	echo "1..0 # SKIP one CPU: the model needs a reader and a writer on CPUs of their own"
	exit 0
fi
plan 6

"$MBBENCH" rcu --keep-degraded --scheme mb,membarrier-private-expedited,qsbr,liburcu-mb --readers 1 --writers 1 \
	--duration 0.05 --repeat 2 --output "$TMP/m" 2>"$TMP/err"
ok $? "rcu with the model exits 0 ($(head -c 160 "$TMP/err"))"

"$PY" - "$TMP/m/rcu-model.csv" >"$TMP/counts" <<'PY'
import csv, math, sys
rows = {r["scheme"]: r for r in csv.DictReader(open(sys.argv[1]))}
mb, pe, q = rows["mb"], rows["membarrier-private-expedited"], rows["qsbr"]
for r in (mb, pe, q):
    assert r["status"] == "ok", r
    f = {k: float(v) for k, v in r.items() if k.endswith("_ns") and v != ""}
    # measured unit costs: a loop, a hand-over and a paid line take time
    assert f["loop_ns"] > 0 and f["line_ns"] > 0 and f["solo_read_ns"] > 0, r
    for k in ("rmw_ns", "mfence_ns", "line_paid_ns"):
        assert math.isfinite(f[k]), (k, r)
    # the sums: alone = loop + fences; running = alone measured + lines + interruptions
    assert abs(f["model_solo_ns"] - f["loop_ns"] - f["fence_ns"]) < 1e-3 * f["model_solo_ns"] + 1e-3, r
    total = f["solo_read_ns"] + f["transfer_ns"] + f["interrupt_ns"]
    assert abs(f["model_read_ns"] - total) < 1e-3 * total, r
    wpr = float(r["writes_per_read"])
    assert abs(f["transfer_ns"] - wpr * float(r["lines_per_write"]) * f["line_paid_ns"]) < 1e-3 * f["transfer_ns"] + 1e-6, r
# the counts are the code's
assert (mb["rmw_per_read"], mb["rmw_idle_per_read"], mb["mfence_per_read"]) == ("1", "1", "0"), mb
assert (pe["rmw_per_read"], pe["interrupts_per_write"], pe["interrupt"]) == ("0", "1", "membarrier-private-expedited"), pe
assert float(pe["interruption_ns"]) > 0 and float(pe["interrupt_ns"]) > 0, pe
assert mb["interrupt"] == "" and float(mb["interrupt_ns"]) == 0, mb
u = rows.get("liburcu-mb")
print("mb", int(float(mb["rmw_per_read"]) + float(mb["rmw_idle_per_read"])))
if u and u["status"] == "ok":
    print("liburcu-mb", int(float(u["mfence_per_read"]) + float(u["mfence_idle_per_read"])))
PY
ok $? "each row: its counts are the code's, its unit costs measured, its sums add up"

# The disassembled read sides hold the fences the rows price: our mb
# reader's loop is the only place it has a locked instruction, liburcu's
# mb reader's the only place it has an mfence (x86-64 only).
if [ "$(uname -m)" != x86_64 ] || ! command -v objdump >/dev/null 2>&1; then
	skip "x86-64 and objdump: the fence count of the disassembled readers"
else
	objdump -d --no-show-raw-insn "$MBBENCH" 2>/dev/null | awk '
		/^[0-9a-f]+ <[^>]*>:$/ { f = $2; next }
		f == "<reader_fence>:" && /lock/ { n["mb"]++ }
		f == "<reader_light>:" && (/lock/ || /mfence/) { n["light"]++ }
		f == "<mb_reader>:" && /mfence/ { n["liburcu-mb"]++ }
		END { for (k in n) print k, n[k] }' >"$TMP/dis"
	want=$(grep '^mb ' "$TMP/counts")
	got=$(grep '^mb ' "$TMP/dis")
	lwant=$(grep '^liburcu-mb ' "$TMP/counts")
	lgot=$(grep '^liburcu-mb ' "$TMP/dis")
	[ -n "$want" ] && [ "$want" = "$got" ] && ! grep -q '^light ' "$TMP/dis" && [ "$lwant" = "$lgot" ]
	ok $? "disassembly: ${got:-no mb reader} (priced: $want), ${lgot:-no liburcu-mb reader} (priced: ${lwant:-not run}), light reader fence-free"
fi

"$MBBENCH" rcu --scheme mb --readers 1 --writers 1 --duration 0.02 --repeat 1 --no-model \
	--output "$TMP/n" 2>"$TMP/err"
[ $? -eq 0 ] && [ -f "$TMP/n/rcu.csv" ] && [ ! -e "$TMP/n/rcu-model.csv" ]
ok $? "--no-model: rcu.csv and no rcu-model.csv"

# One CPU for both: nothing moves between them, so nothing is priced.
cpu=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')
"$MBBENCH" rcu --scheme mb --readers 1 --writers 1 --placement "$cpu,$cpu" \
	--duration 0.02 --repeat 1 --output "$TMP/o" 2>"$TMP/err"
rc=$?
why=$(csv_col "$TMP/o/rcu-model.csv" skip_reason)
[ "$rc" -eq 0 ] && [ "$(csv_col "$TMP/o/rcu-model.csv" status)" = skipped ] && [ -n "$why" ]
ok $? "readers and writers on one CPU: the model's row is skipped ($why; exit $rc)"

"$MBBENCH" schema --format md 2>/dev/null | grep -q 'rcu-model'
ok $? "the schema lists rcu-model"
