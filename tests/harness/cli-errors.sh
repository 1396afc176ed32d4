#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: one line on stderr naming the fix, exit 2, no output files.
. "${top_srcdir:-.}/tests/lib.sh"

mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
: >"$TMP/afile"
mkdir "$TMP/adir"
CPUS=$(getconf _NPROCESSORS_ONLN)

# name|args (split on spaces; no case below needs a space in a value)
cases="unknown subcommand|frobnicate
unknown mechanism|calls --mechanism nosuch
empty mechanism list|calls --mechanism ,
unknown option|calls --no-such-option
missing value|calls --threads
threads 0|calls --threads 0
threads negative|calls --threads -1
threads garbage|calls --threads two
threads open range|calls --threads 1-
threads reversed range|calls --threads 4-2
threads above 4096|calls --threads 4097
absent CPU|calls --placement 0,99999
bad placement|calls --placement sideways
points: bad placement|points --placement sideways
points: unknown list|points --list everything
points: unknown format|points --format yaml
points: stray argument|points extra
doctor: unknown probe|doctor --probe nosuch
doctor: empty element in probes|doctor --probe lazy-mm,,global
doctor: stray argument|doctor extra
doctor: json in /proc|doctor --probe guest-ipi --json /proc/self/x.json
duration 0|calls --duration 0
duration negative|calls --duration -1
duration garbage|calls --duration soon
duration huge|calls --duration 1e9
iterations 0|calls --iterations 0
iterations huge|calls --iterations 99999999999999999999
repeat 0|calls --repeat 0
repeat garbage|calls --repeat x
both duration and iterations|calls --duration 1 --iterations 10
unknown behaviour|calls --behaviour dance
unknown format|latency --format xml
output under a missing directory|calls --output $TMP/missing/dir
output under an unwritable directory|calls --output $TMP/ro/out
json naming a directory|calls --json $TMP/adir
json under a missing directory|calls --json $TMP/missing/x.json
json under an unwritable directory|latency --json $TMP/ro/x.json
output in /proc|calls --output /proc/self/mbbench-out
json in /proc|list --json /proc/self/x.json
membind absent node|calls --membind 4000
stray argument|list extra
ci-target above 50|calls --ci-target 60
ci-target negative|calls --ci-target -1
max-repeat 1|calls --max-repeat 1
max-repeat below repeat|calls --ci-target 5 --repeat 10 --max-repeat 5
distance unknown level|distance --level nosuch
distance empty level list|distance --level ,
distance empty element in levels|distance --level core,,smt
distance max-repeat below repeat|distance --ci-target 5 --repeat 10 --max-repeat 5
distance unknown mechanism|distance --mechanism nosuch
distance takes no threads|distance --threads 2
empty element in mechanisms|calls --mechanism null,,fence
trailing comma in mechanisms|latency --mechanism null,
empty element in schemes|rcu --scheme mb,,signal
empty element in pairings|litmus --pairing none,,fence-both
empty element in roles|disturb --roles idle,,self-spin
bad synthetic topology variable|MBBENCH_SYNTHETIC=pack:zz calls --iterations 10
bad hwloc synthetic variable|HWLOC_SYNTHETIC=pack:zz list
synthetic OS index above Linux's largest|MBBENCH_SYNTHETIC=pu:2(indexes=0,4294967295) points
synthetic OS index past 32 bits|HWLOC_SYNTHETIC=pu:2(indexes=0,4294967296) list
synthetic host larger than Linux allows|MBBENCH_SYNTHETIC=pu:9000 points
unreadable hwloc XML variable|HWLOC_XMLFILE=$TMP/none.xml list
json path is the output directory|latency --output $TMP/jo --json $TMP/jo
output name too long|calls --output $TMP/$(printf '%0300d' 0)
output under a file|latency --output $TMP/afile/sub
json is the file --output writes|calls --mechanism null --iterations 100 --threads 1 --output $TMP/adir --json $TMP/adir/calls.json
spinners above the processes-mode limit|contend --mechanism fence --duration 0.01 --repeat 1 --mode processes --callers 1 --spinners 4096"

n=$(printf '%s\n' "$cases" | wc -l)
# Running as root ignores directory permissions: those two cases then skip.
plan $((n * 2 + 2))
while IFS='|' read -r name args; do
	case "$name" in *unwritable*)
		if [ "$(id -u)" -eq 0 ] && touch "$TMP/ro/probe" 2>/dev/null; then
			rm -f "$TMP/ro/probe"
			skip "$name: root can write anywhere"
			skip "$name: root can write anywhere"
			continue
		fi ;;
	esac
	# A leading VAR=value sets the environment of that one run.
	case $args in
	[A-Z]*=*)
		# shellcheck disable=SC2086
		env "${args%% *}" "$MBBENCH" ${args#* } >"$TMP/out" 2>"$TMP/err" ;;
	*)
		# shellcheck disable=SC2086
		"$MBBENCH" $args >"$TMP/out" 2>"$TMP/err" ;;
	esac
	rc=$?
	lines=$(wc -l <"$TMP/err")
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^mbbench: ' "$TMP/err"
	ok $? "$name: exit 2 with one error line (rc=$rc, $lines lines: $(head -c 160 "$TMP/err"))"
	leftovers=$(find "$TMP" -newer "$TMP/adir" -type f ! -name out ! -name err | wc -l)
	[ -z "$(ls "$TMP/adir")" ] && [ ! -e "$TMP/missing" ] && [ "$leftovers" -eq 0 ] && [ ! -s "$TMP/out" ]
	ok $? "$name: no output written"
done <<CASES
$cases
CASES
"$MBBENCH" latency --output "$TMP/afile/sub" 2>&1 | grep -q "$TMP/afile is a file, not a directory"
ok $? "a path under a file says so (not 'directory does not exist')"
"$MBBENCH" contend --mechanism fence --duration 0.01 --repeat 1 --mode processes --callers 1 --spinners 4096 2>&1 | grep -q "at most 4 x CPUs / C - 1 spinners, [0-9]* at C=1"
ok $? "a --spinners above the processes-mode limit names the limit"
done_testing
