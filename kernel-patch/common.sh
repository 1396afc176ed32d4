# SPDX-License-Identifier: GPL-2.0
# Shared by the kernel-patch scripts (sourced, not run): paths, errors and
# stage timing. Callers set PROG before sourcing.

# shellcheck shell=bash
# The variables below are used by the scripts that source this file.
# shellcheck disable=SC2034

KP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_ROOT=${MBB_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/membarrier-bench}

# VERSION holds plain NAME=value lines.
kp_version() {
	sed -n "s/^$1=//p" "$KP_DIR/VERSION"
}

KERNEL_VERSION=$(kp_version KERNEL_VERSION)
DEBIAN_PACKAGE=$(kp_version DEBIAN_PACKAGE)
DEBIAN_VERSION=$(kp_version DEBIAN_VERSION)
TARBALL=${LINUX_SOURCE_TARBALL:-$(kp_version TARBALL)}
TREE_DIR=$CACHE_ROOT/linux-$DEBIAN_VERSION
SRC_DIR=$TREE_DIR/src
BUILD_DIR=$TREE_DIR/build
BZIMAGE=$TREE_DIR/bzImage
HEADERS_DIR=$TREE_DIR/headers

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

# Patches named in the series file, one per line, in order.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$KP_DIR/series"
}
