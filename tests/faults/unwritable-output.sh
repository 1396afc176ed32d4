#!/bin/sh
# SPDX-License-Identifier: MIT
# One exit convention for an output the user cannot write: every tool, as
# an unprivileged user on a folder it may read but not write, says so in
# one line and exits 2 (bad input: the user chooses another path), leaving
# nothing behind: report (its default report.md and --output), compare
# --output, calls --output, plot, calibrate --output, advise --output and
# the sweep's --out-root.
. "${top_srcdir:-.}/tests/lib.sh"

need_scipy
can_drop || { echo "1..0 # SKIP needs root, setpriv and a build tree nobody may reach"; exit 0; }
command -v gnuplot >/dev/null 2>&1 || { echo "1..0 # SKIP gnuplot not found"; exit 0; }
plan 2
chmod 755 "$TMP"
cd "$TMP" || exit 1
"$MBBENCH" sweep --experiment calls --mechanism null --output f >/dev/null 2>err &&
	rm -rf f/plots && chmod -R a+rX f && chmod 555 f && mkdir ro && chmod 555 ro
ok $? "a results folder nobody may read but not write ($(tail -n 1 err))"

bad=
# what: the command, run by nobody from $TMP
for cmd in "report f" "report f --output ro/r.md" "compare f f --output ro/c.md" \
	"calls --mechanism null --threads 1 --duration 0.01 --output ro" "plot f" \
	"calibrate --plant 10 --output ro/cal" "advise --readers 2 --reads-per-s 1e6 --writes-per-s 10 --results f --output ro/a.txt" \
	"sweep --experiment calls --mechanism null --out-root ro"; do
	before=$(ls -A f ro | tr '\n' ' ')
	# shellcheck disable=SC2086
	as_nobody sh -c 'exec "$@"' sh "$MBBENCH" $cmd >out 2>err
	rc=$?
	after=$(ls -A f ro | tr '\n' ' ')
	if [ "$rc" -ne 2 ] || [ "$(wc -l <err)" -ne 1 ] || [ "$before" != "$after" ]; then
		bad="$bad [$cmd: rc $rc, $(wc -l <err) lines: $(head -c 160 err)]"
	fi
done
[ -z "$bad" ]
ok $? "every output nobody cannot write: exit 2, one line, nothing left (${bad:-all 8})"
chmod 755 f ro
done_testing
