#!/bin/sh
# SPDX-License-Identifier: MIT
# Where mbbench writes, and what it does when writing fails: --json and
# --output never write through or replace what is not a regular file (a
# device, a FIFO, a link to stdout), follow a symbolic link once, keep
# earlier results unless --force is given, refuse a path the file system
# cannot hold before measuring; stdout that cannot be written, a file size
# limit and SIGKILL leave one line, a non-zero exit and no stray file.
. "${top_srcdir:-.}/tests/lib.sh"

plan 29
cd "$TMP" || exit 1
QUICK="--mechanism null --threads 1 --iterations 1000"

# usage_fails NAME: exit 2 and one line starting "mbbench: " in err.
usage_fails() {
	lines=$(wc -l <err)
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^mbbench: ' err
	ok $? "$1: exit 2 with one line (rc=$rc, $lines lines: $(head -c 160 err))"
}
# fault_fails NAME: exit 1 and one line.
fault_fails() {
	lines=$(wc -l <err)
	[ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q '^mbbench: ' err
	ok $? "$1: exit 1 with one line (rc=$rc, $lines lines: $(head -c 160 err))"
}

# 1-2. A character device is never replaced (as root: mknod; --json
# /dev/null would otherwise replace the system's /dev/null).
if mknod nulldev c 1 3 2>/dev/null; then
	"$MBBENCH" list --json nulldev >out 2>err
	rc=$?
	usage_fails "--json onto a character device"
	[ -c nulldev ] && [ ! -s out ]
	ok $? "--json onto a character device: it is still a device, nothing printed"
else
	skip "--json onto a character device: mknod needs root"
	skip "--json onto a character device: mknod needs root"
fi

# 3-4. A FIFO.
mkfifo fifo
"$MBBENCH" list --json fifo >out 2>err
rc=$?
usage_fails "--json onto a FIFO"
[ -p fifo ]
ok $? "--json onto a FIFO: it is still a FIFO"

# 5-6. A symbolic link to stdout (a pipe here).
ln -s /proc/self/fd/1 selfout
sh -c '"$0" list --json selfout 2>err; echo $? >rc' "$MBBENCH" | cat >out
rc=$(cat rc)
usage_fails "--json onto a symbolic link to a pipe"
[ -L selfout ] && [ "$(readlink selfout)" = /proc/self/fd/1 ] && [ ! -s out ]
ok $? "--json onto a symbolic link to a pipe: the link is unchanged, nothing on stdout"

# 7-8. A symbolic link to nothing, as --output: refused before measuring.
ln -s nowhere dangling
"$MBBENCH" calls $QUICK --output dangling >out 2>err
rc=$?
usage_fails "--output a dangling symbolic link"
[ -L dangling ] && [ ! -e nowhere ] && [ ! -s out ]
ok $? "--output a dangling symbolic link: nothing created or printed"

# 9-10. A symbolic link to a folder is followed once: the files land in
# the folder, the link stays a link.
mkdir real && ln -s real linked
"$MBBENCH" calls $QUICK --format csv --output linked >out 2>err
rc=$?
[ "$rc" -eq 0 ]
ok $? "--output a symbolic link to a folder: exit 0 ($(head -c 160 err))"
[ -L linked ] && [ -s real/calls.csv ] && [ -s real/calls.json ]
ok $? "--output a symbolic link to a folder: the files are in the folder"

# 11-15. Earlier results are kept: the same --output again is refused
# before measuring, and replaced with --force.
"$MBBENCH" calls --mechanism null,fence --threads 1 --iterations 1000 --repeat 2 \
	--format csv --output RUN >/dev/null 2>err
rows=$(wc -l <RUN/calls.csv)
cp RUN/calls.csv before.csv
"$MBBENCH" calls $QUICK --format csv --output RUN >out 2>err
rc=$?
usage_fails "--output onto a folder that holds calls.csv"
cmp -s RUN/calls.csv before.csv && [ ! -s out ] && [ -z "$(ls RUN | grep -v '^calls\.\(csv\|json\)$')" ]
ok $? "--output onto earlier results: calls.csv kept ($rows lines), no temporary file"
"$MBBENCH" calls $QUICK --format csv --output RUN --force >/dev/null 2>err
rc=$?
[ "$rc" -eq 0 ] && [ "$(wc -l <RUN/calls.csv)" -eq 2 ]
ok $? "--force replaces them (exit $rc, $(wc -l <RUN/calls.csv) lines)"
echo '{}' >old.json
"$MBBENCH" list --json old.json >out 2>err
rc=$?
usage_fails "--json onto an existing file"
[ "$(cat old.json)" = '{}' ] && [ ! -s out ]
ok $? "--json onto an existing file: it is kept"

# 16-17. Not even --force replaces what is not a regular file in the folder.
mkdir F && mkfifo F/calls.csv
"$MBBENCH" calls $QUICK --output F >out 2>err
rc=$?
usage_fails "--output onto a folder whose calls.csv is a FIFO"
"$MBBENCH" calls $QUICK --output F --force >out 2>err
rc2=$?
[ "$rc2" -eq 2 ] && [ -p F/calls.csv ] && [ ! -e F/calls.json ]
ok $? "--output with or without --force: the FIFO is kept, nothing written (exit $rc2)"

# 18-21. Names too long: the last name leaves no room for the temporary
# name, or the path is longer than PATH_MAX. Refused before measuring.
long=$(printf '%0250d' 0)
"$MBBENCH" list --json "$long" >out 2>err
rc=$?
usage_fails "--json whose name leaves no room for .tmp.PID"
[ ! -s out ] && [ -z "$(ls | grep '^0000')" ]
ok $? "--json with a long name: nothing printed or left"
deep=$TMP
while [ ${#deep} -lt 4000 ]; do deep=$deep/$(printf '%0200d' 0); done
out=$deep/$(printf '%0150d' 0)
"$MBBENCH" latency $QUICK --output "$out" >out 2>err
rc=$?
usage_fails "--output longer than PATH_MAX (${#out} characters)"
[ ! -e "$TMP/$(printf '%0200d' 0)" ] && [ ! -s out ]
ok $? "--output longer than PATH_MAX: nothing created or printed"

# 22-25. stdout that cannot be written (a full disk): exit 1, one line,
# and no results folder committed after it.
if [ -w /dev/full ]; then
	"$MBBENCH" list >/dev/full 2>err
	rc=$?
	fault_fails "list >/dev/full"
	"$MBBENCH" calls $QUICK --format csv --output full >/dev/full 2>err
	rc=$?
	fault_fails "calls --format csv >/dev/full"
	[ ! -e full ]
	ok $? "calls >/dev/full: no results folder"
	"$MBBENCH" calls --help >/dev/full 2>err
	rc=$?
	fault_fails "calls --help >/dev/full"
else
	for i in 1 2 3 4; do skip "no /dev/full"; done
fi

# 26-27. A file size limit: writes fail (EFBIG) instead of SIGXFSZ killing
# the run; one line, exit 1, no temporary file, no folder.
if command -v prlimit >/dev/null 2>&1; then
	prlimit --fsize=2000 "$MBBENCH" latency $QUICK --output o >/dev/null 2>err
	rc=$?
	fault_fails "latency --output under RLIMIT_FSIZE=2000"
	[ ! -e o ] && [ -z "$(find . -name '*.tmp.*')" ]
	ok $? "under RLIMIT_FSIZE: no folder, no .tmp file left"
else
	skip "prlimit not installed"
	skip "prlimit not installed"
fi

# 28-29. SIGKILL to disturb while oslat runs: nothing of it is left in
# $TMPDIR (SCHED_FIFO for oslat: root or CAP_SYS_NICE).
if command -v oslat >/dev/null 2>&1 && command -v chrt >/dev/null 2>&1 &&
	chrt -f 1 true 2>/dev/null && [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	mkdir tmpdir
	TMPDIR=$TMP/tmpdir "$MBBENCH" disturb --mechanism membarrier-private-expedited \
		--roles idle --duration 1 --victim-cmd oslat >/dev/null 2>err &
	pid=$!
	i=0
	while ! pgrep -x oslat -P "$pid" >/dev/null 2>&1 && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	running=$(pgrep -x oslat -P "$pid" | wc -l)
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	sleep 0.2
	[ "$running" -ge 1 ]
	ok $? "disturb --victim-cmd oslat was running when killed ($running oslat)"
	[ -z "$(ls tmpdir)" ]
	ok $? "SIGKILL to disturb: nothing left in \$TMPDIR ($(ls tmpdir | head -n 3))"
else
	skip "SIGKILL to disturb: needs oslat, SCHED_FIFO and 2 CPUs"
	skip "SIGKILL to disturb: needs oslat, SCHED_FIFO and 2 CPUs"
fi
done_testing
