# SPDX-License-Identifier: MIT
# The cost of one barrier by IPI distance: one group of bars per mechanism,
# one bar per level of the spinner (SMT sibling, another core, L3, NUMA
# node, package) in that order, with the 95% CI as an error bar. A level
# the host lacks has no bar. Reads distance.csv only.
# Variables: in, mechs, title_text, style.
load style
set datafile separator ","
set datafile columnheaders
set logscale y
set grid ytics
set key outside right top title "spinner at"
set ylabel "ns per barrier (log; bars: 95% CI)"
set title title_text noenhanced
levels = "smt core l3 numa package"
nl = words(levels)
w = 0.8 / nl
set boxwidth w * 0.9
set style fill solid 0.6 border -1
set xrange [0.4:words(mechs) + 0.6]
set xtics () rotate by -25 left noenhanced
do for [i = 1:words(mechs)] { set xtics add (word(mechs, i) i) }
idx(m) = sum [k = 1:words(mechs)] (word(mechs, k) eq m ? k : 0)
sel(j) = (strcol("level") eq word(levels, j) && strcol("status") eq "ok")
plot for [j = 1:nl] in using (idx(strcol("mechanism")) + (j - (nl + 1) / 2.0) * w): \
	(sel(j) ? column("ns_per_call") : NaN):(sel(j) ? column("ns_per_call_ci95") : NaN) \
	with boxerrorbars ls j lc rgb C[j] title word(levels, j)
