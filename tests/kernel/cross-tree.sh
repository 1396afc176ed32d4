#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel-patch/cross-mbbench builds the arm64 mbbench of mbbench vm
# semantics and check-kernel from a tree without git too (git archive,
# an unpacked tarball), configured and built in place or not: the copy
# leaves out the objects, make distclean cleans what is left, and the
# result is a static AArch64 program; a second call reuses it.
. "${top_srcdir:-.}/tests/lib.sh"
src=$(cd "${top_srcdir:-.}" && pwd)

for t in aarch64-linux-gnu-gcc autoreconf make readelf tar; do
	command -v "$t" >/dev/null 2>&1 || { echo "1..0 # SKIP $t not found (./bootstrap --deps installs the arm64 cross toolchain)"; exit 0; }
done
for lib in hwloc numa urcu; do
	[ -f "/usr/lib/aarch64-linux-gnu/lib$lib.a" ] ||
		{ echo "1..0 # SKIP lib$lib-dev:arm64 not installed (./bootstrap --deps)"; exit 0; }
done
plan 3

# The tree as it is, without .git and without what the tests and runs
# left: a configured, built tree here (make check in place), a plain
# dist tree under make distcheck.
mkdir -p "$TMP/src"
(cd "$src" && tar -cf - --exclude=./.git --exclude=./results/runs --exclude=./fuzz/work \
	--exclude=./deb-build .) | (cd "$TMP/src" && tar -xf -)
chmod -R u+w "$TMP/src"
export MBB_KERNEL_CACHE="$TMP/cache"
"$TMP/src/kernel-patch/cross-mbbench" --arch arm64 >"$TMP/out" 2>"$TMP/err"
rc=$?
mb=$(sed -n 's/^mbbench //p' "$TMP/out")
[ $rc -eq 0 ] && [ -f "$mb" ]
ok $? "a tree without git cross-builds (exit $rc: $(tail -n 1 "$TMP/err"))"
[ -f "$mb" ] && LC_ALL=C readelf -h "$mb" | grep -q 'Machine: *AArch64$' &&
	! LC_ALL=C readelf -l "$mb" | grep -q 'Requesting program interpreter'
ok $? "it is a static AArch64 program"
"$TMP/src/kernel-patch/cross-mbbench" --arch arm64 >"$TMP/out2" 2>"$TMP/err2" &&
	cmp -s "$TMP/out" "$TMP/out2" && [ ! -s "$TMP/err2" ]
ok $? "a second call reuses it (no stage line)"
