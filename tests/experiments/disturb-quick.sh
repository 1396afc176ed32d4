#!/bin/sh
# SPDX-License-Identifier: MIT
# disturb on this host, checked against what the kernel must do:
# PRIVATE_EXPEDITED IPIs a CPU running a thread of the caller's process about
# once per barrier and leaves idle and foreign CPUs alone; the signal scheme
# wakes a sleeping thread of the process; without privilege foreign-rt is a
# skipped row with the reason and IPIs come from /proc/interrupts; killing
# the parent with SIGKILL leaves no RT victim behind; oslat's JSON is read.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
need_cpus 2 "disturb needs 2 CPUs"
need_mechanism membarrier-private-expedited
plan 8

# 1-2. 2000 barriers at 4000/s; every role on the first victim CPU in turn.
# Other tests may run beside this one and issue IPIs of their own: a run
# whose counts miss is retried twice before the check fails.
pe_run() {
	"$MBBENCH" disturb --mechanism membarrier-private-expedited \
		--roles self-spin,idle,foreign-spin,foreign-rt,foreign-sleep --in-turn \
		--rate 4000 --duration 0.5 --format csv >"$TMP/pe.csv" 2>"$TMP/err"
}
pe_run
ok $? "private-expedited over five roles ran ($(head -c 160 "$TMP/err"))"
try=1
while :; do
"$PY" - "$TMP/pe.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def per_barrier(r):
    # The membarrier-attributed count where the tracepoints give it (exact:
    # immune to the host's other IPIs); else all function-call IPIs.
    v = r["mb_ipis_per_barrier"] or r["ipis_per_barrier"]
    return float(v)
fails = []
for r in rows:
    if r["phase"] != "storm" or r["role"] == "caller":
        continue
    if r["status"] != "ok":
        assert r["role"] == "foreign-rt" and r["skip_reason"], r
        print("# %s skipped: %s" % (r["role"], r["skip_reason"]))
        continue
    v = per_barrier(r)
    print("# %-13s cpu %s: %.3f IPIs/barrier (%s barriers, %s, on-CPU %s)" % (
        r["role"], r["cpu"], v, r["barriers"], r["ipi_source"], r["oncpu_fraction"] or "-"))
    assert int(r["barriers"]) >= 1000, r
    # a share: never over 1, whatever the two clocks read
    assert r["oncpu_fraction"] == "" or 0 <= float(r["oncpu_fraction"]) <= 1, r
    # All IPIs received, baseline subtracted: looser when the exact
    # attributed count is there too, since other IPIs on a busy host add noise.
    allv = float(r["ipis_per_barrier"])
    loose = r["mb_ipis_per_barrier"] != ""
    if r["role"] == "self-spin":
        # Only a CPU whose current task is ours is IPI'd (docs/FINDINGS.md): when
        # the host lends the spinner's CPU to others, expect that share.
        oncpu = min(1.0, float(r["oncpu_fraction"]))
        if v < 0.9 * oncpu:
            fails.append("self-spin %.3f < 0.9 x on-CPU %.2f" % (v, oncpu))
        if allv < (0.8 if loose else 0.9) * oncpu:
            fails.append("self-spin all IPIs %.3f < on-CPU %.2f" % (allv, oncpu))
        if oncpu < 0.95:
            print("# note: the spinner ran %.0f%% of the storm (busy host)" % (oncpu * 100))
    else:
        if v > 0.05:
            fails.append("%s %.3f > 0.05" % (r["role"], v))
        # With the exact attributed count there, all IPIs on a CPU we do not
        # target include other processes' (a parallel make check): only
        # judge them when they are the sole source.
        if not loose and allv > 0.05:
            fails.append("%s all IPIs %.3f" % (r["role"], allv))
    if r["role"] in ("foreign-rt", "foreign-sleep"):
        assert int(r["samples"]) > 0 and r["p50_ns"] and r["p999_ns"] and r["max_ns"], r
        # The phase's five slices give each percentile a CI.
        assert r["repeats"] == "5" and all(float(r[c]) >= 0 for c in ("p50_ns_ci95", "p99_ns_ci95", "p999_ns_ci95")), r
for r in rows:
    if r["role"] == "caller" and r["phase"] == "storm" and r["status"] == "ok":
        assert r["repeats"] == "5" and float(r["p99_ns_ci95"]) >= 0 and int(r["samples"]) >= 1000, r
for f in fails:
    print("# " + f)
assert not fails, fails
PY
	rc=$?
	[ "$rc" -eq 0 ] || [ "$try" -ge 3 ] && break
	diag "attempt $try missed; running again"
	try=$((try + 1))
	pe_run
done
[ "$rc" -eq 0 ]
ok $? "private-expedited: >= 0.9 IPI per barrier on a self-spin CPU, <= 0.05 on idle and foreign ones"

# 3. The signal scheme interrupts a thread blocked in the kernel.
"$MBBENCH" disturb --mechanism signal --roles self-sleep --rate 1000 --duration 0.2 \
	--format csv >"$TMP/sig.csv" 2>"$TMP/err"
"$PY" - "$TMP/sig.csv" <<'PY'
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["role"] == "self-sleep" and r["phase"] == "storm"][0]
print("# self-sleep: %s signals for %s barriers" % (r["signals"], r["barriers"]))
assert r["status"] == "ok" and int(r["barriers"]) > 50 and int(r["signals"]) == int(r["barriers"]), r
PY
ok $? "signal: the sleeping thread of the process got one signal per barrier"

# 4-5. Without privilege: the same binary, capabilities dropped (or not root).
unpriv=
if [ "$(id -u)" -ne 0 ]; then
	unpriv=" "
elif command -v setpriv >/dev/null 2>&1 &&
	setpriv --inh-caps=-all --bounding-set=-all true 2>/dev/null; then
	unpriv="setpriv --inh-caps=-all --bounding-set=-all"
fi
if [ -z "$unpriv" ] || [ "$(ulimit -r 2>/dev/null || echo 0)" != 0 ]; then
	skip "unprivileged path: neither non-root nor setpriv here, or RLIMIT_RTPRIO allows RT"
	skip "unprivileged path"
else
	# shellcheck disable=SC2086
	$unpriv "$MBBENCH" disturb --roles foreign-rt,idle --in-turn --duration 0.2 \
		--format csv --json "$TMP/np.json" >"$TMP/np.csv" 2>"$TMP/err"
	"$PY" - "$TMP/np.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["role"] == "foreign-rt"]
assert len(rows) == 2, rows
for r in rows:
    assert r["status"] == "skipped" and "SCHED_FIFO needs root or CAP_SYS_NICE" in r["skip_reason"], r
    assert r["ipis"] == "" and r["p50_ns"] == "" and r["samples"] == "", r
print("# " + rows[0]["skip_reason"])
PY
	ok $? "no privilege: foreign-rt is skipped with the reason, never zeros"
	"$PY" - "$TMP/np.csv" "$TMP/np.json" <<'PY'
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["role"] == "idle"]
assert rows and all(r["ipi_source"] == "proc-interrupts" and r["ipis"] != "" for r in rows), rows
notes = json.load(open(sys.argv[2]))["notes"]
why = [n for n in notes if n.startswith("IPI counts from proc-interrupts")]
assert why and ("perf_event" in why[0] or "tracefs" in why[0] or "tracepoint" in why[0]), notes
print("# " + why[0])
PY
	ok $? "no privilege: IPIs come from /proc/interrupts and the note says why"
fi

# 6. SIGKILL to the parent: the RT victim must die with it.
if "$PY" -c 'import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))' 2>/dev/null; then
	"$MBBENCH" disturb --roles foreign-rt --duration 5 --format csv >/dev/null 2>&1 &
	parent=$!
	i=0
	while [ $i -lt 40 ] && ! pgrep -P "$parent" -x mbbench-victim >/dev/null; do
		sleep 0.05; i=$((i + 1))
	done
	victims=$(pgrep -P "$parent" -x mbbench-victim)
	kill -9 "$parent"
	wait "$parent" 2>/dev/null
	sleep 0.5
	left=
	# A zombie (Z) has exited and only waits for init to reap it.
	for v in $victims; do
		st=$(ps -o stat=,cls= -p "$v" 2>/dev/null)
		case "$st" in "" | Z*) ;; *) left="$left $v:$st" ;; esac
	done
	[ -n "$victims" ] && [ -z "$left" ] &&
		! ps -eLo stat=,cls=,comm= | grep -q '^ *[^Z ][^ ]*  *FF  *mbbench-victim'
	ok $? "kill -9 of the parent: no RT victim survives (victims:$(echo $victims) left:${left:- none})"
else
	skip "kill -9 test: SCHED_FIFO not allowed here"
fi

# 7-8. The real oslat as the victim; its --json output is read.
if command -v oslat >/dev/null 2>&1 &&
	"$PY" -c 'import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))' 2>/dev/null; then
	"$MBBENCH" disturb --roles idle --duration 1 --rate 2000 --victim-cmd "oslat -f 5" \
		--format csv >"$TMP/os.csv" 2>"$TMP/err"
	ok $? "disturb --victim-cmd oslat ran ($(head -c 160 "$TMP/err"))"
	"$PY" - "$TMP/os.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["victim"] == "oslat"]
assert [r["phase"] for r in rows] == ["baseline", "storm"], rows
for r in rows:
    assert r["status"] == "ok" and r["role"] == "foreign-rt", r
    assert int(r["samples"]) > 100000 and 0 < float(r["p50_ns"]) <= float(r["p99_ns"]) <= float(r["max_ns"]), r
    print("# oslat %s: %s samples, p50 %s ns, p99.9 %s ns, max %s ns" % (r["phase"], r["samples"], r["p50_ns"], r["p999_ns"], r["max_ns"]))
assert int(rows[1]["barriers"]) > 0
PY
	ok $? "oslat's JSON parsed into samples and percentiles for baseline and storm"
else
	skip "oslat not installed or SCHED_FIFO not allowed"
	skip "oslat"
fi
done_testing
