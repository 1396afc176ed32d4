#!/bin/sh
# SPDX-License-Identifier: MIT
# Every committed fuzz input, the corpora and the regression inputs of
# fuzz/, once through its fuzz target built with the normal compiler (the
# sanitizer builds of make check run them under ASan and UBSan).
set -u
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}
build=${top_builddir:-.}

targets=
for f in "$src"/fuzz/fuzz-*.c; do
	t=${f##*/fuzz-}
	targets="$targets ${t%.c}"
done
plan "$(echo $targets | wc -w)"
for t in $targets; do
	set --
	for f in "$src/fuzz/corpus/$t"/* "$src/fuzz/regress/$t"/*; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	# The cli target leaves behind what an option error abandons on its
	# way to exit (not a leak of a run); the fuzzer runs it without leak
	# checks too. Every other target is leak-checked under ASan.
	leaks=
	[ "$t" = cli ] && leaks="detect_leaks=0"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}${leaks}" \
		"$build/fuzz/replay-$t" "$@" >/dev/null 2>"$TMP/$t.err"
	rc=$?
	[ $rc -ne 0 ] && diag "$(tail -n 20 "$TMP/$t.err")"
	ok $rc "fuzz-$t: $# corpus and regression inputs replay cleanly"
done
done_testing
