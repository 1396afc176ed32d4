# SPDX-License-Identifier: MIT
# TAP helpers for the shell tests. Sourced; MBBENCH points at the binary.
: "${MBBENCH:=${top_builddir:-.}/bench/mbbench}"
tap_n=0
tap_fail=0
. "${srcdir:-${top_srcdir:-.}}/tests/release.sh"	# release_tree: what a test mounted in $TMP is unmounted first
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mbbench-test.XXXXXX")
trap 'release_tree "$TMP"' EXIT

plan() { echo "1..$1"; }
ok() { # ok COND-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_fail=$((tap_fail + 1))
	fi
}
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}
diag() { echo "# $*"; }
# csv_col FILE COLUMN [ROW]: a CSV cell by its header name (row 1 = the first
# data row), so tests read by name and a new column moves nothing.
csv_col() {
	"${PYTHON3:-python3}" -I -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
n = int(sys.argv[3])
print(rows[n - 1].get(sys.argv[2]) or "" if 0 < n <= len(rows) else "")' "$1" "$2" "${3:-1}"
}
# csv_cols FILE|- COLUMN...: the named cells of every data row, one row a
# line, separated by tabs (empty for a column the file lacks). The one CSV
# reader of the tests is Python's csv module: a quoted cell with a comma
# stays one cell. Read the output with awk -F'\t'.
csv_cols() {
	"${PYTHON3:-python3}" -I -c 'import csv, sys
f = sys.stdin if sys.argv[1] == "-" else open(sys.argv[1], newline="")
for r in csv.DictReader(f):
    print("\t".join(r.get(c) or "" for c in sys.argv[2:]))' "$@"
}
# json_val FILE|- KEY...: the value at KEY... (a number indexes a list) of
# a JSON file, read with Python's json module, never with a pattern: a
# string as it is, a list one item a line, an object its keys one a line,
# anything else as JSON. Exit 1 when the path is not there.
json_val() {
	"${PYTHON3:-python3}" -I -c 'import json, sys
v = json.load(sys.stdin if sys.argv[1] == "-" else open(sys.argv[1]))
try:
    for k in sys.argv[2:]:
        v = v[int(k)] if isinstance(v, list) else v[k]
except (KeyError, IndexError, ValueError, TypeError):
    sys.exit(1)
for x in v if isinstance(v, (list, dict)) else [v]:
    print(x if isinstance(x, str) else json.dumps(x))' "$@"
}
done_testing() { [ "$tap_fail" -eq 0 ]; }

# A test that reads output with python3: skip the whole test without it.
need_python() {
	PY=${PYTHON3:-python3}
	if ! command -v "$PY" >/dev/null 2>&1; then
		echo "1..0 # SKIP python3 not found (apt-get install python3)"
		exit 0
	fi
}

# need_scipy: need_python, and skip the whole test without scipy.
need_scipy() {
	need_python
	if ! "$PY" -c 'import scipy' 2>/dev/null; then
		echo "1..0 # SKIP python3-scipy not found"
		exit 0
	fi
}

# need_cpus N WHY: skip the whole test on a host with fewer CPUs online.
need_cpus() {
	if [ "$(getconf _NPROCESSORS_ONLN)" -lt "$1" ]; then
		echo "1..0 # SKIP $2"
		exit 0
	fi
}

# mechanism_available NAME: 0 when mbbench list says NAME is available here
# (read as CSV by its columns: a summary may hold commas).
mechanism_available() {
	"$MBBENCH" list --format csv | csv_cols - mechanism available |
		awk -F'\t' -v m="$1" '$1 == m && $2 == 1 { f = 1 } END { exit !f }'
}

# need_mechanism NAME: skip the whole test where mbbench list says NAME
# is not available here.
need_mechanism() {
	need_python
	if ! mechanism_available "$1"; then
		echo "1..0 # SKIP $1 is not available here"
		exit 0
	fi
}

# Wait (10 s at most) until a sweep writing under DIR has begun its first point.
wait_sweep_started() {
	_i=0
	while [ ! -s "$(ls -d "$1"/*.incomplete/commands.txt 2>/dev/null | head -n 1)" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# Run a command as the unprivileged user nobody (root only; see can_drop).
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# Can this test drop to nobody and still run $MBBENCH? (root, setpriv, a
# build tree nobody may reach: not one under a 0700 directory, as a package
# build in a mktemp -d folder or /root is). setpriv execs its command while
# still holding root's capabilities, so "$MBBENCH" run directly by it would
# start even where nobody cannot reach it; a shell that has dropped them
# execs it here, as prlimit, timeout and the sweep's helpers do.
can_drop() {
	[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
		as_nobody sh -c 'exec "$1" --version' sh "$MBBENCH" >/dev/null 2>&1
}

# usage_error NAME ARGS: mbbench ARGS (split on blanks) must exit 2 with one
# "mbbench: " line on stderr; one TAP line. Its output is in $TMP/out and
# $TMP/err for the checks after it.
usage_error() {
	# shellcheck disable=SC2086
	"$MBBENCH" $2 >"$TMP/out" 2>"$TMP/err"
	_ue_rc=$?
	_ue_lines=$(wc -l <"$TMP/err")
	[ "$_ue_rc" -eq 2 ] && [ "$_ue_lines" -eq 1 ] && grep -q '^mbbench: ' "$TMP/err"
	ok $? "$1: exit 2 with one error line (rc=$_ue_rc, $_ue_lines lines: $(head -c 160 "$TMP/err"))"
}

# need_reference DIR: skip the whole test where the reference run DIR is
# absent (a release tarball carries no results/reference/).
need_reference() {
	[ -d "$1" ] || {
		echo "1..0 # SKIP no reference run in results/reference/ (a release tarball has none)"
		exit 0
	}
}
