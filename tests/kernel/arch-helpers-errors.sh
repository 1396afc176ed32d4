#!/bin/sh
# SPDX-License-Identifier: MIT
# The helpers of mbbench vm semantics refuse bad input before they fetch,
# build or boot anything: one line, exit 2. stock-kernel (Debian's kernel
# of an architecture), cross-mbbench (a static mbbench of another),
# build-kernel, make-initramfs and run-vm --arch.
. "${top_srcdir:-.}/tests/lib.sh"

KP="$(cd "$top_srcdir" && pwd)/kernel-patch"
export MBB_KERNEL_CACHE="$TMP/cache"
cases="stock-kernel without an architecture|stock-kernel
stock-kernel with an unknown architecture|stock-kernel --arch sparc
stock-kernel with --arch and nothing after|stock-kernel --arch
stock-kernel with an unknown option|stock-kernel --fast
cross-mbbench for this host's x86_64|cross-mbbench --arch x86_64
cross-mbbench with an unknown architecture|cross-mbbench --arch mips
cross-mbbench without an architecture|cross-mbbench
run-vm with an unknown architecture|run-vm --arch sparc --kernel $TMP/k --initramfs $TMP/i
run-vm arm64 without its kernel|run-vm --arch arm64
build-kernel with an unknown architecture|build-kernel --arch sparc
build-kernel with --arch and nothing after|build-kernel --arch
make-initramfs with an unknown architecture|make-initramfs --arch mips
run-vm arm64 under KVM|run-vm --arch arm64 --accel kvm --kernel $TMP/k --initramfs $TMP/i
run-vm arm64 with an x86 topology|run-vm --arch arm64 --topology 1,2,2 --kernel $TMP/k --initramfs $TMP/i
build-kernel riscv64 of 6.1|build-kernel --arch riscv64 --source 6.1
run-vm riscv64 under KVM|run-vm --arch riscv64 --accel kvm --kernel $TMP/k --initramfs $TMP/i
run-vm riscv64 with an x86 topology|run-vm --arch riscv64 --topology 1,2,2 --kernel $TMP/k --initramfs $TMP/i
stock-kernel riscv64 with --source and nothing after|stock-kernel --arch riscv64 --source"
plan $(($(printf '%s\n' "$cases" | wc -l) + 1))
while IFS='|' read -r name args; do
	# shellcheck disable=SC2086
	"$KP"/$args >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -e "$TMP/cache" ]
	ok $? "$name: exit 2, one line, nothing fetched ($(cat "$TMP/err"))"
done <<CASES
$cases
CASES
"$KP/run-vm" --arch arm64 2>&1 | grep -q 'build-kernel .*--arch arm64 first'
ok $? "run-vm --arch arm64 without a kernel names the helper that builds one"
