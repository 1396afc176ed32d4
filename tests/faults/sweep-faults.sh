#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep under faults: a full disk, sweeps started together, a point
# whose files are not all written, bad mechanism lists, SIGTERM. Each
# asserts the promise: a clear error, the right exit status, nothing
# half-written, nothing lost that was already measured.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 10
SWEEP="$MBBENCH sweep --quick"

# 1. A full disk: exit non-zero, no folder under its final name, no .tmp.
mkdir "$TMP/full"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=96k tmpfs "$TMP/full" 2>/dev/null; then
	head -c 80000 /dev/zero >"$TMP/full/filler" 2>/dev/null
	$SWEEP --mechanism null --out-root "$TMP/full/runs" >"$TMP/f.out" 2>"$TMP/f.err"
	rc=$?
	final=$(ls -d "$TMP"/full/runs/* 2>/dev/null | grep -v '\.incomplete$')
	tmps=$(find "$TMP/full" -name '*.tmp' | head -n 3)
	[ "$rc" -ne 0 ] && [ -z "$final" ] && [ -z "$tmps" ]
	ok $? "full disk: exit $rc, no finished folder (${final:-none}), no .tmp left (${tmps:-none}): $(tail -n 1 "$TMP/f.err")"
	umount "$TMP/full"
else
	skip "full disk: needs root to mount a small tmpfs"
fi

# 2. Three sweeps started together into one out-root: three whole folders.
for k in 1 2 3; do
	$SWEEP --mechanism null --out-root "$TMP/conc" >"$TMP/c$k.out" 2>"$TMP/c$k.err" &
done
wait
n=$(ls -d "$TMP"/conc/*/ 2>/dev/null | wc -l)
good=0
for d in "$TMP"/conc/*/; do
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["points_done"] == 3' "$d/run.json" 2>/dev/null &&
		[ "$(grep -Ec '^(setarch [^ ]+ -R |linux64 -R )?mbbench ' "$d/commands.txt")" -eq 21 ] && good=$((good + 1))
done
[ "$n" -eq 3 ] && [ "$good" -eq 3 ]
ok $? "three sweeps started together: $n folders, $good with a valid run.json and their own commands"

# 3. A point that exits 1 without its JSON (a host failure, e.g. a full disk
# while writing it) is not measured: listed as failed, not as a finding.
cat >"$TMP/mbnojson" <<EOS
#!/bin/sh
"$MBBENCH" "\$@"
rc=\$?
case "\$*" in "latency --mechanism fence "*)
	for a; do [ "\$prev" = --output ] && rm -f "\$a/latency.json"; prev=\$a; done
	echo "mbbench: cannot write latency.json: No space left on device" >&2
	exit 1 ;;
esac
exit \$rc
EOS
chmod +x "$TMP/mbnojson"
$SWEEP --mechanism fence --mbbench "$TMP/mbnojson" --output "$TMP/nojson" >/dev/null 2>"$TMP/nj.err"
rc=$?
"$PY" - "$TMP/nojson/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [(p["experiment"], p["name"], p["replicates"]) for p in d["points_failed"]] == [("latency", "fence", list(range(1, 11)))], d["points_failed"]
assert d["points_done"] == 2 and [p["experiment"] for p in d["points"]] == ["doctor"] + ["calls"] * 10
PY
r=$?
[ "$rc" -eq 1 ] && [ "$r" -eq 0 ] && ! grep -q 'correctness check failed' "$TMP/nj.err" &&
	! csv_cols "$TMP/nojson/latency.csv" mechanism 2>/dev/null | grep -qx fence
ok $? "a point without its JSON: failed (not a finding), run.json valid, exit $rc"

# 4-6. Mechanism lists are checked before anything is created (a name
# given twice is kept once: mbbench(1), --threads).
for list in , null,,fence null,nosuch; do
	$SWEEP --mechanism "$list" --out-root "$TMP/badlist/runs" >/dev/null 2>"$TMP/bl.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/bl.err")" -eq 1 ] && [ ! -e "$TMP/badlist" ]
	ok $? "--mechanism '$list': exit $rc, one line, nothing created ($(cat "$TMP/bl.err"))"
done

# 7. --output onto a folder another sweep is writing: refused.
mkdir -p "$TMP/busy.incomplete"
$SWEEP --mechanism null --output "$TMP/busy" >/dev/null 2>"$TMP/b.err"
[ $? -eq 2 ] && [ ! -e "$TMP/busy" ] && [ -z "$(ls "$TMP/busy.incomplete")" ]
ok $? "--output of a sweep in progress: exit 2, nothing touched ($(cat "$TMP/b.err"))"

# 8-9. SIGTERM: the current point finishes, a whole folder marked
# interrupted, exit 143; the message reaches the terminal, not a point's log.
$SWEEP --mechanism null,fence --out-root "$TMP/term" >"$TMP/t.out" 2>"$TMP/t.err" &
pid=$!
wait_sweep_started "$TMP/term"
kill -TERM $pid
wait $pid
rc=$?
trun=$(ls -d "$TMP"/term/*/ | head -n 1)
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["interrupted"] is True and 1 <= d["points_done"] < 4' "$trun/run.json" 2>/dev/null
r=$?
[ "$rc" -eq 143 ] && [ "$r" -eq 0 ]
ok $? "SIGTERM: exit $rc, a whole folder marked interrupted"
grep -q 'terminated; finishing the current point' "$TMP/t.err" && ! grep -rq 'finishing the current point' "$trun/raw"
ok $? "SIGTERM: the message is on stderr, not in a point's log"
# 10. One run's files are committed all or none: with room for two of the
# three files of latency, none is written.
mkdir "$TMP/tight"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=16k tmpfs "$TMP/tight" 2>/dev/null; then
	head -c 8000 /dev/zero >"$TMP/tight/filler" 2>/dev/null
	"$MBBENCH" latency --mechanism null --iterations 20000 --output "$TMP/tight/out" >/dev/null 2>"$TMP/l.err"
	rc=$?
	files=$(ls -A "$TMP/tight/out" 2>/dev/null | tr '\n' ' ')
	umount "$TMP/tight"
	[ "$rc" -eq 1 ] && [ -z "$files" ] && [ "$(wc -l <"$TMP/l.err")" -eq 1 ]
	ok $? "a nearly full disk: exit $rc, no file of the run (${files:-none}): $(cat "$TMP/l.err")"
else
	skip "nearly full disk: needs root to mount a small tmpfs"
fi
done_testing
