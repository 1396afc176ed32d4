#!/bin/sh
# SPDX-License-Identifier: MIT
# Output in any locale's charset: the python tools print µ, ±, ≥ and ×;
# where the terminal's charset lacks one (PYTHONIOENCODING stands for an
# ASCII or Latin-1 locale, as LC_ALL=de_DE.ISO-8859-1 would be) it is
# written as ASCII (us, +/-, >=, x) or as the charset's own character
# (Latin-1 has µ, ± and ×), never an error. Each tool's stdout and stderr.
. "${top_srcdir:-.}/tests/lib.sh"

need_scipy
plan 5
cd "$TMP" || exit 1
"$MBBENCH" sweep --experiment calls --mechanism null,fence --output f >/dev/null 2>err &&
	"$MBBENCH" rcu --scheme mb,membarrier-private-expedited --readers 1 --writers 1 --duration 0.05 --keep-degraded --output f >/dev/null 2>>err
ok $? "a small sweep to read, with an rcu table for advise ($(tail -n 1 err))"

bad=
for enc in ascii latin-1; do
	for cmd in "compare f f" "compare f f --format text" "advise --readers 2 --reads-per-s 1e6 --writes-per-s 10 --results f" \
		"report f --output r.md"; do
		# shellcheck disable=SC2086
		PYTHONIOENCODING=$enc "$MBBENCH" $cmd >out 2>err
		rc=$?
		{ [ "$rc" -eq 0 ] && ! grep -q -e Unicode -e 'internal error' err; } || bad="$bad [$enc: $cmd: rc $rc $(head -c 200 err)]"
		if [ "$enc" = ascii ] && LC_ALL=C grep -q '[^ -~	]' out err; then
			bad="$bad [$enc: $cmd: a byte beyond ASCII]"
		fi
	done
done
[ -z "$bad" ]
ok $? "compare, advise and report print in an ASCII or Latin-1 charset without an error (${bad:-all})"

PYTHONIOENCODING=ascii "$MBBENCH" compare f f >ascii.md 2>/dev/null
grep -q '>= ' ascii.md && ! grep -q '≥' ascii.md
ok $? "ASCII: ≥ is written >= ($(grep -m 1 -o '>= [0-9.]*%' ascii.md))"
PYTHONIOENCODING=latin-1 "$MBBENCH" compare f f --format text >latin.txt 2>&1
PYTHONIOENCODING=utf-8 "$MBBENCH" compare f f --format text >utf8.txt 2>&1
# Latin-1 keeps its own ± (one byte, 0xB1) where UTF-8 writes two.
grep -q '±' utf8.txt && LC_ALL=C grep -q "$(printf '\261')" latin.txt && ! grep -q '+/-' latin.txt
ok $? "Latin-1: ± is the charset's own character"
# A real non-UTF-8 locale where the host has one.
loc=$(locale -a 2>/dev/null | grep -i -m 1 -e 'iso88591$' -e 'iso8859-1$')
if [ -n "$loc" ]; then
	LC_ALL=$loc "$MBBENCH" compare f f --format text >/dev/null 2>err
	ok $? "LC_ALL=$loc: compare runs ($(head -n 1 err))"
else
	skip "no ISO-8859-1 locale installed here (locale -a)"
fi
done_testing
