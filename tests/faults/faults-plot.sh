#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench plot on hostile and damaged folders and under faults: a folder
# name or a CSV cell never runs a command; a damaged folder is refused with
# one line and exit 2 before plots/ is made; a full disk, a failing gnuplot
# or a signal keeps the old figures, leaves no temporary file and exits
# non-zero; two plots of one folder at once do not trip over each other.
# The folders are made by hand: plot reads only run.json and the CSVs.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "1..0 # SKIP gnuplot not found (apt-get install gnuplot-nox)"
	exit 0
fi
plan 26
case $MBBENCH in /*) ;; *) MBBENCH=$(pwd)/$MBBENCH ;; esac
cd "$TMP" || exit 1
GNUPLOT=$(command -v gnuplot)

# A small finished folder: run.json and calls.csv as a sweep writes them.
mkdir good
cat >good/run.json <<'EOF'
{"format_version": 1, "tool": "mbbench sweep", "preset": "quick",
 "info": {"host": {"hostname": "testhost", "kernel_release": "6.1.0-test", "virtualization": "none"}},
 "points": [{"end": "2026-01-01T00:00:00Z"}]}
EOF
h=mechanism,threads,behaviour,scope,placement,cpus,oversubscribed,repeats,calls_per_repeat,ns_per_call,ns_per_call_stddev,ns_per_call_ci95,calls_per_s,calls_per_s_ci95,cv,ci_target_pct,ci_achieved_pct,ci_target_met,status,skip_reason,cpus_logical,n_same_core,n_same_l3,n_same_package,n_same_numa,n_remote
{
	echo "$h"
	echo "null,1,spin,same-process,compact,0,0,3,80968982.3,1.235,0.004514,0.01122,809689704.5,7351718.2,0.003655,,,,ok,,0,0,0,0,0,0"
	echo "null,2,spin,same-process,compact,0;1,0,3,51624908.5,2.336,1.044,0.663,513894010.7,140294004.8,0.4467,,,,ok,,0;1,0,1,1,1,0"
	echo "fence,1,spin,same-process,compact,0,0,3,19279404.2,5.192,0.1868,0.1436,192794017.5,4919689.4,0.03598,,,,ok,,0,0,0,0,0,0"
	echo "fence,2,spin,same-process,compact,0;1,0,3,19493520.3,5.13,0.006221,0.01545,194935189.0,586857.6,0.001213,,,,ok,,0;1,0,1,1,1,0"
	echo "membarrier-global,2,spin,same-process,compact,0;1,0,,,,,,,,,,,,skipped,\"needs root, or a kernel with it\",0;1,,,,,"
} >good/calls.csv
# strays DIR: temporary files a plot left in DIR/plots (none: "").
strays() { ls -A "$1/plots" 2>/dev/null | grep -v '^[a-z-]*\.\(png\|svg\)$' | tr '\n' ' '; }
is_png() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG" ] && [ "$(wc -c <"$1")" -gt 2000 ]; }

"$MBBENCH" plot good >out 2>err
r=$?
[ $r -eq 0 ] && is_png good/plots/calls.png && grep -q '</svg>' good/plots/calls.svg &&
	grep -qx '# plot: good/plots/calls.png' out && [ -z "$(strays good)" ]
ok $? "a good folder: calls.png and calls.svg drawn, exit $r"
touch m && [ "$(stat -c %a good/plots/calls.png)" = "$(stat -c %a m)" ]
ok $? "the figures get a plain file's mode ($(stat -c %a good/plots/calls.png))"

# Injection: a CSV cell and folder names written as gnuplot code.
cp -r good cell && rm -rf cell/plots
sed -i "s|^null,|a';system(\"id > PWNED\");b=',|" cell/calls.csv
"$MBBENCH" plot cell >/dev/null 2>err
r=$?
[ ! -e PWNED ] && [ ! -e cell/PWNED ] && [ $r -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ ! -e cell/plots ]
ok $? "a CSV cell with gnuplot code runs nothing: exit $r, one line, no plots/ ($(cat err))"
[ ! -e PWNED ] || diag "the payload ran: PWNED holds $(cat PWNED)"
for name in "x';system(\"touch PWNED2\");'" "|touch PWNED3" "<touch PWNED4" "\`touch PWNED5\`" '$(touch PWNED6)'; do
	mkdir -- "$name" && cp good/run.json good/calls.csv "$name/"
done
bad=
for name in "x';system(\"touch PWNED2\");'" "|touch PWNED3" "<touch PWNED4" "\`touch PWNED5\`" '$(touch PWNED6)'; do
	"$MBBENCH" plot "$name" >/dev/null 2>err || bad="$bad [$name: exit $?]"
	is_png "$name/plots/calls.png" || bad="$bad [$name: no calls.png]"
done
[ -z "$bad" ] && [ -z "$(find . -name 'PWNED*')" ]
ok $? "folder names with gnuplot and shell code run nothing and get their figures$bad"
[ -z "$(find . -name 'PWNED*')" ] || diag "payloads that ran: $(find . -name 'PWNED*' | tr '\n' ' ')"
cp -r good "it's dir" && rm -rf "it's dir/plots"
"$MBBENCH" plot "it's dir" >/dev/null 2>err
r=$?
[ $r -eq 0 ] && is_png "it's dir/plots/calls.png" && [ -s "it's dir/plots/calls.svg" ]
ok $? "a folder named with a quote and a space gets its figures (exit $r)"

# Damaged folders: one line, exit 2, plots/ not made.
refused() { # name what
	"$MBBENCH" plot "$1" >/dev/null 2>"$1.err"
	r=$?
	[ $r -eq 2 ] && [ "$(wc -l <"$1.err")" -eq 1 ] && [ ! -e "$1/plots" ]
	ok $? "$2: exit $r, one line, no plots/ ($(head -c 150 "$1.err"))"
}
damage() { rm -rf "$1" && cp -r good "$1" && rm -rf "$1/plots"; }
damage cut && head -c 500 good/calls.csv >cut/calls.csv
refused cut "calls.csv cut short"
damage bytes && printf 'null,3,\377\376,same-process\n' >>bytes/calls.csv
refused bytes "calls.csv with non-UTF-8 bytes"
damage brace && echo '{' >brace/run.json
refused brace "run.json holding {"
damage nojson && rm nojson/run.json
refused nojson "no run.json"
damage abc && sed -i '2s/,1\.235,/,abc,/' abc/calls.csv
refused abc "ns_per_call=abc"
damage nan && sed -i '2s/,809689704\.5,/,1e5x,/' nan/calls.csv
refused nan "calls_per_s=1e5x"
damage emptycsv && : >emptycsv/calls.csv
refused emptycsv "an empty calls.csv"
damage emptyjson && : >emptyjson/run.json
refused emptyjson "an empty run.json"
damage nomech && sed -i '1s/^mechanism,/name,/' nomech/calls.csv
refused nomech "no mechanism column"
damage fewer && sed -i "2s/,0,0,0$//" fewer/calls.csv
refused fewer "a row with fewer cells"
damage csvdir && rm csvdir/calls.csv && mkdir csvdir/calls.csv
refused csvdir "calls.csv a directory"
mkdir foreign && echo hello >foreign/notes.txt
refused foreign "a folder that is not a results folder"
mkdir other && echo '[1, 2, 3]' >other/run.json && echo hello >other/notes.txt
refused other "another tool's folder (run.json an array)"
mkdir nocsv && cp good/run.json nocsv/
"$MBBENCH" plot nocsv >/dev/null 2>err
r=$?
[ $r -eq 0 ] && [ ! -e nocsv/plots ]
ok $? "a folder with no figure to draw: exit $r, no plots/ made"
damage plotsfile && echo x >plotsfile/plots
"$MBBENCH" plot plotsfile >/dev/null 2>err
r=$?
[ $r -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ "$(cat plotsfile/plots)" = x ]
ok $? "plots being a file: exit $r, one line, the file untouched ($(cat err))"

# stdout that cannot be written: exit 1, one line.
cp -r good full && "$MBBENCH" plot full >/dev/full 2>err
r=$?
[ $r -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] && [ -z "$(strays full)" ]
ok $? "plot >/dev/full: exit $r, one line ($(cat err))"

# A gnuplot that fails: the old figures stay, exit 1, one line.
mkdir failbin && printf '#!/bin/sh\necho "gnuplot: broken here" >&2\nexit 1\n' >failbin/gnuplot &&
	chmod +x failbin/gnuplot
cp -r good fails && cp good/plots/calls.png calls.before
PATH=$TMP/failbin:$PATH "$MBBENCH" plot fails >/dev/null 2>err
r=$?
[ $r -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] && cmp -s calls.before fails/plots/calls.png && [ -z "$(strays fails)" ]
ok $? "a failing gnuplot: exit $r, one line, old calls.png kept ($(cat err))"

# A full disk: the old figures stay whole, exit 1, one line.
if [ "$(id -u)" -eq 0 ] && mkdir mnt && mount -t tmpfs -o size=320k tmpfs mnt 2>/dev/null; then
	mkdir mnt/run && cp good/run.json good/calls.csv mnt/run/
	"$MBBENCH" plot mnt/run >/dev/null 2>err && cp mnt/run/plots/calls.png calls.disk &&
		{ dd if=/dev/zero of=mnt/fill bs=4k 2>/dev/null; true; }
	"$MBBENCH" plot mnt/run >/dev/null 2>err
	r=$?
	[ $r -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] && cmp -s calls.disk mnt/run/plots/calls.png &&
		[ -z "$(strays mnt/run)" ]
	ok $? "a full disk: exit $r, one line, calls.png kept ($(wc -c <mnt/run/plots/calls.png) bytes; $(cat err))"
	umount mnt
else
	skip "a full disk: cannot mount a small tmpfs here (needs root)"
fi

# ^C to the process group while gnuplot draws: no temporary file is left,
# the old figures stay, the exit is non-zero.
mkdir slowbin && cat >slowbin/gnuplot <<EOF
#!/bin/sh
touch "$TMP/started"
sleep 20
exec "$GNUPLOT" "\$@"
EOF
chmod +x slowbin/gnuplot
cp -r good sig && cp sig/plots/calls.png calls.sig
PATH=$TMP/slowbin:$PATH setsid env --default-signal=INT "$MBBENCH" plot sig >/dev/null 2>err &
pid=$!
i=0
while [ ! -e started ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT "-$pid"
wait $pid
r=$?
[ $r -ne 0 ] && [ -e started ] && [ -z "$(strays sig)" ] && cmp -s calls.sig sig/plots/calls.png
ok $? "SIGINT while drawing: exit $r, no temporary file left ($(strays sig)), old calls.png kept"
rm -f started

# Two plots of one folder at once (gnuplot slowed so that they overlap).
cat >slowbin/gnuplot <<EOF
#!/bin/sh
sleep 0.3
exec "$GNUPLOT" "\$@"
EOF
cp -r good twice && rm -rf twice/plots && mkdir twice/plots
PATH=$TMP/slowbin:$PATH "$MBBENCH" plot twice >/dev/null 2>e1 &
p1=$!
PATH=$TMP/slowbin:$PATH "$MBBENCH" plot twice >/dev/null 2>e2 &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && ! grep -v '^# plot' e1 e2 >/dev/null && [ -z "$(strays twice)" ] &&
	is_png twice/plots/calls.png && tail -n 2 twice/plots/calls.svg | grep -q '^</svg>$'
ok $? "two plots at once: exit $r1 and $r2, no error, whole figures, no stray file ($(grep -hv '^# plot' e1 e2 | head -n 2))"

# A symlinked plots/ is refused (the figures would land elsewhere).
damage link && mkdir elsewhere && ln -s ../elsewhere link/plots
"$MBBENCH" plot link >/dev/null 2>err
r=$?
[ $r -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && [ -z "$(ls elsewhere)" ]
ok $? "plots/ a symlink: exit $r, one line, nothing written through it"
done_testing
