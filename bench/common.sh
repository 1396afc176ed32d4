# SPDX-License-Identifier: MIT
# Shared by the helpers behind `mbbench sweep`, `plot` and `vm` (sourced,
# with PROG and MBB_DATADIR set first). One style for them: POSIX sh,
# `set -u`, one-line errors on stderr: die for bad input (exit 2), fail for
# a host failure (exit 1), note for progress. They run in the C locale: awk
# and printf read and write 0.5, never 0,5, whatever the caller's locale.

LC_ALL=C
export LC_ALL

die() {
	printf '%s\n' "$PROG: $*" >&2
	exit 2
}

fail() {
	printf '%s\n' "$PROG: $*" >&2
	exit 1
}

note() {
	printf '%s\n' "# $PROG: $*" >&2
}

# need_data PATH WHAT: a file of the installation; missing is an error.
need_data() {
	[ -e "$MBB_DATADIR/$1" ] || fail "$2 is missing: looked for $MBB_DATADIR/$1 (reinstall membarrier-bench)"
}

# A helper run from the source tree (not written by make, so MBB_PYTHON3 is
# still plain python3, as check-kernel runs bench/vm) takes the system's
# python3 where PATH's lacks scipy.stats: a version manager's python3 on
# PATH lacks Debian's python3-scipy. A guest without python3 keeps its own.
if [ "${MBB_PYTHON3:-}" = python3 ] && [ -x /usr/bin/python3 ] &&
	! python3 -c 'import scipy.stats' >/dev/null 2>&1 &&
	/usr/bin/python3 -c 'import scipy.stats' >/dev/null 2>&1; then
	MBB_PYTHON3=/usr/bin/python3
fi
