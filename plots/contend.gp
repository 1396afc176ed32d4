# SPDX-License-Identifier: MIT
# Aggregate barriers/s vs concurrent callers, one line per mechanism and mode:
# expedited membarrier commands queue on one kernel mutex. Reads contend.csv.
# Variables: in, mechs, title_text.
set datafile separator ","
set datafile columnheaders
set logscale y
set grid
set key outside right top
set xlabel "concurrent callers C"
set ylabel "aggregate barriers per second (log)"
set title title_text noenhanced
set xtics 1
sel(m, mode) = (strcol("mechanism") eq m && strcol("mode") eq mode && strcol("status") eq "ok")
plot for [m in mechs] in using "callers":(sel(m, "threads") ? column("aggregate_calls_per_s") : NaN) \
	with linespoints title m." (threads)" noenhanced, \
     for [m in mechs] in using "callers":(sel(m, "processes") ? column("aggregate_calls_per_s") : NaN) \
	with linespoints dt 2 title m." (processes)" noenhanced
