#!/bin/sh
# SPDX-License-Identifier: MIT
# release_tree (tests/release.sh, used by check-fresh for its chroot and by
# every test for its scratch folder) removes a tree only when nothing is
# left mounted under it, and never across a file system. A scratch root
# gets a tmpfs and a bind mount of a folder outside it (as check-fresh
# binds the host's /dev); a process with its cwd in the bind mount makes
# that unmount fail: the root is left in place with a line saying why, and
# the folder outside (the "host") is untouched. Once the process is gone
# the same call removes the root, and still nothing outside. Needs root.
. "${srcdir:-.}/tests/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP mounting a tmpfs and a bind mount needs root"
	exit 0
fi
r=$TMP/root host=$TMP/host
mkdir -p "$r/inner" "$r/bound" "$r/plain" "$host/sub" || exit 1
echo keep >"$host/sub/file" && echo mine >"$r/plain/file"
if ! mount -t tmpfs tmpfs "$r/inner" 2>/dev/null || ! mount --bind "$host" "$r/bound" 2>/dev/null; then
	echo "1..0 # SKIP cannot mount here (a container without CAP_SYS_ADMIN?)"
	exit 0
fi
mkdir "$r/inner/deeper" && mount -t tmpfs tmpfs "$r/inner/deeper" && echo x >"$r/inner/deeper/f"
plan 8
# A process with its cwd inside the bind mount: umount fails, EBUSY.
(cd "$r/bound/sub" && exec sleep 300) &
busy=$!
sleep 0.2
umount "$r/bound" 2>/dev/null
[ $? -ne 0 ]
ok $? "the busy bind mount cannot be unmounted (the failure under test)"
PROG=release-test release_tree "$r" 2>"$TMP/err"
rc=$?
[ $rc -ne 0 ] && [ -d "$r" ] && grep -q "^# release-test: $r left in place: still mounted under it: .*$r/bound" "$TMP/err"
ok $? "the root is left in place, and a line says what is still mounted (rc=$rc: $(head -c 200 "$TMP/err"))"
[ "$(cat "$host/sub/file" 2>/dev/null)" = keep ] && [ -d "$host/sub" ]
ok $? "nothing outside the root is touched: the bound folder's file is still there"
[ "$(cat "$r/plain/file" 2>/dev/null)" = mine ]
ok $? "nothing of the root is removed while something is mounted under it"
! mounts_under "$r" | grep -q "^$r/inner"
ok $? "what could be unmounted was, deepest first (the tmpfs and the one inside it)"
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null
PROG=release-test release_tree "$r" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ ! -e "$r" ] && [ ! -s "$TMP/err" ]
ok $? "once nothing holds it, the same call unmounts and removes the root (rc=$rc $(head -c 120 "$TMP/err"))"
[ "$(cat "$host/sub/file" 2>/dev/null)" = keep ] && [ -z "$(mounts_under "$TMP")" ]
ok $? "and still nothing outside it is touched; nothing is left mounted"
# check-fresh removes its roots (and debootstrap's) only through release_tree.
f=${srcdir:-.}/tests/check-fresh
grep -q '^\. "$top/tests/release.sh"' "$f" && ! grep -n 'rm -r' "$f" | grep -v one-file-system | grep -q . &&
	! grep -q 'umount -[lR]' "$f"
ok $? "check-fresh sources tests/release.sh and has no other rm -r, umount -l or umount -R"
done_testing
