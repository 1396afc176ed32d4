#!/bin/sh
# SPDX-License-Identifier: MIT
# A memory or descriptor limit is a fault of the host: exit 1 with one
# line naming the limit to raise, never 2 (bad input), never a traceback
# or a crash, nothing written. The helpers (python3 with scipy, gnuplot,
# the shell) are refused up front below 256 MB of address space or 64
# descriptors; the C experiments report ENOMEM and refused threads as
# faults.
. "${srcdir:-.}/tests/lib.sh"
need_python
command -v prlimit >/dev/null 2>&1 || { echo "1..0 # SKIP prlimit not found (util-linux)"; exit 0; }
R=$(cd "${srcdir:-.}" && pwd)/results/reference/vm-quick-20261203T141826Z
need_reference "$R"
cp -r "$R" "$TMP/run" && rm -rf "$TMP/run/plots"
mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 1
helpers="sweep --quick --mechanism null --experiment calls --budget 10 --output $TMP/cwd/s
plot $TMP/run
report $TMP/run --output $TMP/cwd/r.md
compare $R $R --output $TMP/cwd/c.md
advise --validate --results $R --output $TMP/cwd/a.md
calibrate --plant 5 --runs 1 --mechanism null --output $TMP/cwd/cal
vm scale --out $TMP/cwd/vm"
# fault NAME WORDS LIMIT...: exit 1, one line saying what to raise, nothing written.
fault() {
	_n=$1 _w=$2
	shift 2
	"$@" </dev/null >"$TMP/out" 2>"$TMP/err"
	_rc=$? _l=$(grep -cv '^#' "$TMP/err")
	[ $_rc -eq 1 ] && [ "$_l" -eq 1 ] && grep -q "$_w" "$TMP/err" && [ -z "$(ls -A)" ] &&
		[ ! -e "$TMP/run/plots" ] && ! grep -q Traceback "$TMP/err"
	ok $? "$_n: exit 1, one line, nothing written (rc=$_rc, $_l lines: $(grep -v '^#' "$TMP/err" | head -n 2 | cut -c 1-150 | tr '\n' ' '))"
}
plan 17
while read -r h; do
	# shellcheck disable=SC2086 # the helper's words
	fault "${h%% *} under prlimit --as=100 MB" "address-space limit.*raise it" prlimit --as=100000000 "$MBBENCH" $h
done <<EOF2
$helpers
EOF2
while read -r h; do
	# shellcheck disable=SC2086
	fault "${h%% *} under prlimit --nofile=12" "open-file limit.*raise it" prlimit --nofile=12 "$MBBENCH" $h
done <<EOF2
$helpers
EOF2
# The experiments: whatever fits under a limit runs; what does not is
# exit 1 with one line (out of memory, a refused thread), never 2.
bad=
for as in 8000000 16000000 30000000; do
	for c in "rcu --duration 0.01" "contend --mechanism fence --duration 0.01 --repeat 1 --callers 1" \
		"latency --mechanism null --iterations 100 --threads 2" "calls --mechanism null --iterations 100 --threads 1,2"; do
		# shellcheck disable=SC2086
		prlimit --as=$as "$MBBENCH" $c >/dev/null 2>"$TMP/err"
		rc=$?
		[ $rc -eq 0 ] || { [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]; } ||
			bad="$bad [$as ${c%% *}: rc $rc, $(head -c 80 "$TMP/err")]"
	done
done
[ -z "$bad" ]
ok $? "rcu, contend, latency, calls under 8, 16 and 30 MB: runs, or exit 1 with one line${bad:+:$bad}"
fault "contend under prlimit --as=8 MB (its threads refused)" "pthread_create" \
	prlimit --as=8000000 "$MBBENCH" contend --mechanism fence --duration 0.01 --repeat 1 --callers 1
# Enough of both: the helper runs (the limit is not mistaken for a fault).
prlimit --as=400000000 --nofile=256 "$MBBENCH" report "$TMP/run" --output "$TMP/cwd/ok.md" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ -s "$TMP/cwd/ok.md" ]
ok $? "report under 400 MB and 256 descriptors works (rc=$rc $(head -c 120 "$TMP/err"))"
done_testing
