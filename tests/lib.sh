# SPDX-License-Identifier: MIT
# TAP helpers for the shell tests. Sourced; MBBENCH points at the binary.
: "${MBBENCH:=${top_builddir:-.}/bench/mbbench}"
tap_n=0
tap_fail=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mbbench-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

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
done_testing() { [ "$tap_fail" -eq 0 ]; }
