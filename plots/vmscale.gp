# SPDX-License-Identifier: MIT
# IPIs per barrier vs vCPU count in the patched-kernel VM, k = 1 vCPU running
# the caller's other thread (the rest idle): v1's fan-out grows with the
# machine, v5's (and PRIVATE_EXPEDITED's) with the process. log2 x, linear y
# (a mechanism that sends no IPI stays visible at 0); the two reference
# lines, N - 1 (every other CPU) and k = 1 (the process), are drawn last, on
# top, and labelled. Reads vmscale.csv only. Variables: in, mechs,
# title_text, style.
load style
set datafile separator ","
set datafile columnheaders
set datafile missing NaN
set grid
set key outside right top
set logscale x 2
set xlabel "vCPUs N (-smp, log2), k = 1 of them running a thread of the caller's process"
set ylabel "IPIs per barrier, all CPUs"
set title title_text noenhanced
set yrange [-0.5:*]
sel(m) = (strcol("mechanism") eq m && strcol("k") eq "1" && strcol("status") eq "ok")
stats in using "smp" nooutput
nmax = STATS_max
set label 1 "N - 1: every other CPU (v1)" at nmax, nmax - 1 right offset -1, 1 tc rgb "#555555"
set label 2 "k = 1: the process (v5, PRIVATE_EXPEDITED)" at nmax, 1 right offset -1, 1 tc rgb "#555555"
# Rows of one mechanism are not contiguous (k varies): NaN rows are
# "missing", which lines connect across (undefined points would break them).
plot for [i = 1:words(mechs)] in using "smp":(sel(word(mechs, i)) ? column("ipis_per_barrier_total") : NaN) \
	with linespoints ls i title word(mechs, i) noenhanced, \
     in using "smp":(strcol("k") eq "1" ? column("expected_v1") : NaN) with lines ls 100 lw 2 title "reference: N - 1", \
     in using "smp":(strcol("k") eq "1" ? 1 : NaN) with lines ls 100 dt 2 lw 2 title "reference: k = 1"
