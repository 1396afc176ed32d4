# SPDX-License-Identifier: MIT
# IPIs per barrier vs vCPU count in the patched-kernel VM, k = 1 vCPU running
# the caller's other thread (the rest idle): v1's fan-out grows with the
# machine, v5's (and PRIVATE_EXPEDITED's) with the process. Reads
# vmscale.csv only. Variables: in, mechs, title_text.
set datafile separator ","
set datafile columnheaders
set datafile missing NaN
set grid
set key outside right top
set logscale x 2
set xlabel "vCPUs (-smp), one of them running a thread of the caller's process"
set ylabel "IPIs per barrier, all CPUs"
set title title_text noenhanced
sel(m) = (strcol("mechanism") eq m && strcol("k") eq "1" && strcol("status") eq "ok")
# Rows of one mechanism are not contiguous (k varies): NaN rows are
# "missing", which lines connect across (undefined points would break them).
plot for [m in mechs] in using "smp":(sel(m) ? column("ipis_per_barrier_total") : NaN) \
	with linespoints title m noenhanced, \
     in using "smp":(strcol("k") eq "1" ? column("expected_v1") : NaN) \
	with lines dt 3 lc rgb "gray" title "N - 1 (every other CPU)"
