# SPDX-License-Identifier: MIT
# Figure 4: what a barrier storm does to a realtime busy-poll victim (gaps in
# its loop, the oslat method) and to a periodic sleeper (wake-up lateness,
# the cyclictest method): p99 and max, baseline vs storm, per mechanism.
# Reads disturb.csv only. Variables: in, mechs, title_text, panels, style.
load style
set datafile separator ","
set datafile columnheaders
set style fill solid 0.7 border -1
set logscale y
set grid y
set key outside bottom center horizontal
n = words(mechs)
set xrange [0.4:n + 0.6]
set xtics () rotate by -20
do for [i = 1:n] { set xtics add (word(mechs, i) i) }
set boxwidth 0.18
sel(k, role, phase) = (strcol("mechanism") eq word(mechs, k) && strcol("role") eq role && \
	strcol("phase") eq phase && strcol("status") eq "ok")
# panels: the victim roles with measured rows (set by plots/plot).
if (!exists("panels")) panels = "foreign-rt foreign-sleep"
set multiplot layout 1, words(panels) title title_text noenhanced
do for [r in panels] {
	set title (r eq "foreign-rt" ? "SCHED_FIFO busy-poll victim: loop gaps" : "periodic sleeper: wake-up lateness") noenhanced
	set ylabel "ns (log)"
	plot for [k = 1:n] in using (k - 0.2):(sel(k, r, "baseline") ? column("p99_ns") : NaN) with boxes lc rgb "#4477aa" title (k == 1 ? "p99 baseline" : ""), \
	     for [k = 1:n] in using (k):(sel(k, r, "storm") ? column("p99_ns") : NaN) with boxes lc rgb "#ee6677" title (k == 1 ? "p99 storm" : ""), \
	     for [k = 1:n] in using (k - 0.2):(sel(k, r, "baseline") ? column("max_ns") : NaN) with points pt 2 lc rgb "#4477aa" title (k == 1 ? "max baseline" : ""), \
	     for [k = 1:n] in using (k):(sel(k, r, "storm") ? column("max_ns") : NaN) with points pt 2 lc rgb "#ee6677" title (k == 1 ? "max storm" : "")
}
unset multiplot
