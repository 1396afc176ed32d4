# SPDX-License-Identifier: MIT
# Figure 4: what a barrier storm does to a realtime busy-poll victim (gaps in
# its loop, the oslat method) and to a periodic sleeper (wake-up lateness,
# the cyclictest method): per mechanism, p99 with its 95% CI bar (where the
# CSV has one) and the maximum, baseline beside storm, on a log axis in
# time units. A CI reaching below the axis (often below 0) runs to it,
# dashed.
# Reads disturb.csv only. Variables: in, mechs, title_text, panels, style,
# extra (+p99_ns_ci95 when the CSV has it).
load style
set datafile separator ","
set datafile columnheaders
n = words(mechs)
set xrange [0.4:n + 0.6]
set xtics () rotate by 20 right noenhanced nomirror
do for [i = 1:n] { set xtics add (word(mechs, i) i) }
sel(k, role, phase) = (strcol("mechanism") eq word(mechs, k) && strcol("role") eq role && \
	strcol("phase") eq phase && strcol("status") eq "ok")
selr(role) = (strcol("role") eq role && strcol("status") eq "ok")
ci(dummy) = (opt("p99_ns_ci95") == opt("p99_ns_ci95") ? opt("p99_ns_ci95") : 0)
# panels: the victim roles with measured rows (set by plots/plot).
if (!exists("panels") || strlen(panels) == 0) { panels = "foreign-rt foreign-sleep" }
set logscale y
set ytics @NS_TICS
set mytics 10
set grid ytics lc rgb "#e4e4e4"
set bars 2
unset key
set multiplot layout 1, words(panels) title title_text noenhanced margins 0.12, 0.98, 0.3, 0.86 spacing 0.1
do for [r in panels] {
	set yrange [*:*]	# stats keeps to the range in force
	stats in using (selr(r) ? (column("p99_ns") > 1 ? column("p99_ns") : 1) : NaN) nooutput
	ylo = 10 ** floor(log10(STATS_min) - 0.2)
	stats in using (selr(r) ? (column("max_ns") + ci(0) > 10 ? column("max_ns") + ci(0) : 10) : NaN) nooutput
	yhi = 10 ** ceil(log10(STATS_max) + 0.1)
	set yrange [ylo:yhi]
	set title (r eq "foreign-rt" ? "SCHED_FIFO busy-poll victim: loop gaps" : "periodic sleeper: wake-up lateness") noenhanced
	set ylabel "ns (log; p99 bars: 95% CI)"
	plot for [ph = 1:2] for [k = 1:n] in using (k + (ph == 1 ? -0.15 : 0.15)): \
		(sel(k, r, ph == 1 ? "baseline" : "storm") && column("p99_ns") - ci(0) > ylo ? column("p99_ns") : NaN): \
		(column("p99_ns") - ci(0)):(column("p99_ns") + ci(0)) \
		with yerrorbars lc rgb C[ph] lw 1.5 pt 7 ps 1.1, \
	     for [ph = 1:2] for [k = 1:n] in using (k + (ph == 1 ? -0.15 : 0.15)): \
		(sel(k, r, ph == 1 ? "baseline" : "storm") && column("p99_ns") - ci(0) <= ylo ? column("p99_ns") : NaN): \
		(ylo):(column("p99_ns") + ci(0)) \
		with yerrorbars lc rgb C[ph] lw 1.5 dt 2 pt 7 ps 1.1, \
	     for [ph = 1:2] for [k = 1:n] in using (k + (ph == 1 ? -0.15 : 0.15)): \
		(sel(k, r, ph == 1 ? "baseline" : "storm") ? column("max_ns") : NaN) with points lc rgb C[ph] pt 2 ps 1.4 lw 1.5
}
# The key, across the whole width below the panels.
set lmargin at screen 0.02
set rmargin at screen 0.98
set tmargin at screen 0.07
set bmargin at screen 0.01
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset grid
unset logscale y
set xrange [0:1]; set yrange [0:1]
set key inside center center horizontal Left reverse samplen 2 noenhanced
plot NaN with points lc rgb C[1] pt 7 ps 1.1 title "p99 baseline (no barriers)", \
     NaN with points lc rgb C[2] pt 7 ps 1.1 title "p99 storm", \
     NaN with points lc rgb C[1] pt 2 ps 1.4 lw 1.5 title "max baseline", \
     NaN with points lc rgb C[2] pt 2 ps 1.4 lw 1.5 title "max storm", \
     NaN with lines lc rgb "#555555" lw 1.5 dt 2 title "CI below the axis"
unset multiplot
