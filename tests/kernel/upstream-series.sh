#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel-patch/upstream/ is the GLOBAL_EXPEDITED fix as a series to mail:
# a cover letter, the fix (0001) and a kselftest (0002). Checked here
# without building a kernel:
#
#   - the cover letter is a [PATCH v3 0/2] with To: and Cc:, names no
#     base-commit (the release commit of v7.3 could not be looked up here:
#     none rather than a wrong one; upstream/README says so), and 0001 and 0002 carry no address but the neutral
#     From: (which the sender replaces) and lists';
#   - no patch of the series or of fixes/ carries a Signed-off-by: (a
#     DCO line is the sender's own to add);
#   - 0001 makes the same change as kernel-patch/fixes/ (they must not
#     drift apart);
#   - the registration-order advice that does not work (path B defeats
#     registering late, path A through the main thread registering
#     early) is nowhere in kernel-patch/;
#   - for Debian's linux-source-7.3 (the series' base: installed in
#     /usr/src, or fetched by build-kernel --source 7.3 into the kernel
#     cache), 6.12 and 6.1, whichever are there: the files the series
#     touches (and checkpatch.pl with its data files, and kselftest.h) are
#     extracted by name from the tarball into a git repository, `git am`
#     applies 0001 and 0002 (on 6.1 and 6.12 0001 alone, the fix as stable
#     would take it: 0002's Makefile context is 7.3's), the new test is in
#     the Makefile's TEST_GEN_PROGS and in .gitignore (7.3), that tree's
#     `scripts/checkpatch.pl --strict --no-tree` passes each patch, and
#     the selftest compiles against that tree's kselftest.h.
#
# checkpatch runs on each patch with a Signed-off-by: of its From: added
# for the check only (the patches carry none), with --ignore
# UNKNOWN_COMMIT_ID (the extracted tree has no history for the Fixes:
# ids to resolve in) and FILE_PATH_CHANGES (the
# generic "does MAINTAINERS need updating?" on a new file; the selftest
# directory is under KERNEL SELFTEST FRAMEWORK already); see
# kernel-patch/upstream/README.
#
# A version that is not installed is skipped with the package to install;
# with neither, the whole test is skipped (exit 77). Extracting reads the
# whole .tar.xz, 15-30 s per version (both at once). MBB_LINUX_SOURCE_DIR
# (default /usr/src) is where the tarballs are looked for.
. "${top_srcdir:-.}/tests/lib.sh"

UP=$(cd "${top_srcdir:-.}/kernel-patch/upstream" && pwd)
FIXES=$(cd "${top_srcdir:-.}/kernel-patch/fixes" && pwd)
SRC=${MBB_LINUX_SOURCE_DIR:-/usr/src}
COVER=$UP/0000-cover-letter.patch
P1=$UP/0001-sched-membarrier-Update-rq-membarrier_state.patch
P2=$UP/0002-selftests-membarrier-Test-lazy-mm.patch
SELFTEST=tools/testing/selftests/membarrier/membarrier_test_global_expedited_lazy.c
VERSIONS="7.3 6.12 6.1"
# tarball V: linux-source-V.tar.xz in $SRC, or as build-kernel fetched it.
tarball() {
	if [ -r "$SRC/linux-source-$1.tar.xz" ]; then
		echo "$SRC/linux-source-$1.tar.xz"
		return
	fi
	c=${MBB_KERNEL_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/membarrier-bench}
	v=$(cat "$c/debian-src/linux-source-$1.version" 2>/dev/null)
	f=$c/debian-src/linux-source-$1-$v/usr/src/linux-source-$1.tar.xz
	[ -n "$v" ] && [ -r "$f" ] && echo "$f"
}

for t in git tar xz perl; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "1..0 # SKIP $t not found (apt-get install git tar xz-utils perl)"
		exit 0
	fi
done
have=""
for v in $VERSIONS; do
	[ -n "$(tarball "$v")" ] && have="$have $v"
done
if [ -z "$have" ]; then
	echo "1..0 # SKIP no linux-source-7.3, -6.12 or -6.1 tarball (kernel-patch/build-kernel --source 7.3 fetches 7.3; apt-get install linux-source-6.1)"
	exit 0
fi
# The user's git configuration (hooks, signing, am options) stays out.
GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM
CC=${CC:-gcc}
cc_ok=0
command -v "$CC" >/dev/null 2>&1 || cc_ok=1

plan 21

# 1. The cover letter.
ok "$(head -n 12 "$COVER" | grep -q '^Subject: \[PATCH v3 0/2\] sched/membarrier: ' &&
	grep -q '^To: .*mathieu.desnoyers@' "$COVER" && grep -q '^Cc: ' "$COVER" &&
	grep -q 'linux-kselftest@vger.kernel.org' "$COVER" &&
	grep -q '^Subject: \[PATCH v3 1/2\] ' "$P1" && grep -q '^Subject: \[PATCH v3 2/2\] ' "$P2"
	echo $?)" "cover letter: [PATCH v3 0/2] sched/membarrier with To: and Cc:; patches v3 1/2 and 2/2"
n=$(grep -c 'to be filled' "$COVER")
[ "$n" = 0 ] || diag "the cover letter has $n place(s) marked 'to be filled' before it is sent"

# 2. No personal address in the patches: the neutral From: and lists.
grep -Eho '[A-Za-z0-9._+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]+' "$P1" "$P2" | sort -u |
	grep -v -x -e 'series@membarrier-bench.invalid' \
		-e 'stable@vger.kernel.org' >"$TMP/addr"
sed 's/^/# other address: /' "$TMP/addr"
headers() { sed '/^$/q' "$1"; }
ok "$([ ! -s "$TMP/addr" ] && ! { headers "$P1"; headers "$P2"; } | grep -q -i '^\(To\|Cc\): '
	echo $?)" \
	"0001 and 0002 carry no To:/Cc: headers and no address but the neutral From: and lists"

# 3. No Signed-off-by: anywhere in the series or the fixes, and the cover
# letter names the commit the series is based on.
grep -l '^Signed-off-by:' "$COVER" "$P1" "$P2" "$FIXES"/*.patch "$FIXES"/alt/*.patch \
	2>/dev/null | sed 's/^/# has a Signed-off-by: /' >"$TMP/sob"
cat "$TMP/sob"
ok "$([ ! -s "$TMP/sob" ]; echo $?)" "no Signed-off-by: in upstream/ and fixes/ (the sender adds theirs)"
base=$(sed -n 's/^base-commit: //p' "$COVER")
diag "base-commit: ${base:-none}"
ok "$([ -z "$base" ] && grep -q 'no base-commit' "$UP/README"; echo $?)" \
	"the cover letter names no base-commit it could not look up, and upstream/README says why"

# 4. The registration-order advice that does not work is gone.
grep -rn -i -E 'register(ing)? GLOBAL_EXPEDITED after|before any thread|Registering while the other threads already run|after the process.s threads exist' \
	"${top_srcdir:-.}/kernel-patch" >"$TMP/advice"
sed 's/^/# old advice: /' "$TMP/advice"
ok "$([ ! -s "$TMP/advice" ]; echo $?)" "kernel-patch/ gives no registration-order workaround"

# 5. 0001 and fixes/ make the same change: the same hunks, context and
# all, wherever in the file they land (the @@ lines name the place).
diff_lines() { sed -n '/^@@/,/^-- $/p' "$1" | grep -v -e '^@@' -e '^-- $'; }
diff_lines "$P1" >"$TMP/up"
diff_lines "$FIXES/0001-sched-membarrier-Update-rq-membarrier_state.patch" >"$TMP/fix"
ok "$([ -s "$TMP/up" ] && cmp -s "$TMP/up" "$TMP/fix"; echo $?)" \
	"0001 makes the same change as fixes/0001"

# with_signoff PATCH: the patch with a sign-off of its From:, for checkpatch only.
. "${top_srcdir:-.}/kernel-patch/with-signoff.sh"

# Files the series changes that exist before it (a new file is --- /dev/null).
touched=$(sed -n 's|^--- a/||p' "$P1" "$P2" | sort -u)

# extract V: the files the series touches (and checkpatch.pl with its data
# files, and kselftest.h) out of linux-source-V.tar.xz, by member name,
# into $TMP/x-V; status in $TMP/x-V.rc. Run for every installed version at
# once: most of the time is xz reading the whole tarball.
extract() {
	members=""
	for f in $touched tools/testing/selftests/kselftest.h scripts/checkpatch.pl \
		scripts/spelling.txt scripts/const_structs.checkpatch; do
		members="$members linux-source-$1/$f"
	done
	mkdir -p "$TMP/x-$1"
	t0=$(date +%s)
	# shellcheck disable=SC2086 # one member name per word
	tar -C "$TMP/x-$1" -xJf "$(tarball "$1")" $members 2>"$TMP/x-$1.err"
	echo $? >"$TMP/x-$1.rc"
	echo "$(echo "$members" | wc -w) files in $(($(date +%s) - t0)) s" >"$TMP/x-$1.time"
}
pids=""
for v in $have; do
	extract "$v" &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids

# check_version V: tests 6-10 on linux-source-V.
check_version() {
	v=$1
	tarball=$(tarball "$v")
	top=linux-source-$v
	# 0002's Makefile context is 7.3's: older trees take the fix alone.
	am="$P1 $P2"
	[ "$v" = 7.3 ] || am=$P1
	tree=$TMP/linux-$v
	case " $have " in
	*" $v "*) ;;
	*)
		for what in "extract" "git am" "checkpatch 0001" "checkpatch 0002" "selftest compiles"; do
			skip "$v: $what: no linux-source-$v tarball (apt-get install linux-source-$v, or for 7.3 kernel-patch/build-kernel --source 7.3)"
		done
		return
		;;
	esac

	# 6. Extracted (above), and committed as the base.
	rc=$(cat "$TMP/x-$v.rc")
	diag "$v: extracted $(cat "$TMP/x-$v.time")"
	sed "s/^/# /" "$TMP/x-$v.err"
	if [ "$rc" = 0 ]; then
		mv "$TMP/x-$v/$top" "$tree" &&
			git -C "$tree" init -q &&
			git -C "$tree" add -A &&
			git -C "$tree" -c user.name=test -c user.email=test@localhost \
				commit -q -m "linux-source-$v" || rc=1
	fi
	ok "$rc" "$v: the files the series touches extract from $tarball"

	# 7. git am, and the new test is built and ignored like its neighbours.
	rc=1
	if [ -d "$tree/.git" ]; then
		git -C "$tree" -c user.name=test -c user.email=test@localhost \
			am -q $am >"$TMP/am-$v" 2>&1
		rc=$?
		sed "s/^/# /" "$TMP/am-$v"
		[ $rc = 0 ] || git -C "$tree" am --abort >/dev/null 2>&1
	fi
	if [ "$v" = 7.3 ]; then
		ok "$([ $rc = 0 ] && [ "$(git -C "$tree" rev-list --count HEAD)" = 3 ] &&
			sed -n '/^TEST_GEN_PROGS/,/^$/p' "$tree/tools/testing/selftests/membarrier/Makefile" |
			grep -q 'membarrier_test_global_expedited_lazy' &&
			grep -q -x 'membarrier_test_global_expedited_lazy' \
				"$tree/tools/testing/selftests/membarrier/.gitignore"; echo $?)" \
			"$v: git am applies 0001 and 0002; the test is in TEST_GEN_PROGS and .gitignore"
	else
		ok "$([ $rc = 0 ] && [ "$(git -C "$tree" rev-list --count HEAD)" = 2 ]; echo $?)" \
			"$v: git am applies 0001 (the fix, for stable)"
		# The selftest as 0002 adds it, for the compile below.
		cp "${top_srcdir:-.}/kernel-patch/selftest/membarrier_global_expedited_lazy.c" "$tree/$SELFTEST" 2>/dev/null
	fi

	# 8, 9. checkpatch --strict from the same tree, with a sign-off added
	# for the check only.
	for p in "$P1" "$P2"; do
		name=$(basename "$p" | cut -c1-4)
		if [ ! -f "$tree/scripts/checkpatch.pl" ]; then
			skip "$v: checkpatch $name: no scripts/checkpatch.pl extracted"
			continue
		fi
		with_signoff "$p" | (cd "$tree" && perl scripts/checkpatch.pl --strict --no-tree \
			--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES -) >"$TMP/cp" 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			sed -n "s/^total: /# $v $name: total: /p" "$TMP/cp"
		else
			sed "s/^/# /" "$TMP/cp"
		fi
		ok "$([ $rc = 0 ] && grep -q '^total: 0 errors, 0 warnings, 0 checks,' "$TMP/cp"; echo $?)" \
			"$v: checkpatch.pl --strict: 0 errors, 0 warnings, 0 checks on $name"
	done

	# 10. The selftest compiles against this tree's kselftest.h.
	if [ $cc_ok != 0 ]; then
		skip "$v: selftest compiles: $CC not found (apt-get install gcc)"
	elif [ ! -f "$tree/$SELFTEST" ]; then
		ok 1 "$v: selftest compiles: $SELFTEST is not there (git am failed)"
	else
		# -D_GNU_SOURCE= as 6.12's selftests/lib.mk adds it.
		"$CC" -Wall -Wextra -Werror -O2 -D_FORTIFY_SOURCE=2 -D_GNU_SOURCE= -o "$TMP/lazy-$v" \
			"$tree/$SELFTEST" -lpthread >"$TMP/cc-$v" 2>&1
		rc=$?
		sed "s/^/# /" "$TMP/cc-$v"
		ok $rc "$v: $SELFTEST compiles with $CC -Wall -Wextra -Werror"
	fi
}

for v in $VERSIONS; do
	check_version "$v"
done

done_testing
