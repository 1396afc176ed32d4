# SPDX-License-Identifier: MIT
# Aggregate barriers/s vs concurrent callers C, one panel per mechanism
# (a shared log y, so panels compare), the C callers as threads of one
# process (circles) or as processes (squares), each point with its 95% CI
# bar; thin lines only join measured C. Expedited membarrier commands
# queue on one kernel mutex; a point with more threads than CPUs
# (oversubscribed = 1) is ringed. Reads contend.csv.
# Variables: in, mechs, title_text, style, extra (+oversubscribed when the
# CSV has it).
load style
set datafile separator ","
set datafile columnheaders
n = words(mechs)
ncols = (n <= 4 ? n : (n <= 6 ? 3 : 4))
nrows = int(ceil(n * 1.0 / ncols))
over = has("oversubscribed")
sel(m, mode) = (strcol("mechanism") eq m && strcol("mode") eq mode && strcol("status") eq "ok")
stats in using (strcol("status") eq "ok" ? column("aggregate_calls_per_s") - column("aggregate_calls_per_s_ci95") : NaN) nooutput
ylo = 10 ** floor(log10(STATS_min > 1 ? STATS_min : 1))
stats in using (strcol("status") eq "ok" ? column("aggregate_calls_per_s") + column("aggregate_calls_per_s_ci95") : NaN) nooutput
yhi = 10 ** ceil(log10(STATS_max))
stats in using (strcol("status") eq "ok" ? column("callers") : NaN) nooutput
set xrange [STATS_min - 0.5:STATS_max + 0.5]
set logscale y
set yrange [ylo:yhi]
set format y "%.0s%c"
set mytics 10
set grid xtics ytics lc rgb "#e4e4e4"
set xtics 1 nomirror
set xlabel "concurrent callers C"
set ylabel "aggregate barriers/s (log; bars: 95% CI)"
lo(v, c) = (v - c > ylo ? v - c : ylo)
dxm(mode) = (mode eq "threads" ? -0.08 : 0.08)
set multiplot layout nrows, ncols title title_text noenhanced margins 0.07, 0.98, 0.2, 0.88 spacing 0.06, 0.12
unset key
do for [i = 1:n] {
	m = word(mechs, i)
	set title m noenhanced
	if (i > 1) { unset ylabel }
	plot for [mode in "threads processes"] in using (sel(m, mode) ? column("callers") + dxm(mode) : NaN): \
		(column("aggregate_calls_per_s")) with lines lc rgb (mode eq "threads" ? C[1] : C[2]) lw 0.8 dt 3, \
	     for [mode in "threads processes"] in using (sel(m, mode) ? column("callers") + dxm(mode) : NaN): \
		(column("aggregate_calls_per_s")): \
		(lo(column("aggregate_calls_per_s"), column("aggregate_calls_per_s_ci95"))): \
		(column("aggregate_calls_per_s") + column("aggregate_calls_per_s_ci95")) \
		with yerrorbars lc rgb (mode eq "threads" ? C[1] : C[2]) lw 1.5 pt (mode eq "threads" ? 6 : 4) ps 1.2, \
	     for [mode in "threads processes"] in using (sel(m, mode) && opt("oversubscribed") == 1 ? column("callers") + dxm(mode) : NaN): \
		(column("aggregate_calls_per_s")) with points pt 6 ps 2.4 lc rgb "#000000"
}
# The key, across the whole width below the panels.
set lmargin at screen 0.02
set rmargin at screen 0.98
set tmargin at screen 0.1
set bmargin at screen 0.01
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset grid
unset logscale y
set xrange [0:1]; set yrange [0:1]
set key inside center center horizontal Left reverse samplen 2 noenhanced
plot NaN with yerrorbars lc rgb C[1] lw 1.5 pt 6 ps 1.2 title "C caller threads in one process", \
     NaN with yerrorbars lc rgb C[2] lw 1.5 pt 4 ps 1.2 title "C caller processes", \
     NaN with points pt 6 ps 2.4 lc rgb "#000000" title (over ? "ringed: more threads than CPUs (oversubscribed)" : "")
unset multiplot
