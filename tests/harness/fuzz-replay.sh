#!/bin/sh
# SPDX-License-Identifier: MIT
# Every committed fuzz input, the corpora and the regression inputs of
# fuzz/, once through its fuzz target built with the normal compiler (the
# sanitizer builds of make check run them under ASan and UBSan). A corpus
# is one archive, fuzz/corpus/NAME.tar.gz, unpacked here into the test's
# own folder (the source tree may be read-only); fuzz/regress/NAME/ holds
# loose files.
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
total=0
for t in $targets; do
	a=$src/fuzz/corpus/$t.tar.gz
	mkdir -p "$TMP/corpus"
	if ! tar -xzf "$a" -C "$TMP/corpus" --no-same-owner "$t" 2>"$TMP/$t.err"; then
		diag "$(tail -n 5 "$TMP/$t.err")"
		ok 1 "fuzz-$t: $a unpacks into $t/"
		continue
	fi
	set --
	for f in "$TMP/corpus/$t"/*; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	ncorpus=$#
	for f in "$src/fuzz/regress/$t"/*; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	total=$((total + $#))
	# The cli target leaves behind what an option error abandons on its
	# way to exit (not a leak of a run); the fuzzer runs it without leak
	# checks too. Every other target is leak-checked under ASan.
	leaks=
	[ "$t" = cli ] && leaks="detect_leaks=0"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}${leaks}" \
		"$build/fuzz/replay-$t" "$@" >/dev/null 2>"$TMP/$t.err"
	rc=$?
	[ $rc -ne 0 ] && diag "$(tail -n 20 "$TMP/$t.err")"
	ok $rc "fuzz-$t: $# inputs ($ncorpus corpus, $(($# - ncorpus)) regression) replay cleanly"
done
diag "$total inputs replayed"
done_testing
