#!/bin/sh
# SPDX-License-Identifier: MIT
# build-kernel takes any point release of the kernel line its series is for
# when the series and fixes/ apply to it, with a one-line note when it is
# not the release in kernel-patch/6.1/VERSION, and refuses, with one line
# naming the tarball's version, the proven one and the first patch that
# fails (exit 2), a tree the series does not apply to or another
# major.minor. Each tarball gets a tree of its own in the cache.
#
# The older point release is tests/golden/linux-6.1.176-1: the files the
# series changes as Debian's linux-source-6.1 6.1.176-1 (bookworm main) has
# them, and the version lines of its top Makefile, kept as Makefile.top (a
# file named Makefile would be taken for a build product) (GPL-2.0 kernel files;
# membarrier.h is MIT). The installed linux-source-6.1 is checked too when
# there is one (`build-kernel --check-only` reads only those files out of
# it: 6-15 s, the whole .tar.xz is decompressed).
. "${top_srcdir:-.}/tests/lib.sh"

KP=$(cd "${top_srcdir:-.}/kernel-patch" && pwd)
BK=$KP/build-kernel
FIXTURE=$(cd "${top_srcdir:-.}/tests/golden/linux-6.1.176-1" && pwd)
for t in bash tar xz patch sha256sum; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "1..0 # SKIP $t not found (build-kernel --check-only needs tar, xz-utils and patch)"
		exit 77
	fi
done
proven=$(sed -n 's/^PROVEN_DEBIAN_VERSION=//p' "$KP/6.1/VERSION")
own_tarball=$(sed -n 's/^TARBALL=//p' "$KP/6.1/VERSION")
# Nothing here may touch the user's kernel cache.
MBB_KERNEL_CACHE=$TMP/cache
export MBB_KERNEL_CACHE
unset MBB_KERNEL_TARBALL KERNEL_SOURCE KERNEL_VARIANT
cd "$TMP" || exit 99

plan 17

# mktree NAME: a copy of the fixture as $TMP/NAME/linux-source-6.1.
mktree() {
	mkdir -p "$TMP/$1" && cp -R "$FIXTURE" "$TMP/$1/linux-source-6.1" &&
		mv "$TMP/$1/linux-source-6.1/Makefile.top" "$TMP/$1/linux-source-6.1/Makefile"
}
# pack NAME: $TMP/NAME.tar.xz from that tree, as Debian lays it out.
pack() {
	tar -C "$TMP/$1" -cJf "$TMP/$1.tar.xz" linux-source-6.1
}
# check NAME ARGS: build-kernel ARGS on NAME's tarball; rc, out and err.
check() {
	name=$1
	shift
	rc=0
	MBB_KERNEL_TARBALL=$TMP/$name.tar.xz "$BK" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
}
lines() { wc -l <"$1" | tr -d ' '; }
# damaged NAME FILE SED: the fixture with SED applied to FILE (a path in the
# tree), packed and checked with --check-only; rc, out and err as check's.
damaged() {
	mktree "$1" && sed -i "$3" "$TMP/$1/linux-source-6.1/$2" && pack "$1" &&
		check "$1" --check-only
	show
}
show() { sed 's/^/#   /' "$TMP/err" "$TMP/out"; }

# The fixture holds every file the series changes.
missing=""
for f in $(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$KP"/*.patch "$KP"/fixes/*.patch "$KP"/percpu-mutex/*.patch | sort -u); do
	[ -f "$FIXTURE/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] || diag "tests/golden/linux-6.1.176-1 lacks:$missing (copy them from linux-source-6.1 6.1.176-1)"
ok "$([ -z "$missing" ]; echo $?)" "the 6.1.176-1 fixture holds every file the series and fixes/ change"

"$BK" --help >"$TMP/help" 2>"$TMP/err"
rc=$?
ok "$([ $rc = 0 ] && [ ! -s "$TMP/err" ] && grep -q -- --check-only "$TMP/help" &&
	grep -q 'last proven on' "$TMP/help" && grep -q "not $proven," "$TMP/help"; echo $?)" \
	"--help: exit 0, names --check-only and the release last proven ($proven)"

# 1. An older point release: the series applies; one note, exit 0.
mktree t176 && pack t176
check t176 --check-only
show
ok "$([ $rc = 0 ] && [ "$(lines "$TMP/out")" = 1 ] &&
	grep -q 'series (3 patches), fixes/series (1) and percpu-mutex/series (1) apply to Linux 6.1.176 from' "$TMP/out"; echo $?)" \
	"6.1.176: the seed series, fixes/ and percpu-mutex/ apply (exit 0, one line on stdout)"
ok "$([ "$(lines "$TMP/err")" = 1 ] && grep -q "note: using Linux 6.1.176 from .*last proven on $proven" "$TMP/err"; echo $?)" \
	"6.1.176: one note on stderr naming 6.1.176 and $proven"

# 2. Patch context broken in a file of the seed series.
damaged ctx kernel/sched/membarrier.c \
	's/^static DEFINE_MUTEX(membarrier_ipi_mutex);$/static DEFINE_MUTEX(membarrier_ipi_lock);/'
ok "$([ $rc = 2 ] && [ ! -s "$TMP/out" ] && [ "$(lines "$TMP/err")" = 1 ] &&
	grep -q "0001-membarrier-add-MEMBARRIER_CMD_SEED_V1_IPI_ALL.patch does not apply to Linux 6.1.176 from .*kernel/sched/membarrier.c.*last proven on linux-source-6.1 $proven" "$TMP/err"; echo $?)" \
	"broken context: exit 2, one line naming the first failing patch, the file, 6.1.176 and $proven"

# 3. ... in the file only fixes/ changes: fixes/ is checked too.
damaged fix kernel/sched/sched.h 's/^	int membarrier_state;$/	int membarrier_st;/'
ok "$([ $rc = 2 ] && [ ! -s "$TMP/out" ] && [ "$(lines "$TMP/err")" = 1 ] &&
	grep -q 'fixes/0001-sched-membarrier-Update-rq-membarrier_state.patch does not apply to Linux 6.1.176' "$TMP/err"; echo $?)" \
	"broken context for fixes/: exit 2, one line naming the fix"

# 3b. ... in the context only percpu-mutex/ relies on: it is checked too,
# so that a release it does not apply to is refused before anything is
# built, whatever the variant.
damaged pcpu kernel/sched/membarrier.c 's/^	if (cpu_id < 0 \&\& !zalloc_cpumask_var(&tmpmask, GFP_KERNEL))$/	if (cpu_id < 0 \&\& !alloc_cpumask_var(\&tmpmask, GFP_KERNEL))/'
ok "$([ $rc = 2 ] && [ ! -s "$TMP/out" ] && [ "$(lines "$TMP/err")" = 1 ] &&
	grep -q 'percpu-mutex/0001-sched-membarrier-Serialize-targeted-commands-per-CPU.patch does not apply to Linux 6.1.176' "$TMP/err"; echo $?)" \
	"broken context for percpu-mutex/: exit 2, one line naming its patch"

# 4. A file the series changes is not in the tree.
mktree gone
rm "$TMP/gone/linux-source-6.1/include/uapi/linux/membarrier.h"
pack gone
check gone --check-only
show
ok "$([ $rc = 2 ] && [ "$(lines "$TMP/err")" = 1 ] && grep -q '0001-.*does not apply' "$TMP/err"; echo $?)" \
	"a file the series changes is missing: exit 2, one line"

# 5. Another major.minor given as 6.1: refused, however well it applies.
damaged v62 Makefile 's/^PATCHLEVEL = .*/PATCHLEVEL = 2/; s/^SUBLEVEL = .*/SUBLEVEL = 3/'
ok "$([ $rc = 2 ] && [ ! -s "$TMP/out" ] && [ "$(lines "$TMP/err")" = 1 ] &&
	grep -q 'holds Linux 6.2.3, not 6.1.y' "$TMP/err"; echo $?)" \
	"a 6.2 tree: exit 2, one line naming 6.2.3 and 6.1.y"

# 6. No such tarball; not a tarball.
check none --check-only
ok "$([ $rc = 2 ] && [ "$(lines "$TMP/err")" = 1 ] && grep -q 'MBB_KERNEL_TARBALL=.*none.tar.xz' "$TMP/err"; echo $?)" \
	"MBB_KERNEL_TARBALL naming no file: exit 2, one line"
echo junk >"$TMP/junk.tar.xz"
check junk --check-only
ok "$([ $rc = 2 ] && [ "$(lines "$TMP/err")" = 1 ]; echo $?)" "a file that is not a tar.xz: exit 2, one line"

# 7. The cache: a tree per tarball, and per installed Debian version.
MBB_KERNEL_TARBALL=$TMP/t176.tar.xz "$BK" --help | sed -n 's/^Builds //p' >"$TMP/a"
MBB_KERNEL_TARBALL=$TMP/ctx.tar.xz "$BK" --help | sed -n 's/^Builds //p' >"$TMP/b"
diag "bzImage of t176.tar.xz: $(cat "$TMP/a"), of ctx.tar.xz: $(cat "$TMP/b")"
ok "$([ -s "$TMP/a" ] && [ -s "$TMP/b" ] && ! cmp -s "$TMP/a" "$TMP/b"; echo $?)" \
	"two tarballs get two trees in the cache"
mkdir "$TMP/stub"
printf '#!/bin/sh\nprintf "ii  6.1.176-1"\n' >"$TMP/stub/dpkg-query"
chmod +x "$TMP/stub/dpkg-query"
PATH=$TMP/stub:$PATH "$BK" --help >"$TMP/help176"
ok "$(grep -q "^Builds $MBB_KERNEL_CACHE/linux-6.1.176-1/fixed/bzImage" "$TMP/help176" &&
	grep -q ' (linux-source-6.1 6.1.176-1)$' "$TMP/help176"; echo $?)" \
	"installed linux-source-6.1 6.1.176-1: the tree is linux-6.1.176-1, named in --help"

# 8. The build itself checks before it patches: a tree the series does not
# apply to gives the same line, exit 2, and leaves no tree in the cache.
# Only once --check-only has shown the check works: a build-kernel that
# took no check would build a whole kernel here.
if [ "$tap_fail" != 0 ]; then
	skip "the cases above failed: no build-kernel run without --check-only"
elif check ctx --jobs 1 && grep -q 'missing prerequisites' "$TMP/err"; then
	skip "the kernel build tools are not installed ($(cat "$TMP/err"))"
else
	show
	ok "$([ $rc = 2 ] && [ ! -s "$TMP/out" ] && [ "$(lines "$TMP/err")" = 1 ] &&
		grep -q '0001-.*does not apply to Linux 6.1.176' "$TMP/err" &&
		[ -z "$(find "$MBB_KERNEL_CACHE" -name 'src*' -print)" ]; echo $?)" \
		"build-kernel (no --check-only) on that tree: exit 2, one line, no source tree left"
fi

# 9. The installed linux-source-6.1 (6.1.192-3 where bookworm-security is
# in the sources, 6.1.176-1 with bookworm main only).
if [ ! -r "$own_tarball" ]; then
	skip "$own_tarball not installed (Debian package linux-source-6.1)"
else
	t0=$(date +%s)
	rc=0
	"$BK" --check-only >"$TMP/out" 2>"$TMP/err" || rc=$?
	diag "installed tarball checked in $(($(date +%s) - t0)) s"
	show
	ok "$([ $rc = 0 ] && grep -q 'apply to linux-source-6.1 ' "$TMP/out" &&
		[ "$(lines "$TMP/err")" -le 1 ]; echo $?)" \
		"the installed linux-source-6.1: the series and fixes/ apply (at most a note on stderr)"
fi
tarball612=$(sed -n 's/^TARBALL=//p' "$KP/6.12/VERSION")
if [ ! -r "$tarball612" ]; then
	skip "$tarball612 not installed (Debian package linux-source-6.12)"
else
	rc=0
	"$BK" --source 6.12 --check-only >"$TMP/out" 2>"$TMP/err" || rc=$?
	show
	ok "$([ $rc = 0 ] && grep -q '6.12/series (3 patches), fixes/series (1) and percpu-mutex/series (1) apply to linux-source-6.12 ' "$TMP/out"; echo $?)" \
		"the installed linux-source-6.12: the 6.12 series, fixes/ and percpu-mutex/ apply"
fi
check t176 --source 6.12 --check-only
show
ok "$([ $rc = 2 ] && [ "$(lines "$TMP/err")" = 1 ] && grep -q 'holds Linux 6.1.176, not 6.12.y' "$TMP/err"; echo $?)" \
	"a 6.1 tree given as 6.12: exit 2, one line"

done_testing
