# SPDX-License-Identifier: MIT
# Figure 5: RCU reads/s and writes/s per scheme (log y), ours beside
# liburcu's, with 95% CI bars: the trade the seed's closing table showed.
# Reads rcu.csv only. Variables: in, mechs (the schemes), title_text, style.
load style
set datafile separator ","
set datafile columnheaders
set style fill solid 0.8 border -1
set logscale y
set grid y
set boxwidth 0.7
n = words(mechs)
set xrange [0.4:n + 0.6]
set xtics () rotate by -35 font ",9"
do for [i = 1:n] { set xtics add (word(mechs, i) i) }
sel(k) = (strcol("scheme") eq word(mechs, k) && strcol("status") eq "ok")
col(k) = (strcol("family") eq "liburcu" ? 0xee6677 : 0x4477aa)
set key outside top center horizontal
set multiplot layout 1, 2 title title_text noenhanced
set title "reads per second (log)"
plot for [k = 1:n] in using (k):(sel(k) ? column("reads_per_s") : NaN):(col(k)) with boxes lc rgb variable notitle, \
     for [k = 1:n] in using (k):(sel(k) ? column("reads_per_s") : NaN):(sel(k) ? column("reads_per_s_ci95") : NaN) \
	with yerrorbars lc rgb "black" pt 0 notitle, \
     NaN with boxes lc rgb "#4477aa" title "ours", NaN with boxes lc rgb "#ee6677" title "liburcu"
set title "writes (grace periods) per second (log)"
plot for [k = 1:n] in using (k):(sel(k) ? column("writes_per_s") : NaN):(col(k)) with boxes lc rgb variable notitle, \
     for [k = 1:n] in using (k):(sel(k) ? column("writes_per_s") : NaN):(sel(k) ? column("writes_per_s_ci95") : NaN) \
	with yerrorbars lc rgb "black" pt 0 notitle, \
     NaN with boxes lc rgb "#4477aa" title "ours", NaN with boxes lc rgb "#ee6677" title "liburcu"
unset multiplot
