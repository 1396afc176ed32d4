# SPDX-License-Identifier: MIT
# Shared by the helpers behind `mbbench sweep`, `plot` and `vm` (sourced,
# with PROG and MBB_DATADIR set first). One style for them: POSIX sh,
# `set -u`, one-line errors on stderr: die for bad input (exit 2), fail for
# a host failure (exit 1), note for progress. They run in the C locale: awk
# and printf read and write 0.5, never 0,5, whatever the caller's locale.

LC_ALL=C
export LC_ALL
# An unset, empty or missing TMPDIR (or one this user cannot write in) is
# /tmp, for the helper and everything it starts: it just works.
case ${TMPDIR:-} in /*) [ -d "$TMPDIR" ] && [ -w "$TMPDIR" ] && [ -x "$TMPDIR" ] || TMPDIR=/tmp ;; *) TMPDIR=/tmp ;; esac
export TMPDIR

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

# opt_value OPTION HINT [VALUE]: an option's value was given and is not
# empty (an empty one would quietly mean the default), else die naming
# what to give. Call it as: opt_value "$1" "a duration (e.g. 300)" ${2+"$2"}
opt_value() {
	[ $# -ge 3 ] || die "$1 needs $2 (see --help)"
	[ -n "$3" ] || die "$1 needs $2, not an empty value (see --help)"
	case $3 in --*) die "$1 needs $2 before the next option $3 (see --help)" ;; esac
}

# check_pseudo OPTION PATH: die when PATH (its nearest existing part) is in
# /proc, /sys, /dev (not /dev/shm) or on a pseudo-filesystem mounted
# elsewhere, by statfs f_type: the rule of pseudo_fs() in lib/util.c.
check_pseudo() {
	_cp=$2
	case $_cp in /*) ;; *) _cp=$(pwd -P)/$_cp ;; esac
	while [ -n "$_cp" ] && [ ! -e "$_cp" ] && [ ! -L "$_cp" ]; do _cp=${_cp%/*}; done
	_cp=$(readlink -f -- "${_cp:-/}" 2>/dev/null) || _cp=/
	_ct=${_cp#/} _ct=/${_ct%%/*}
	case $_cp/ in /dev/shm/*) _ct= ;; esac
	case $_ct in /proc | /sys | /dev) ;;
	*) case $(stat -f -c %t -- "$_cp" 2>/dev/null) in
		9fa0 | 62656572 | 64626720 | 74726163 | 27e0eb | 63677270 | 73636673 | 6165676c | \
			cafe4a11 | 62656570 | 1cd1 | de5e81e4 | 42494e4d | 65735543 | 19800202 | \
			6e736673 | f97cff8c) _ct="a $(stat -f -c %T -- "$_cp") file system" ;;
		*) return 0 ;;
		esac ;;
	esac
	die "$1 $2 is in $_ct, which holds no results (choose a path on a disk, e.g. under results/)"
}

# check_folder PATH: a results folder given on the command line, or die
# naming the fix (the rule of check_folder in analysis/mbresults.py).
check_folder() {
	[ -n "$1" ] || die "the results folder is '' (empty): give the path of a results folder, e.g. one under results/runs/ from mbbench sweep"
	printf '%s\n' "$1" | awk -F/ 'length($0) > 4095 { exit 1 } { for (i = 1; i <= NF; i++) if (length($i) > 255) exit 1 }' ||
		die "$(printf '%.60s' "$1")...: too long a path: give a shorter one (move the folder, or link to it from a shorter path)"
	if [ -f "$1" ]; then
		_cf="a folder from mbbench sweep"
		[ ! -f "$(dirname -- "$1")/run.json" ] || _cf=$(dirname -- "$1")
		die "$1 is a file, not a results folder: give the folder itself ($_cf)"
	fi
	[ -e "$1" ] || [ -L "$1" ] || die "$1 does not exist (give a results folder from mbbench sweep, e.g. one under results/runs/)"
	[ -d "$1" ] || die "$1 is not a directory (give a results folder from mbbench sweep)"
}

# nofile_short NEED: a shell and its children need descriptors: below NEED
# a point, a pipe or the report fails halfway with no word. Prints why and
# fails where the open-file limit is lower.
nofile_short() {
	_nf=$(ulimit -n 2>/dev/null)
	case $_nf in '' | *[!0-9]*) return 0 ;; esac
	[ "$_nf" -ge "$1" ] && return 0
	echo "the open-file limit is $_nf (ulimit -n); the sweep needs at least $1: raise it (ulimit -n 1024)"
	return 1
}

# cpu_limit_short PREDICTED_S: a CPU-time limit (ulimit -t, prlimit --cpu)
# is per process: the sweep's own process (its loop, then its finishing,
# exec'd in it) lives the whole run, and a point's spinning threads use
# their CPUs for the point's whole time. Under a limit shorter than the
# run the kernel kills them partway (SIGKILL at the hard limit). Prints
# why and fails where the limit is below the prediction and half again
# (for a busy host).
cpu_limit_short() {
	_cl=$(ulimit -S -t 2>/dev/null)
	case $_cl in '' | *[!0-9]*) return 0 ;; esac
	_need=$(($1 * 3 / 2))
	[ "$_cl" -ge "$_need" ] && return 0
	echo "a CPU-time limit of $_cl s per process is set (ulimit -t, prlimit --cpu); this sweep needs $_need s (the $1 s predicted, and half again for a busy host): raise it (ulimit -t $_need) or lower --budget"
	return 1
}

# loadmark, loadrecord EXPERIMENT NAME (the sweep's, with its $dir and
# fail): the host's load around each point: the 1-minute load average and the
# steal and total jiffies of /proc/stat's cpu line, before and after it, as
# a line of raw/load.txt (EXPERIMENT NAME LOAD_BEFORE LOAD_AFTER STEAL TOTAL,
# the jiffies as the point's difference). Read with the shell's own read, so
# nothing is started next to a point; a host without them records "-".
loadmark() { # sets lm_load lm_steal lm_total
	lm_load=- lm_steal=- lm_total=-
	read -r lm_load _ </proc/loadavg 2>/dev/null || lm_load=-
	# shellcheck disable=SC2034
	if read -r _ u ni sy id io hi si st _ </proc/stat 2>/dev/null && [ -n "$st" ]; then
		lm_steal=$st lm_total=$((u + ni + sy + id + io + hi + si + st))
	fi
}
loadrecord() { # experiment name: after the point, from the marks before it
	l0=$lm_load s0=$lm_steal t0=$lm_total
	loadmark
	if [ "$s0" != - ] && [ "$lm_steal" != - ]; then ds=$((lm_steal - s0)) dt=$((lm_total - t0))
	else ds=- dt=-; fi
	printf '%s\n' "$1 $2 $l0 $lm_load $ds $dt" >>"$dir/raw/load.txt" || fail "cannot write $dir/raw/load.txt"
}
