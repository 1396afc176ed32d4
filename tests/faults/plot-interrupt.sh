#!/bin/sh
# SPDX-License-Identifier: MIT
# ^C (SIGINT to the whole process group, as a terminal sends it) or SIGTERM
# during mbbench plot: exit 130 or 143, and no partial file left in plots/
# (neither a temporary figure nor a half-written one), at any moment: while
# gnuplot draws, and while mktemp makes a figure's temporary name (a signal
# there left the new name unrecorded, and the file behind).
. "${srcdir:-.}/tests/lib.sh"
need_python
command -v gnuplot >/dev/null 2>&1 || { echo "1..0 # SKIP gnuplot not found"; exit 0; }
command -v setsid >/dev/null 2>&1 || { echo "1..0 # SKIP setsid not found (util-linux)"; exit 0; }
R=$(cd "${srcdir:-.}" && pwd)/results/reference/vm-quick-20261203T141826Z
need_reference "$R"
cp -r "$R" "$TMP/run" && rm -rf "$TMP/run/plots"
real_gnuplot=$(command -v gnuplot) real_mktemp=$(command -v mktemp)
mkdir "$TMP/slow" "$TMP/slowtemp"
# A gnuplot that takes a while to start; a mktemp that waits after making its file.
printf '#!/bin/sh\nsleep 0.5\nexec %s "$@"\n' "$real_gnuplot" >"$TMP/slow/gnuplot"
printf '#!/bin/sh\n%s "$@" && sleep 0.5\n' "$real_mktemp" >"$TMP/slowtemp/mktemp"
chmod +x "$TMP/slow/gnuplot" "$TMP/slowtemp/mktemp"
# plot_signal BIN SIG DELAY: plot in its own process group, SIGINT at its
# default; SIG to the group after DELAY; prints the exit status.
plot_signal() {
	rm -rf "$TMP/run/plots"
	PATH=$1:$PATH setsid "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$MBBENCH" plot "$TMP/run" >/dev/null 2>"$TMP/err" &
	_p=$!
	sleep "$3"
	kill -s "$2" -- "-$_p" 2>/dev/null
	wait "$_p"
}
# Whatever is in plots/ is a whole figure under its own name.
partial() { ls -A "$TMP/run/plots" 2>/dev/null | grep -v '^[a-z-]*\.\(png\|svg\)$'; }
plan 8
for sig in INT TERM; do
	want=130
	[ $sig = INT ] || want=143
	for bin in slow slowtemp; do
		for d in 1.2 2.1; do
			plot_signal "$TMP/$bin" $sig $d
			rc=$?
			[ $rc -eq $want ] && [ -z "$(partial)" ]
			ok $? "SIG$sig after ${d}s (slow ${bin#slow}${bin#slowtemp}): exit $rc (want $want), nothing partial left: $(partial | tr '\n' ' ')"
		done
	done
done
done_testing
