# SPDX-License-Identifier: MIT
# Figure 2: per-call latency CDF per mechanism, log x: expedited commands sit
# in microseconds, grace-period ones in milliseconds. Reads
# latency-histogram.csv only. Variables as in calls.gp.
set datafile separator ","
set datafile columnheaders
set logscale x
set grid
set key outside right top
set xlabel "latency of one barrier (ns, log)"
set ylabel "fraction of calls at or below"
set yrange [0:1.02]
set title title_text noenhanced
is(m) = (strcol("mechanism") eq m)
plot for [m in mechs] in using (is(m) ? column("bucket_hi_ns") : NaN):(is(m) ? column("cumulative_fraction") : NaN) \
	with steps title m noenhanced
