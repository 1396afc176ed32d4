# SPDX-License-Identifier: MIT
# The cost of one barrier by IPI distance: per mechanism, one point with its
# 95% CI bar per level of the spinner (SMT sibling, another core, L3, NUMA
# node, package) that this host has and this run measured, in that order;
# the key lists only those levels. Linear ns from 0: the levels differ by
# fractions, not decades. Reads distance.csv only.
# Variables: in, mechs, title_text, style, extra (the levels measured, from
# plots/plot).
load style
set datafile separator ","
set datafile columnheaders
set grid ytics lc rgb "#dddddd"
set key outside right top Left reverse title "spinner at" noenhanced
set ylabel "ns per barrier (ns_per_call; bars: 95% CI)" noenhanced
set title title_text noenhanced
levels = (strlen(extra) ? extra : "smt core l3 numa package")
nl = words(levels)
w = (nl > 1 ? 0.5 / (nl - 1) : 0)
set xrange [0.4:words(mechs) + 0.6]
set yrange [0:*]
set xtics () rotate by 20 right noenhanced nomirror
set bmargin 9
set lmargin 18
do for [i = 1:words(mechs)] { set xtics add (word(mechs, i) i) }
idx(m) = sum [k = 1:words(mechs)] (word(mechs, k) eq m ? k : 0)
sel(j) = (strcol("level") eq word(levels, j) && strcol("status") eq "ok")
plot for [j = 1:nl] in using (idx(strcol("mechanism")) + (j - (nl + 1) / 2.0) * w): \
	(sel(j) ? column("ns_per_call") : NaN):(sel(j) ? column("ns_per_call_ci95") : NaN) \
	with yerrorbars lc rgb C[j] lw 1.5 pt OPEN[(j - 1) % 6 + 1] ps 1.4 title word(levels, j)
