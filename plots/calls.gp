# SPDX-License-Identifier: MIT
# Figure 1: barrier calls per second vs thread count, one line per mechanism
# (the seed's T = 1..7 table as a curve). Reads calls.csv only.
# Variables: in (CSV), out (file without extension), mechs (space-separated),
# title_text, term ("png" or "svg").
set datafile separator ","
set datafile columnheaders
set logscale y
set grid
set key outside right top
set xlabel "threads T (caller + T-1 spinning threads)"
set ylabel "barrier calls per second (log)"
set title title_text noenhanced
set xtics 1
ok(m) = (strcol("mechanism") eq m && strcol("status") eq "ok")
plot for [m in mechs] in using "threads":(ok(m) ? column("calls_per_s") : NaN) \
	with linespoints title m noenhanced
