# SPDX-License-Identifier: MIT
# Figure 2: per-call latency per mechanism: the CDF (left) and its tail,
# the fraction of calls slower than x on a log axis (right), where p99,
# p99.9 and the maximum show. Log x: expedited commands sit in
# microseconds, grace-period ones in milliseconds. Reads
# latency-histogram.csv only. Variables as in calls.gp.
load style
set datafile separator ","
set datafile columnheaders
set logscale x
set grid
set key outside bottom center horizontal
set xlabel "latency of one barrier (ns, log)"
is(m) = (strcol("mechanism") eq m)
set multiplot layout 1, 2 title title_text noenhanced
set title "CDF: fraction of calls at or below x"
set yrange [0:1.02]
plot for [i = 1:words(mechs)] in using (is(word(mechs, i)) ? column("bucket_hi_ns") : NaN): \
	(is(word(mechs, i)) ? column("cumulative_fraction") : NaN) with steps ls i title word(mechs, i) noenhanced
set title "tail: fraction of calls slower than x (log; 1e-3 = p99.9)"
set logscale y
set yrange [1e-6:1.5]
set format y "%.0e"
plot for [i = 1:words(mechs)] in using (is(word(mechs, i)) ? column("bucket_hi_ns") : NaN): \
	(is(word(mechs, i)) && column("cumulative_fraction") < 1 ? 1 - column("cumulative_fraction") : NaN) \
	with steps ls i notitle, \
	1e-2 with lines ls 100 title "p99", 1e-3 with lines ls 100 dt 2 title "p99.9"
unset multiplot
