# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# mbbench vm semantics, sourced by bench/vm (its die, note, fail,
# opt_value, check_pseudo, need_data and MBB_* come from there and from
# bench/common.sh): guests of each architecture on Debian's stock kernel
# and on the patched ones, of one kernel source or several (--source
# 6.1,7.3), each running mbbench doctor and disturb; semantics.csv and
# semantics.md (analysis/mbassemble.py) side by side.

# vm semantics: what each barrier does in an x86_64 and an arm64 guest,
# each on Debian's stock kernel of its architecture (kernel-patch/
# stock-kernel), with a static mbbench of it (this build's, or kernel-patch/
# cross-mbbench's): mbbench doctor, then disturb over every mechanism in
# --replicates processes; semantics.csv and semantics.md side by side.
# patched_release KERNEL: "Linux 6.1.192" of the tree build-kernel built
# KERNEL from (the cache's linux-*/src above it).
patched_release() {
	local t=$1
	while [ "$t" != / ] && [ "$t" != . ]; do
		t=$(dirname "$t")
		case $(basename "$t") in linux-*)
			echo "Linux $(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' "$t/src/Makefile" 2>/dev/null | head -n 3 | paste -sd.)"
			return ;;
		esac
	done
	echo "Linux (patched)"
}

semantics_main() {
	local arches=x86_64,arm64 kernels=stock,unfixed,fixed smp=4 dur=0.2 reps=3 out="" static="" a k s guests=""
	local sources="" srcs
	while [ $# -gt 0 ]; do
		case $1 in
		--arch) opt_value "$1" "a list of x86_64, arm64 and riscv64" ${2+"$2"}; arches=$2; shift ;;
		--kernels) opt_value "$1" "a list of stock, unfixed and fixed" ${2+"$2"}; kernels=$2; shift ;;
		--source) opt_value "$1" "a list of kernel sources (e.g. 6.1,7.3)" ${2+"$2"}; sources=$2; shift ;;
		--smp) opt_value "$1" "a vCPU count from 4 to 16" ${2+"$2"}; smp=$2; shift ;;
		--duration) opt_value "$1" "seconds per role (e.g. 0.2)" ${2+"$2"}; dur=$2; shift ;;
		--replicates) opt_value "$1" "a count from 1 to 10" ${2+"$2"}; reps=$2; shift ;;
		--out) opt_value "$1" "a directory name" ${2+"$2"}; out=$2; shift ;;
		--mbbench-static) opt_value "$1" "a path" ${2+"$2"}; static=$2; shift ;;
		*) die "unknown option '$1' for vm semantics (--arch, --kernels, --source, --smp, --duration, --replicates, --out, --mbbench-static)" ;;
		esac
		shift
	done
	case ",$arches," in ,,|*,,*) die "--arch '$arches' has an empty element (e.g. x86_64,arm64)" ;; esac
	for a in $(echo "$arches" | tr ',' ' '); do
		case $a in x86_64 | arm64 | riscv64) ;; *) die "--arch: unknown architecture '$a' (x86_64, arm64, riscv64)" ;; esac
	done
	case ",$kernels," in ,,|*,,*) die "--kernels '$kernels' has an empty element (e.g. stock,fixed)" ;; esac
	for k in $(echo "$kernels" | tr ',' ' '); do
		case $k in stock | unfixed | fixed) ;; *) die "--kernels: unknown kernel '$k' (stock: Debian's; unfixed, fixed: the patched 6.1 of kernel-patch/)" ;; esac
	done
	# --source: each kernel source's guests (folders ARCH-SOURCE-KERNEL);
	# without it, \$KERNEL_SOURCE's (or 6.1's), in folders ARCH[-KERNEL].
	case ",$sources," in *,,*) [ -z "$sources" ] || die "--source '$sources' has an empty element (e.g. 6.1,7.3)" ;; esac
	for s in $(echo "$sources" | tr ',' ' '); do
		[ -f "$MBB_DATADIR/kernel-patch/$s/VERSION" ] && case $s in */* | .*) false ;; esac ||
			die "--source: unknown kernel source '$s' (known: $(cd "$MBB_DATADIR/kernel-patch" && ls -d */VERSION 2>/dev/null | sed 's|/VERSION||' | paste -sd' '))"
	done
	# riscv64 guests are of 6.12 or later (kernel-patch/common.sh): with
	# riscv64 asked for and no source named, every guest is of 7.3.
	local dflt=6.1
	case ",$arches," in *,riscv64,*) dflt=7.3 ;; esac
	srcs=${sources:-${KERNEL_SOURCE:-$dflt}}
	case $smp in 4 | 5 | 6 | 7 | 8 | 9 | 1[0-6]) ;; *) die "--smp '$smp' is not a vCPU count from 4 to 16 (disturb's roles need a CPU each)" ;; esac
	case $reps in [1-9] | 10) ;; *) die "--replicates '$reps' is not a count from 1 to 10" ;; esac
	echo "$dur" | grep -Eq '^(0\.[0-9]*[1-9][0-9]*|[1-9][0-9]*(\.[0-9]+)?)$' && awk -v d="$dur" 'BEGIN { exit !(d <= 10) }' ||
		die "--duration '$dur' is not seconds above 0 and at most 10 (e.g. 0.2)"
	check_pseudo --out "${out:-results/runs}"
	command -v "$MBB_PYTHON3" >/dev/null 2>&1 || die "python3 not found: apt-get install python3"
	command -v cpio >/dev/null 2>&1 || die "cpio not found; install the Debian package cpio"
	[ -n "$static" ] || static=$(dirname "$0")/mbbench-static
	case ",$arches," in *,x86_64,*) [ -x "$static" ] || die "no static mbbench at $static (make bench/mbbench-static, or give --mbbench-static)" ;; esac
	[ -n "$out" ] || out=results/runs/vm-semantics-$(date -u +%Y%m%dT%H%M%SZ)
	case $out in -*) out=./$out ;; esac
	mkdir -p "$(dirname "$out")" 2>/dev/null
	[ -d "$(dirname "$out")" ] && [ -w "$(dirname "$out")" ] || die "cannot write under $(dirname "$out")"
	[ ! -e "$out" ] && [ ! -e "$out.incomplete" ] || die "--out $out exists (choose a new name)"
	local kp=$MBB_DATADIR/kernel-patch work rc=0 n_ok=0
	need_data kernel-patch/stock-kernel "the stock-kernel fetcher"
	# The patched kernels first, each architecture's unfixed and fixed:
	# a missing prerequisite (linux-source-6.1, a cross compiler) stops
	# here with build-kernel's line, before any guest or folder. Its stage
	# lines are the progress of a cold build (minutes).
	case ",$kernels," in *,unfixed,* | *,fixed,*) need_data kernel-patch/build-kernel "the kernel builder" ;; esac
	work=$(mktemp -d "${TMPDIR:-/tmp}/vm-semantics.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$work'" EXIT
	mkdir -p "$out.incomplete"
	for s in $(echo "$srcs" | tr ',' ' '); do
		for a in $(echo "$arches" | tr ',' ' '); do
			for k in $(echo "$kernels" | tr ',' ' '); do
				[ "$k" = stock ] || "$kp/build-kernel" --source "$s" --arch "$a" --variant "$k" >"$work/kernel.$s.$a-$k" ||
					{ rc=$?; rm -rf "$out.incomplete"; return $rc; }
			done
			if case ",$kernels," in *,stock,*) true ;; *) false ;; esac; then
				"$kp/stock-kernel" --source "$s" --arch "$a" >"$work/stock.$s.$a" || { rc=$?; rm -rf "$out.incomplete"; return $rc; }
			fi
		done
	done
	for a in $(echo "$arches" | tr ',' ' '); do
		local kernel busybox release mb fresh d
		# Any release's busybox will do for /init: the first source's.
		if [ ! -f "$work/stock.${srcs%%,*}.$a" ]; then
			"$kp/stock-kernel" --source "${srcs%%,*}" --arch "$a" >"$work/stock.${srcs%%,*}.$a" || { rc=$?; rm -rf "$out.incomplete"; return $rc; }
		fi
		busybox=$(sed -n 's/^busybox //p' "$work/stock.${srcs%%,*}.$a")
		if [ "$a" = x86_64 ]; then
			mb=$static fresh=$(dirname "$static")/mbbench-fresh-static
		else
			"$kp/cross-mbbench" --arch "$a" >"$work/cross.$a" || { rc=$?; rm -rf "$out.incomplete"; return $rc; }
			mb=$(sed -n 's/^mbbench //p' "$work/cross.$a")
			fresh=$(sed -n 's/^mbbench-fresh //p' "$work/cross.$a")
		fi
		# The guest's root: /init, busybox and the applets /init and the
		# command use, mbbench and mbbench-fresh.
		rm -rf "$work/root"
		mkdir -p "$work/root/bin" "$work/root/dev" "$work/root/etc/mbb" "$work/root/proc" "$work/root/sys" \
			"$work/root/tmp" "$work/root/results"
		cp "$kp/init.sh" "$work/root/init" && cp "$busybox" "$work/root/bin/busybox" &&
			cp "$mb" "$work/root/bin/mbbench" || { rm -rf "$out.incomplete"; fail "cannot stage the $a guest's files"; }
		[ ! -x "$fresh" ] || cp "$fresh" "$work/root/bin/mbbench-fresh"
		for ap in sh mount ln mkdir echo nproc uname cat ls tar gzip sha256sum base64 poweroff sleep rm sed paste; do
			ln -s busybox "$work/root/bin/$ap"
		done
		chmod 755 "$work/root/init"
		(cd "$work/root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
			gzip -1 >"$work/initramfs.$a.cpio.gz"
		# One guest per kernel: Debian's (folder ARCH), the patched ones
		# (ARCH-fixed, ARCH-unfixed: one tree but for the fix, so that
		# what differs between them is the fix's doing).
		for s in $(echo "$srcs" | tr ',' ' '); do
		for k in $(echo "$kernels" | tr ',' ' '); do
			local g=$a cmd vrc=0
			if [ -n "$sources" ]; then
				g=$a-$s-$k
			elif [ "$k" != stock ]; then
				g=$a-$k
			fi
			if [ "$k" = stock ]; then
				kernel=$(sed -n 's/^kernel //p' "$work/stock.$s.$a")
				release=$(sed -n 's/^release //p' "$work/stock.$s.$a")
			else
				kernel=$(cat "$work/kernel.$s.$a-$k")
				release="$(patched_release "$kernel") with the seed series$([ "$k" != fixed ] || echo " and the fix")"
			fi
			d=$out.incomplete/$g
			guests="$guests $g"
			cmd="mbbench doctor --output /results/doctor >/results/doctor.txt 2>&1"
			cmd="$cmd; i=1; while [ \$i -le $reps ]; do mbbench disturb --mechanism all --duration $dur --output /results/disturb.\$i >/results/disturb.\$i.txt 2>&1; i=\$((i + 1)); done"
			mkdir -p "$d"
			echo "$release" >"$d/release"
			# A guest the kernel crashed (run-vm's 3; seen under TCG: an
			# "Oops: int3" while 7.3 patched its own text) boots once more,
			# the first console kept as console-crashed.log.
			local try
			for try in 1 2; do
				vrc=0
				rm -rf "$work/res.$g"
				echo "# $PROG: booting $a ($release) -smp $smp under TCG$([ "$try" = 1 ] || echo ", second boot")" >&2
				"$kp/run-vm" --arch "$a" --accel tcg --smp "$smp" --mem 1024 \
					--timeout "$((240 + 120 * reps))" --kernel "$kernel" --initramfs "$work/initramfs.$a.cpio.gz" \
					--log "$d/console.log" --results "$work/res.$g" -- sh -c "$cmd" \
					>"$d/guest.txt" 2>&1 || vrc=$?
				[ "$vrc" -eq 3 ] && [ "$try" = 1 ] || break
				mv "$d/console.log" "$d/console-crashed.log"
				note "the $g guest stopped ($(grep -m1 -E 'Oops|panic|BUG' "$d/console-crashed.log" | sed 's/^\[[^]]*\] //' | cut -c1-80)); booting it once more (first console: $g/console-crashed.log)"
			done
			if [ -d "$work/res.$g" ]; then
				cp -R "$work/res.$g/." "$d/"
				n_ok=$((n_ok + 1))
			fi
			[ "$vrc" -eq 0 ] || [ "$vrc" -eq 1 ] ||
				{ note "the $g guest failed (run-vm exit $vrc): $(tail -n 1 "$d/guest.txt")"; rc=1; }
		done
		done
	done
	# shellcheck disable=SC2086
	"$MBB_PYTHON3" "$MBB_DATADIR/analysis/mbtool.py" vm-semantics "$out.incomplete" $guests ||
		{ rm -rf "$out.incomplete"; return 1; }
	if [ "$n_ok" -eq 0 ]; then
		note "no guest measured anything; kept as $out.incomplete"
		return 1
	fi
	mv "$out.incomplete" "$out"
	cat "$out/semantics.md"
	echo "# results: $out" >&2
	return $rc
}

