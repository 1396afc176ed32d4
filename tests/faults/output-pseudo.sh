#!/bin/sh
# SPDX-License-Identifier: MIT
# An output path in /proc, /sys or /dev (not /dev/shm), or on a kernel
# pseudo-filesystem mounted anywhere (proc, sysfs, cgroup, tracefs, ...),
# is bad input in every command that writes: one line naming the fix, exit
# 2, nothing written. Before, sweep --output /proc/x exited 1 (ENOENT from
# mkdir), a sweep into /dev ran, and a C --output under a cgroup file system
# would have made a cgroup.
. "${srcdir:-.}/tests/lib.sh"
need_python
R=$(cd "${srcdir:-.}" && pwd)/results/reference/vm-quick-20261203T141826Z
mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 1
# The paths: the three top folders, and (as root) a proc mounted in $TMP.
paths="/proc/mbb-pseudo /sys/mbb-pseudo /dev/mbb-pseudo"
mnt=
if [ "$(id -u)" -eq 0 ] && mkdir "$TMP/pfs" && mount -t proc proc "$TMP/pfs" 2>/dev/null; then
	mnt=$TMP/pfs paths="$paths $mnt/mbb-pseudo"
fi
cmds="calls --mechanism null --iterations 10 --output @
calls --mechanism null --iterations 10 --json @
info --json @
list --json @
doctor --probe global --output @
anatomy --save-events @
sweep --output @
sweep --out-root @
vm scale --out @
calibrate --plant 5 --output @
report $R --output @
compare $R $R --output @
advise --validate --results $R --output @"
n=$(printf '%s\n' "$cmds" | wc -l)
plan $((n * $(echo $paths | wc -w) + 1))
for p in $paths; do
	while read -r c; do
		# shellcheck disable=SC2046 # the command's words, @ the path
		set -- $(printf '%s\n' "$c" | sed "s|@|$p|")
		"$MBBENCH" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
		rc=$? l=$(wc -l <"$TMP/err")
		[ $rc -eq 2 ] && [ "$l" -eq 1 ] && grep -q 'which holds no results (choose a path on a disk' "$TMP/err" &&
			[ -z "$(ls -A)" ] && ! ls -d "$p"* >/dev/null 2>&1
		ok $? "$1 $2 ... $p: exit 2, one line naming the fix, nothing written (rc=$rc, $l lines: $(head -c 140 "$TMP/err"))"
	done <<EOF2
$cmds
EOF2
done
"$MBBENCH" calls --mechanism null --iterations 10 --format csv --output /dev/shm/mbb-pseudo-$$ >/dev/null 2>&1 &&
	[ -s /dev/shm/mbb-pseudo-$$/calls.csv ]
ok $? "/dev/shm (a tmpfs for files) is allowed"
rm -rf /dev/shm/mbb-pseudo-$$
done_testing
