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

# The variants of the selected source, as "a, b or c".
kp_variants_or() {
	echo "${KP_VARIANTS:-fixed unfixed percpu-mutex alt-fix}" | sed 's/ \([^ ]*\)$/ or \1/; s/ \([^ ]*\) or/, \1 or/g; s/ \([^ ,]*\),/, \1,/g'
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
	# The variants a source has (VERSION's VARIANTS): 6.1 and 6.12 all
	# but rseq-broken; 7.3 has no percpu-mutex (upstream's own there).
	KP_VARIANTS=$(sed -n 's/^VARIANTS=//p' "$SOURCE_DIR/VERSION")
	[ -n "$KP_VARIANTS" ] || KP_VARIANTS="fixed unfixed percpu-mutex alt-fix"
	case " fixed unfixed percpu-mutex alt-fix rseq-broken " in
	*" $2 "*) ;;
	*) die "unknown kernel variant '$2' (use $(kp_variants_or); set --variant or KERNEL_VARIANT)" ;;
	esac
	case " $KP_VARIANTS " in
	*" $2 "*) ;;
	*) if [ "$2" = percpu-mutex ]; then
		die "no percpu-mutex variant of $1: targeted commands already take per-CPU mutexes there (membarrier_cpu_mutexes); use fixed"
	else
		die "kernel source $1 has no variant '$2' (use $(kp_variants_or); set --variant or KERNEL_VARIANT)"
	fi ;;
	esac
	KERNEL_SOURCE=$1
	KERNEL_VARIANT=$2
	FIXES_DIR=$KP_DIR/fixes
	[ ! -f "$SOURCE_DIR/fixes/series" ] || FIXES_DIR=$SOURCE_DIR/fixes
	ALT_DIR=$FIXES_DIR/alt
	PERCPU_DIR=$KP_DIR/percpu-mutex
	[ ! -f "$SOURCE_DIR/percpu-mutex/series" ] || PERCPU_DIR=$SOURCE_DIR/percpu-mutex
	case " $KP_VARIANTS " in
	*" percpu-mutex "*) ;;
	*) PERCPU_DIR=/nonexistent ;;
	esac
	RSEQ_BROKEN_DIR=$SOURCE_DIR/rseq-broken
	case ${KERNEL_ARCH:=x86_64} in
	x86_64 | arm64 | riscv64) ;;
	*) die "unknown kernel architecture '$KERNEL_ARCH' (use x86_64, arm64 or riscv64; set --arch or KERNEL_ARCH)" ;;
	esac
	# The options every architecture's kernel needs, then the machine's:
	# x86_64 the PC, arm64 and riscv64 QEMU's virt boards.
	CONFIG_FRAGMENT=$KP_DIR/config-fragment
	[ ! -f "$SOURCE_DIR/config-fragment" ] || CONFIG_FRAGMENT=$SOURCE_DIR/config-fragment
	CONFIG_FRAGMENTS=("$CONFIG_FRAGMENT" "$KP_DIR/config-fragment.$KERNEL_ARCH")
	DEBIAN_PACKAGE=$(kp_version DEBIAN_PACKAGE)
	DEBIAN_SUITE=$(kp_version DEBIAN_SUITE)
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
		KERNEL_MAKE_ARCH=x86_64
	else
		BUILD_DIR=$TREE_DIR/build-$KERNEL_ARCH
		HEADERS_DIR=$TREE_DIR/headers-$KERNEL_ARCH
		VARIANT_DIR=$TREE_DIR/$KERNEL_ARCH/$KERNEL_VARIANT
		BZIMAGE=$VARIANT_DIR/Image
		INITRAMFS=$TREE_DIR/initramfs-$KERNEL_ARCH.cpio.gz
		KERNEL_IMAGE_TARGET=Image
		# The kernel's name of the architecture (make ARCH=) and the
		# Debian cross compiler's prefix.
		case $KERNEL_ARCH in
		arm64) KERNEL_MAKE_ARCH=arm64 CROSS_PREFIX=aarch64-linux-gnu- ;;
		riscv64) KERNEL_MAKE_ARCH=riscv CROSS_PREFIX=riscv64-linux-gnu- ;;
		esac
		KERNEL_IMAGE_PATH=arch/$KERNEL_MAKE_ARCH/boot/Image
	fi
}

# A source from a newer Debian suite (VERSION's DEBIAN_SUITE, e.g.
# trixie-backports for linux-source-7.3) is not installed: apt-get
# download fetches it with a private configuration under the cache
# (its own sources list, lists and package cache), so that the user's
# /etc/apt is never changed, and dpkg-deb unpacks it beside them. The
# version is the one apt resolves the package to in that suite, never one
# written in the tree; debian-src/PACKAGE.version names the one fetched
# last, which the scripts use until build-kernel fetches again.

# kp_mirror: the Debian archive this machine's apt uses for its own
# release (/etc/apt, one-line or deb822 sources; $MBB_APT_ETC for a test),
# or $MBB_DEBIAN_MIRROR.
kp_mirror() {
	local codename etc=${MBB_APT_ETC:-/etc/apt}
	if [ -n "${MBB_DEBIAN_MIRROR:-}" ]; then
		echo "$MBB_DEBIAN_MIRROR"
		return 0
	fi
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || codename=bookworm
	cat "$etc/sources.list" "$etc"/sources.list.d/*.list \
		"$etc"/sources.list.d/*.sources 2>/dev/null |
		awk -v c="$codename" '
		function flush() { if (u != "" && (" " s " ") ~ (" " c " ")) { print u; exit } u = ""; s = "" }
		/^[[:space:]]*$/ { flush(); next }
		/^deb[[:space:]]/ {
			sub(/\[[^]]*\][[:space:]]*/, "")
			if ($3 == c) { print $2; exit }
			next }
		/^URIs:/ { u = $2 }
		/^Suites:/ { $1 = ""; s = $0 }
		END { flush() }' | head -n 1
}

# The architectures a private suite is read for: this machine's, and the
# guests' (arm64; riscv64, which Debian 12 has not, so that dpkg does not
# know it and apt is told).
kp_apt_archs() {
	{ dpkg --print-architecture 2>/dev/null || echo amd64; echo arm64; echo riscv64; } | awk '!seen[$0]++' | paste -sd,
}

# kp_apt SUITE PROGRAM ARGS...: apt-get or apt-cache with SUITE's private
# configuration.
kp_apt() {
	local d=$CACHE_ROOT/apt/$1 a archs=()
	shift
	for a in $(kp_apt_archs | tr ',' ' '); do
		archs+=(-o "APT::Architectures::=$a")
	done
	"$@" "${archs[@]}" -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts="$d/empty" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$d/empty" \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o APT::Sandbox::User=root
}

# kp_apt_update SUITE: write SUITE's sources list (the machine's mirror,
# Debian's archive keyring) and refresh its lists when they are older
# than a day or the list changed. Exit 2 with one line when apt cannot.
kp_apt_update() {
	local suite=$1 d=$CACHE_ROOT/apt/$1 mirror want keyring
	local kr=/usr/share/keyrings/debian-archive-keyring.gpg
	for keyring in apt-get apt-cache dpkg-deb; do
		command -v "$keyring" >/dev/null 2>&1 || die "$keyring not found: Debian's $suite is reached with apt"
	done
	[ -r "$kr" ] || die "$kr not found; install the Debian package debian-archive-keyring"
	mirror=$(kp_mirror)
	[ -n "$mirror" ] || die "no Debian mirror for this release found in /etc/apt; set MBB_DEBIAN_MIRROR to one (e.g. http://deb.debian.org/debian)"
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/empty" ||
		die "cannot write $d; set MBB_KERNEL_CACHE to a writable directory"
	want="deb [signed-by=$kr arch=$(kp_apt_archs)] $mirror $suite main"
	if [ "$(cat "$d/sources.list" 2>/dev/null)" != "$want" ]; then
		printf '%s\n' "$want" >"$d/sources.list"
		rm -f "$d/updated"
	fi
	if [ -z "$(find "$d/updated" -mmin -1440 2>/dev/null)" ]; then
		if ! kp_apt "$suite" apt-get -q update >"$d/update.log" 2>&1 ||
			grep -q '^\(W\|E\): .*\(Failed to fetch\|not signed\|NO_PUBKEY\|does not have a Release\)' "$d/update.log"; then
			die "apt-get update of $suite from $mirror failed: $(grep -m1 '^\(E\|W\):' "$d/update.log" || tail -n 1 "$d/update.log") (network, or set MBB_DEBIAN_MIRROR)"
		fi
		touch "$d/updated"
	fi
}

# kp_apt_fetch SUITE PACKAGE[:ARCH] DIR: download the version of PACKAGE
# that SUITE resolves to and unpack it into DIR (once: DIR/done). Prints
# the version.
kp_apt_fetch() {
	local suite=$1 pkg=$2 dir=$3 ver w
	ver=$(kp_apt "$suite" apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p' | head -n 1)
	case $ver in
	'' | '(none)') die "Debian's $suite has no package $pkg (apt-cache policy $pkg finds no candidate in $CACHE_ROOT/apt/$suite)" ;;
	esac
	dir=${dir//@VERSION@/$ver}
	if [ ! -f "$dir/done" ]; then
		mkdir -p "$(dirname "$dir")"
		w=$(mktemp -d "$(dirname "$dir")/.fetch.XXXXXX")
		if ! (cd "$w" && kp_apt "$suite" apt-get -q download "$pkg=$ver") >"$w.log" 2>&1; then
			rm -rf "$w"
			fail "apt-get download $pkg=$ver from $suite failed: $(tail -n 1 "$w.log")"
		fi
		mkdir "$w/x"
		dpkg-deb -x "$w"/*.deb "$w/x" || { rm -rf "$w"; fail "cannot unpack $pkg $ver"; }
		touch "$w/x/done"
		rm -rf "$dir" "$w.log"
		mv "$w/x" "$dir"
		rm -rf "$w"
	fi
	echo "$ver"
}

# kp_fetch_source: the selected source's package from its suite, when it
# has one and no MBB_KERNEL_TARBALL is given; then the paths again.
kp_fetch_source() {
	local ver
	[ -n "$DEBIAN_SUITE" ] && [ -z "${MBB_KERNEL_TARBALL:-}" ] || return 0
	kp_apt_update "$DEBIAN_SUITE"
	ver=$(kp_apt_fetch "$DEBIAN_SUITE" "$DEBIAN_PACKAGE" \
		"$CACHE_ROOT/debian-src/$DEBIAN_PACKAGE-@VERSION@")
	echo "$ver" >"$CACHE_ROOT/debian-src/$DEBIAN_PACKAGE.version"
	kp_select "$KERNEL_SOURCE" "$KERNEL_VARIANT"
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
	if [ -n "$DEBIAN_SUITE" ]; then
		# Fetched, not installed: the version fetched last, if any.
		INSTALLED_VERSION=$(cat "$CACHE_ROOT/debian-src/$DEBIAN_PACKAGE.version" 2>/dev/null || true)
		own=$CACHE_ROOT/debian-src/$DEBIAN_PACKAGE-${INSTALLED_VERSION:-none}/usr/src/$DEBIAN_PACKAGE.tar.xz
		[ -n "${MBB_KERNEL_TARBALL:-}" ] || TARBALL=$own
	fi
	if st=$(stat -L -c '%s %Y' -- "$TARBALL" 2>/dev/null); then
		TARBALL_ID="$(realpath -- "$TARBALL") $st"
	fi
	if [ -n "$DEBIAN_SUITE" ]; then
		[ "$TARBALL" = "$own" ] && [ -r "$TARBALL" ] || INSTALLED_VERSION=""
	elif [ "$TARBALL" = "$own" ] ||
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
	if [ -f "$RSEQ_BROKEN_DIR/series" ]; then
		series_in "$RSEQ_BROKEN_DIR"
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
	if [ "$KERNEL_VARIANT" = rseq-broken ] && [ -f "$RSEQ_BROKEN_DIR/series" ]; then
		series_in "$RSEQ_BROKEN_DIR"
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
