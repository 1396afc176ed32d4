# SPDX-License-Identifier: GPL-2.0
# Shared by the kernel-patch scripts (sourced, not run): paths, errors and
# stage timing. Callers set PROG before sourcing.

# shellcheck shell=bash
# The variables below are used by the scripts that source this file.
# shellcheck disable=SC2034

KP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The suite's CSV reader (bench/mbb-csv, beside kernel-patch/ in the source
# tree and under the install prefix): every read of a results table goes
# through it, by column name, with CSV quoting.
MBB_CSV=$(cd "$KP_DIR/.." && pwd)/bench/mbb-csv
if [ -z "${MBB_KERNEL_CACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ]; then
	echo "${PROG:-kernel-patch}: HOME is not set; set MBB_KERNEL_CACHE to the directory for kernel builds" >&2
	exit 2
fi
CACHE_ROOT=${MBB_KERNEL_CACHE:-${XDG_CACHE_HOME:-${HOME:-}/.cache}/membarrier-bench}

# Sources with a series: each in a directory of its own (kernel-patch/6.1/,
# kernel-patch/6.12/) with its VERSION, series and patches.
kp_sources() {
	local d
	for d in "$KP_DIR"/*/VERSION; do
		[ -f "$d" ] && basename "$(dirname "$d")"
	done
	return 0
}

# kp_select SOURCE VARIANT: set the paths of one kernel. SOURCE is a
# directory of kernel-patch/ with a VERSION file; VARIANT is fixed (the
# seed series, then the fixes in fixes/series), unfixed (the seed series
# only), percpu-mutex (fixed, then percpu-mutex/series) or alt-fix (the
# seed series, then fixes/alt/series: the other form of the fix, for an
# A/B of the two; fix-forms-ab.sh). Variants share
# the source and build trees, and keep their own bzImage and stamp, so
# switching between them rebuilds only what their patches touch.
kp_select() {
	case $1 in
	'' | */* | .*) SOURCE_DIR=/nonexistent ;;
	*) SOURCE_DIR=$KP_DIR/$1 ;;
	esac
	[ -f "$SOURCE_DIR/VERSION" ] ||
		die "unknown kernel source '$1' (known: $(kp_sources | paste -sd' '); set --source or KERNEL_SOURCE)"
	case $2 in
	fixed | unfixed | percpu-mutex | alt-fix) ;;
	*) die "unknown kernel variant '$2' (use fixed, unfixed, percpu-mutex or alt-fix; set --variant or KERNEL_VARIANT)" ;;
	esac
	KERNEL_SOURCE=$1
	KERNEL_VARIANT=$2
	FIXES_DIR=$KP_DIR/fixes
	[ ! -f "$SOURCE_DIR/fixes/series" ] || FIXES_DIR=$SOURCE_DIR/fixes
	ALT_DIR=$FIXES_DIR/alt
	PERCPU_DIR=$KP_DIR/percpu-mutex
	[ ! -f "$SOURCE_DIR/percpu-mutex/series" ] || PERCPU_DIR=$SOURCE_DIR/percpu-mutex
	case ${KERNEL_ARCH:=x86_64} in
	x86_64 | arm64) ;;
	*) die "unknown kernel architecture '$KERNEL_ARCH' (use x86_64 or arm64; set --arch or KERNEL_ARCH)" ;;
	esac
	# The options every architecture's kernel needs, then the machine's:
	# x86_64 the PC, arm64 QEMU's virt board.
	CONFIG_FRAGMENT=$KP_DIR/config-fragment
	[ ! -f "$SOURCE_DIR/config-fragment" ] || CONFIG_FRAGMENT=$SOURCE_DIR/config-fragment
	CONFIG_FRAGMENTS=("$CONFIG_FRAGMENT" "$KP_DIR/config-fragment.$KERNEL_ARCH")
	DEBIAN_PACKAGE=$(kp_version DEBIAN_PACKAGE)
	PROVEN_DEBIAN_VERSION=$(kp_version PROVEN_DEBIAN_VERSION)
	PROVEN_KERNEL_VERSION=$(kp_version PROVEN_KERNEL_VERSION)
	# Any release of the same major.minor is taken if the series applies.
	KERNEL_LINE=${PROVEN_KERNEL_VERSION%.*}
	TARBALL=${MBB_KERNEL_TARBALL:-$(kp_version TARBALL)}
	kp_installed
	TREE_DIR=$CACHE_ROOT/linux-$TREE_ID
	SRC_DIR=$TREE_DIR/src
	# x86_64 keeps the paths it always had; another architecture builds
	# in trees of its own from the same source (one patch state, several
	# O= directories), its kernel an Image, not a bzImage.
	if [ "$KERNEL_ARCH" = x86_64 ]; then
		BUILD_DIR=$TREE_DIR/build
		HEADERS_DIR=$TREE_DIR/headers
		VARIANT_DIR=$TREE_DIR/$KERNEL_VARIANT
		BZIMAGE=$VARIANT_DIR/bzImage
		INITRAMFS=$TREE_DIR/initramfs.cpio.gz
		KERNEL_IMAGE_TARGET=bzImage
		KERNEL_IMAGE_PATH=arch/x86/boot/bzImage
		CROSS_PREFIX=""
	else
		BUILD_DIR=$TREE_DIR/build-$KERNEL_ARCH
		HEADERS_DIR=$TREE_DIR/headers-$KERNEL_ARCH
		VARIANT_DIR=$TREE_DIR/$KERNEL_ARCH/$KERNEL_VARIANT
		BZIMAGE=$VARIANT_DIR/Image
		INITRAMFS=$TREE_DIR/initramfs-$KERNEL_ARCH.cpio.gz
		KERNEL_IMAGE_TARGET=Image
		KERNEL_IMAGE_PATH=arch/arm64/boot/Image
		CROSS_PREFIX=aarch64-linux-gnu-
	fi
}

# kp_installed: what the tarball in use is. INSTALLED_VERSION is the
# Debian version of DEBIAN_PACKAGE when TARBALL is that package's file
# (empty for a tarball given by MBB_KERNEL_TARBALL), TARBALL_ID names the
# file as it is now (path, size, modification time), and TREE_ID names its
# tree in the cache: the Debian version, or a hash of TARBALL_ID. So
# another installed release, or another tarball, gets a tree of its own.
kp_installed() {
	local st own
	INSTALLED_VERSION=""
	TARBALL_ID=""
	own=$(kp_version TARBALL)
	if st=$(stat -L -c '%s %Y' -- "$TARBALL" 2>/dev/null); then
		TARBALL_ID="$(realpath -- "$TARBALL") $st"
	fi
	if [ "$TARBALL" = "$own" ] ||
		[ "$(realpath -q -- "$TARBALL" || true)" = "$(realpath -q -- "$own" || true)" ]; then
		INSTALLED_VERSION=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' \
			"$DEBIAN_PACKAGE" 2>/dev/null | sed -n 's/^ii *//p' || true)
	fi
	if [ -n "$INSTALLED_VERSION" ]; then
		TREE_ID=$INSTALLED_VERSION
	elif [ -n "$TARBALL_ID" ]; then
		TREE_ID=tarball-$(printf '%s\n' "$TARBALL_ID" | sha256sum | cut -c1-12)
	else
		# No tarball: the tree of the proven release, if it was built.
		TREE_ID=$PROVEN_DEBIAN_VERSION
	fi
}

# installed_desc [KERNEL_VERSION]: what the tarball is, for messages:
# "linux-source-6.1 6.1.176-1 (Linux 6.1.176)" or "Linux 6.1.176 from FILE".
installed_desc() {
	if [ -n "$INSTALLED_VERSION" ]; then
		echo "$DEBIAN_PACKAGE $INSTALLED_VERSION${1:+ (Linux $1)}"
	else
		echo "${1:+Linux $1 from }$TARBALL"
	fi
}

# VERSION holds plain NAME=value lines.
kp_version() {
	sed -n "s/^$1=//p" "$SOURCE_DIR/VERSION"
}

# One-line error, exit 2: bad input or a missing prerequisite.
die() {
	echo "$PROG: $*" >&2
	exit 2
}

# One-line error, exit 1: something that should have worked failed.
fail() {
	echo "$PROG: $*" >&2
	exit 1
}

note() {
	echo "$PROG: $*" >&2
}

# stage_begin NAME / stage_end: print how long each stage took.
stage_begin() {
	STAGE_NAME=$1
	STAGE_T0=$(date +%s)
}

stage_end() {
	note "stage $STAGE_NAME: $(($(date +%s) - STAGE_T0)) s${1:+ ($1)}"
}

# Hash of files given as arguments, by content (order matters).
hash_files() {
	cat "$@" | sha256sum | cut -c1-16
}

# series_in DIR: the patches named in DIR/series, in order, as paths
# relative to kernel-patch/.
series_in() {
	local rel=${1#"$KP_DIR"} p
	rel=${rel#/}
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1/series" |
		while IFS= read -r p; do
			echo "${rel:+$rel/}$p"
		done
}

# Every patch build-kernel may apply to the selected source: the seed
# series, then the fixes, then percpu-mutex/, whatever the variant; and
# fixes/alt/ (the fix's other form, for kernel-patch/fix-forms-ab.sh) for
# the alt-fix variant only: it changes kernel/sched/core.c, which a check
# of the usual variants (--check-only, tests/kernel/kernel-version.sh's trees of
# the files the series touch) need not extract.
all_patches() {
	seed_patches
	if [ -f "$FIXES_DIR/series" ]; then
		series_in "$FIXES_DIR"
	fi
	if [ "${KERNEL_VARIANT:-}" = alt-fix ] && [ -f "$ALT_DIR/series" ]; then
		series_in "$ALT_DIR"
	fi
	if [ -f "$PERCPU_DIR/series" ]; then
		series_in "$PERCPU_DIR"
	fi
}

# The files of the kernel tree that all_patches change, one per line.
series_files() {
	all_patches | (cd "$KP_DIR" && while IFS= read -r p; do
		sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$p"
	done) | LC_ALL=C sort -u
}

# The seed series of the selected source.
seed_patches() {
	series_in "$SOURCE_DIR"
}

# Every patch of the selected kernel, in order: the seed series, then the
# fixes unless the variant is unfixed or alt-fix (which takes fixes/alt/
# instead), then percpu-mutex/ for that variant.
series_patches() {
	seed_patches
	case $KERNEL_VARIANT in
	unfixed) ;;
	alt-fix) [ ! -f "$ALT_DIR/series" ] || series_in "$ALT_DIR" ;;
	*) [ ! -f "$FIXES_DIR/series" ] || series_in "$FIXES_DIR" ;;
	esac
	if [ "$KERNEL_VARIANT" = percpu-mutex ] && [ -f "$PERCPU_DIR/series" ]; then
		series_in "$PERCPU_DIR"
	fi
}

# ctxsw_compare A B FILE_A FILE_B: ctxsw.c's REPEAT lines of two kernels
# (or of several boots each, concatenated): mean +- 95% CI (Student's t)
# of each, and B - A with Welch's CI, as TAP comments. Fails with too
# few valid repeats.
ctxsw_compare() {
	awk -v a="$1" -v b="$2" '
	function t95(df) {
		if (df < 1) return -1
		if (df <= 30) return T[int(df)]
		if (df <= 40) return 2.021
		if (df <= 60) return 2.000
		if (df <= 120) return 1.980
		return 1.960
	}
	BEGIN {
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", T, " ")
	}
	/^REPEAT / {
		k = (FILENAME == ARGV[1]) ? 1 : 2
		v = $3; sub(/^ns_per_switch=/, "", v)
		if (v + 0 <= 0) bad = 1
		n[k]++; x[k, n[k]] = v + 0; sum[k] += v
	}
	END {
		if (bad || n[1] < 2 || n[2] < 2) { print "# ctxsw: too few valid repeats"; exit 1 }
		for (k = 1; k <= 2; k++) {
			m[k] = sum[k] / n[k]; ss = 0
			for (i = 1; i <= n[k]; i++) ss += (x[k, i] - m[k]) ^ 2
			var[k] = ss / (n[k] - 1); se2[k] = var[k] / n[k]
			ci[k] = t95(n[k] - 1) * sqrt(se2[k])
		}
		d = m[2] - m[1]; se = sqrt(se2[1] + se2[2])
		df = se ^ 4 / (se2[1] ^ 2 / (n[1] - 1) + se2[2] ^ 2 / (n[2] - 1))
		dci = t95(int(df)) * se
		printf "# ns per switch: %s %.1f +- %.1f (n=%d), %s %.1f +- %.1f (n=%d), 95%% CI\n", a, m[1], ci[1], n[1], b, m[2], ci[2], n[2]
		printf "# %s - %s: %+.1f +- %.1f ns per switch (Welch, df %.1f), %+.1f%% +- %.1f%% of %s; %s\n", b, a, d, dci, df, 100 * d / m[1], 100 * dci / m[1], a, (d - dci > 0 || d + dci < 0) ? "the interval excludes 0" : "the interval includes 0"
	}' "$3" "$4"
}

# with_signoff PATCH (with-signoff.sh): the patch with a sign-off, for checkpatch.
# shellcheck source=with-signoff.sh
. "$KP_DIR/with-signoff.sh"

kp_select "${KERNEL_SOURCE:-6.1}" "${KERNEL_VARIANT:-fixed}"
