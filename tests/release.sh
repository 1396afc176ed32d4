# SPDX-License-Identifier: MIT
# Removing a tree that things were mounted into (a chroot with the host's
# /sys and /dev bound in, a test's scratch folder with a tmpfs in it):
# sourced by tests/lib.sh and tests/check-fresh, the one place that does
# it. POSIX sh. Everything mounted under the tree is unmounted, deepest
# first, from /proc/mounts; the tree is removed only when nothing is left
# mounted under it, and never across a file system (rm --one-file-system);
# otherwise it is left in place and a line on stderr says why. No lazy
# unmount: a busy mount has a process in it, and a tree is never removed
# under a process.

# mounts_under DIR: every mount point at or under DIR, deepest first
# (/proc/mounts escapes a space, tab, newline and backslash in octal).
mounts_under() {
	awk -v r="$1/" '{ m = $2; gsub(/\\040/, " ", m); gsub(/\\011/, "\t", m)
		gsub(/\\012/, "\n", m); gsub(/\\134/, "\\", m)
		if (index(m "/", r) == 1) print length(m) "\t" m }' /proc/mounts 2>/dev/null |
		sort -rn | cut -f 2-
}

# unmount_under DIR: unmount what is mounted under DIR, deepest first;
# 0 when nothing is left mounted there, else 1 with a line on stderr.
unmount_under() {
	_ru_d=$(cd -P -- "$1" 2>/dev/null && pwd -P) || _ru_d=$1
	mounts_under "$_ru_d" | while IFS= read -r _ru_m; do
		umount -- "$_ru_m" 2>/dev/null || :
	done
	_ru_left=$(mounts_under "$_ru_d" | tr '\n' ' ')
	[ -n "$_ru_left" ] || return 0
	printf '# %s: %s left in place: still mounted under it: %s(unmount them, then remove it)\n' \
		"${PROG:-release}" "$1" "$_ru_left" >&2
	return 1
}

# release_tree DIR: unmount_under DIR, then remove DIR on its own file
# system only; 1 (the tree left in place, and why on stderr) when
# something under it could not be unmounted.
release_tree() {
	[ -e "$1" ] || [ -L "$1" ] || return 0
	unmount_under "$1" || return 1
	rm -rf --one-file-system -- "$1"
}
