# SPDX-License-Identifier: GPL-2.0
# check-kernel's guests of another architecture (arm64, riscv64): the
# kernels cross-built from the same patched tree, a cross-built mbbench,
# two boots, and the nine checks of check-lib.sh read from them (sourced
# by check-kernel, whose work, guest_timeout, DOCTOR_BUDGET, x86_r, ok,
# not_ok, skip, check, comment and stage it uses).

# shellcheck shell=bash
# The variables named above are check-kernel's; uvmrc, vmrc, r, ru and
# ipi are read by check-lib.sh's checks.
# shellcheck disable=SC2154,SC2034
arch_test() { # N: the name of the Nth test of $tests
	sed -n "${1}p" <<<"$tests"
}
# arch_guests ARCH YES|NO QEMU QEMU_PACKAGE TESTS MPROTECT_CHECK V5_CPUS
arch_guests() {
	local arch=$1 enabled=$2 qemu=$3 qpkg=$4 tests=$5 mp_check=$6 v5_want=$7
	local why="" cc=${arch/arm64/aarch64}-linux-gnu-gcc cpkg t0 i v bz=() mb="" mb_why="" initrd="" vmrc uvmrc
	local r ru ipi unfixed_out
	cpkg="gcc-${cc%-gcc} libc6-dev-$arch-cross"
	[ "$enabled" = yes ] || why="--$arch no (make check-kernel boots the $arch guests of 7.3 only)"
	command -v "$qemu" >/dev/null 2>&1 ||
		why="$qemu not installed (Debian package $qpkg; ./bootstrap --deps)"
	command -v "$cc" >/dev/null 2>&1 ||
		why="${why:+$why; }$cc not installed (Debian packages $cpkg; ./bootstrap --deps)"
	t0=$(date +%s)
	if [ -n "$why" ]; then
		for i in 1 2 3 4 5 6 7 8 9; do skip "$(arch_test $i)" "$why"; done
		return 0
	fi
	i=0
	for v in unfixed fixed; do
		i=$((i + 1))
		t=$(date +%s)
		if "$KP_DIR/build-kernel" --arch "$arch" --variant $v >"$work/build-$arch-$v.out" 2>"$work/build-$arch-$v.err"; then
			comment "$work/build-$arch-$v.err"
			ok "$(arch_test $i)"
			bz+=("$(cat "$work/build-$arch-$v.out")")
		else
			comment "$work/build-$arch-$v.err"
			not_ok "$(arch_test $i)"
			bz+=("")
		fi
		stage "build-kernel --arch $arch --variant $v" $(($(date +%s) - t))
	done
	t=$(date +%s)
	if "$KP_DIR/cross-mbbench" --arch "$arch" >"$work/cross-$arch.out" 2>"$work/cross-$arch.err"; then
		mb=$(sed -n 's/^mbbench //p' "$work/cross-$arch.out")
	else
		mb_why="cross-mbbench --arch $arch failed: $(tail -n 1 "$work/cross-$arch.err")"
	fi
	comment "$work/cross-$arch.err"
	stage "cross-mbbench --arch $arch" $(($(date +%s) - t))
	t=$(date +%s)
	if [ -n "${bz[1]}" ] &&
		"$KP_DIR/make-initramfs" --arch "$arch" ${mb:+--mbbench "$mb"} \
			--output "$work/initramfs-$arch.cpio.gz" >/dev/null 2>"$work/initramfs-$arch.err"; then
		initrd=$work/initramfs-$arch.cpio.gz
	fi
	[ ! -f "$work/initramfs-$arch.err" ] || comment "$work/initramfs-$arch.err"
	stage "make-initramfs --arch $arch" $(($(date +%s) - t))
	# The unfixed guest: the selftest and doctor's lazy-mm probe; the
	# fixed one: those, ipi-check and the mprotect probe.
	arch_boot() { # VARIANT KERNEL RESULTS GROUPS...
		local v=$1 k=$2 d=$3 rc=0
		shift 3
		t=$(date +%s)
		"$KP_DIR/run-vm" --arch "$arch" --smp 4 --timeout "$guest_timeout" --append nohz=off \
			--kernel "$k" --initramfs "$initrd" --results "$d" \
			--log "$work/console-$arch-$v.log" -- env DOCTOR_BUDGET="$DOCTOR_BUDGET" \
			mbb-guest-checks "$@" >"$work/vm-$arch-$v.out" 2>"$work/vm-$arch-$v.err" || rc=$?
		comment "$work/vm-$arch-$v.err"
		stage "run-vm --arch $arch ($v)" $(($(date +%s) - t))
		return $rc
	}
	uvmrc=unbuilt
	if [ -n "$initrd" ] && [ -n "${bz[0]}" ]; then
		uvmrc=0
		arch_boot unfixed "${bz[0]}" "$work/$arch-unfixed" lazy doctor || uvmrc=$?
	fi
	vmrc=unbuilt
	if [ -n "$initrd" ]; then
		vmrc=0
		arch_boot fixed "${bz[1]}" "$work/$arch-fixed" lazy ipi-check doctor mprotect || vmrc=$?
	fi
	if [ -n "${KEEP:-}" ]; then
		cp -R "$work/." "$KEEP/"
	fi
	# The checks above, read from this architecture's guests.
	r=$work/$arch-fixed ru=$work/$arch-unfixed ipi=$work/$arch-fixed/ipi-check.out
	unfixed_out=$work/vm-$arch-unfixed.out
	if [ "$vmrc" != 0 ] || [ ! -f "$r/lazy.out" ]; then
		tail -n 5 "$work/vm-$arch-fixed.out" 2>/dev/null | comment
		echo "# the $arch fixed guest did not run (run-vm status $vmrc)"
	fi
	check "$(arch_test 3)" repro_unfixed
	check "$(arch_test 4)" repro_fixed
	lazy_ipis | sed "s/^# /# $arch: /" || true
	if [ -z "$mb" ]; then
		skip "$(arch_test 5)" "$mb_why"
		skip "$(arch_test 6)" "$mb_why"
	else
		check "$(arch_test 5)" doctor_lazy "$ru" "$arch unfixed" affected 1
		check "$(arch_test 6)" doctor_lazy "$r" "$arch fixed" ok 0
	fi
	check "$(arch_test 7)" ipi1_counted
	if [ -z "$mb" ]; then
		skip "$(arch_test 8)" "$mb_why"
	else
		check "$(arch_test 8)" "$mp_check" "$arch"
	fi
	check "$(arch_test 9)" ipi_pattern seed-v5-expedited "$v5_want"
	stage "$arch (builds, cross-built mbbench, two boots)" $(($(date +%s) - t0))
}
