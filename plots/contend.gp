# SPDX-License-Identifier: MIT
# Aggregate barriers/s vs concurrent callers, one line per mechanism and
# mode (threads solid, processes dotted) with 95% CI bars: expedited
# membarrier commands queue on one kernel mutex. Reads contend.csv.
# Variables: in, mechs, title_text, style.
load style
set datafile separator ","
set datafile columnheaders
set logscale y
set grid
set key outside right top
set xlabel "concurrent callers C"
set ylabel "aggregate barriers per second (log; bars: 95% CI)"
set title title_text noenhanced
set xtics 1
sel(m, mode) = (strcol("mechanism") eq m && strcol("mode") eq mode && strcol("status") eq "ok")
plot for [i = 1:words(mechs)] in using "callers":(sel(word(mechs, i), "threads") ? column("aggregate_calls_per_s") : NaN): \
	(sel(word(mechs, i), "threads") ? column("aggregate_calls_per_s_ci95") : NaN) \
	with yerrorlines lc rgb C[i] dt 1 pt i title word(mechs, i)." (threads)" noenhanced, \
     for [i = 1:words(mechs)] in using "callers":(sel(word(mechs, i), "processes") ? column("aggregate_calls_per_s") : NaN): \
	(sel(word(mechs, i), "processes") ? column("aggregate_calls_per_s_ci95") : NaN) \
	with yerrorlines lc rgb C[i] dt 3 pt i title word(mechs, i)." (processes)" noenhanced
