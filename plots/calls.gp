# SPDX-License-Identifier: MIT
# Figure 1: barrier calls per second vs thread count, one line per mechanism
# (the seed's T = 1..7 table as a curve), with the 95% CI of each point as
# an error bar. Reads calls.csv only.
# Variables: in (CSV), mechs (space-separated), title_text, style (style.gp).
load style
set datafile separator ","
set datafile columnheaders
set logscale y
set grid
set key outside right top
set xlabel "threads T (caller + T-1 spinning threads)"
set ylabel "barrier calls per second (log; bars: 95% CI)"
set title title_text noenhanced
set xtics 1
ok(m) = (strcol("mechanism") eq m && strcol("status") eq "ok")
plot for [i = 1:words(mechs)] in using "threads":(ok(word(mechs, i)) ? column("calls_per_s") : NaN): \
	(ok(word(mechs, i)) ? column("calls_per_s_ci95") : NaN) \
	with yerrorlines ls i title word(mechs, i) noenhanced
