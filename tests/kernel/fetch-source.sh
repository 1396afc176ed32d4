#!/bin/sh
# SPDX-License-Identifier: MIT
# A kernel source of a newer Debian suite (kernel-patch/7.3: Debian's
# trixie-backports) is fetched by build-kernel through a private apt
# configuration, never installed. Checked here without the network:
#   - the mirror is the one the machine's apt names for this release, read
#     from one-line and deb822 sources (made-up /etc/apt trees), never the
#     security archive or a third-party list; none found is one line and
#     exit 2 naming MBB_DEBIAN_MIRROR;
#   - bad input for the 7.3 source is one line and exit 2 with nothing
#     fetched or written: the percpu-mutex and alt-fix variants 7.3 does not
#     have, an unknown variant (the message lists 7.3's), an unreachable
#     mirror (apt-get update fails: a closed port on loopback).
. "${top_srcdir:-.}/tests/lib.sh"

KP="$(cd "$top_srcdir" && pwd)/kernel-patch"
command -v apt-get >/dev/null 2>&1 || { echo "1..0 # SKIP apt-get not found (not Debian)"; exit 0; }
plan 8

mirror() { # DIR: kp_mirror with that apt tree
	MBB_APT_ETC=$1 PROG=t bash -c ". '$KP/common.sh' && kp_mirror" 2>&1
}
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
[ -n "$codename" ] || codename=bookworm

# 1. One-line sources: the release's own line, not the security one before it.
mkdir -p "$TMP/a/sources.list.d"
cat >"$TMP/a/sources.list" <<A
deb http://security.example/debian-security $codename-security main
deb [arch=amd64 signed-by=/x.gpg] http://mirror.example/debian $codename main contrib
A
[ "$(mirror "$TMP/a")" = http://mirror.example/debian ]
ok $? "one-line sources: the release's mirror ($(mirror "$TMP/a"))"

# 2. deb822: a third-party stanza first, then the release's.
mkdir -p "$TMP/b/sources.list.d"
cat >"$TMP/b/sources.list.d/other.sources" <<B
Types: deb
URIs: https://thirdparty.example/apt
Suites: nodistro
Components: main
B
cat >"$TMP/b/sources.list.d/debian.sources" <<B
Types: deb
URIs: http://deb822.example/debian
Suites: $codename $codename-updates
Components: main

Types: deb
URIs: http://deb822.example/debian-security
Suites: $codename-security
Components: main
B
[ "$(mirror "$TMP/b")" = http://deb822.example/debian ]
ok $? "deb822 sources: the release's stanza, not a third party's ($(mirror "$TMP/b"))"

# 3. None: the build stops with one line naming the override.
mkdir -p "$TMP/c"
export MBB_KERNEL_CACHE="$TMP/cache"
MBB_APT_ETC=$TMP/c "$KP/build-kernel" --source 7.3 --check-only >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q MBB_DEBIAN_MIRROR "$TMP/err"
ok $? "no mirror in /etc/apt: exit 2, one line naming MBB_DEBIAN_MIRROR ($(cat "$TMP/err"))"

# 4-7. Bad input for 7.3: one line, exit 2, nothing fetched.
while IFS='|' read -r name args want; do
	rm -rf "$TMP/cache"
	# shellcheck disable=SC2086
	"$KP"/$args >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- "$want" "$TMP/err" &&
		[ ! -e "$TMP/cache/debian-src" ]
	ok $? "$name: exit 2, one line, nothing fetched ($(cat "$TMP/err"))"
done <<CASES
7.3 has no percpu-mutex variant|build-kernel --source 7.3 --variant percpu-mutex|membarrier_cpu_mutexes
7.3 has no alt-fix variant|build-kernel --source 7.3 --variant alt-fix|fixed, unfixed or rseq-broken
an unknown variant names 7.3's|run-vm --source 7.3 --variant nosuch|fixed, unfixed or rseq-broken
6.1 has no rseq-broken variant|build-kernel --source 6.1 --variant rseq-broken|percpu-mutex or alt-fix
CASES

# 8. An unreachable mirror: apt-get update fails, one line, exit 2.
rm -rf "$TMP/cache"
MBB_DEBIAN_MIRROR=http://127.0.0.1:9/debian "$KP/build-kernel" --source 7.3 --check-only \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'apt-get update of trixie-backports' "$TMP/err" &&
	[ ! -e "$TMP/cache/debian-src" ]
ok $? "an unreachable mirror: exit 2, one line, nothing fetched ($(cat "$TMP/err"))"

done_testing
