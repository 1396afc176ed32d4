# SPDX-License-Identifier: MIT
# IPIs per barrier vs vCPU count N in the patched-kernel VM: does a
# barrier's fan-out grow with the machine or with the process? Left, k = 1
# vCPU runs the caller's other thread (the rest idle): v1's fan-out grows
# with N, v5's (and PRIVATE_EXPEDITED's) stays at the process's 1. Right,
# k = N - 1: the process covers the machine and every design sends N - 1.
# log2 x, linear y (a mechanism that sends no IPI stays visible at 0); the
# reference lines N - 1 and k are drawn dashed and named in the key. Points
# are dodged sideways so equal counts do not hide each other, and not
# joined (only powers of 2 were measured). Each point is the mean over the guest's processes;
# its CI (ipis_per_barrier_total_ci95) stays in the CSV, not drawn: the counts are whole IPIs
# and their spread is hundredths. A count below 0 (the baseline's noise) is drawn at 0. Reads vmscale.csv
# only. Variables: in, mechs, title_text, style.
load style
set datafile separator ","
set datafile columnheaders
n = words(mechs)
sel(m, all) = (strcol("mechanism") eq m && strcol("status") eq "ok" && \
	(all ? column("k") == column("smp") - 1 && column("k") != 1 : column("k") == 1))
stats in using (strcol("status") eq "ok" ? column("smp") : NaN) nooutput
nmin = STATS_min; nmax = STATS_max
set logscale x 2
set xrange [nmin / 1.3:nmax * 1.3]
set yrange [-0.5:nmax]
set xtics nomirror
set grid xtics ytics lc rgb "#e4e4e4"
set xlabel "vCPUs N (-smp, log2)"
set ylabel "IPIs per barrier, all CPUs (below 0 drawn at 0)"
dx(i) = 2 ** ((i - (n + 1) / 2.0) * 0.05)
v(dummy) = (column("ipis_per_barrier_total") > 0 ? column("ipis_per_barrier_total") : 0)
unset key
set multiplot layout 1, 2 title title_text . "\none storm of about 100 barriers per point (the CSV has no CI)" noenhanced \
	margins 0.07, 0.98, 0.24, 0.86 spacing 0.07
do for [all = 0:1] {
	set title (all ? "k = N - 1: the caller's threads on every other vCPU" : "k = 1: the caller's other thread on one vCPU, the rest idle") noenhanced
	if (all) { unset ylabel }
	plot '+' using 1:($1 - 1) with lines lc rgb "#555555" dt 2 lw 1.5, \
	     (all ? NaN : 1) with lines lc rgb "#555555" dt 4 lw 1.5, \
	     for [i = 1:n] in using (sel(word(mechs, i), all) ? column("smp") * dx(i) : NaN):(v(0)) \
		with points lc rgb C[(i - 1) % 12 + 1] pt OPEN[(i - 1) % 6 + 1] ps 1.4 lw 1.5
}
# The key, across the whole width below the panels.
set lmargin at screen 0.02
set rmargin at screen 0.98
set tmargin at screen 0.13
set bmargin at screen 0.01
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset grid
unset logscale x
set xrange [0:1]; set yrange [0:1]
set key inside center center horizontal Left reverse samplen 3 maxrows 3 noenhanced
plot for [i = 1:n] NaN with points lc rgb C[(i - 1) % 12 + 1] pt OPEN[(i - 1) % 6 + 1] ps 1.4 lw 1.5 title word(mechs, i), \
     NaN with lines lc rgb "#555555" dt 2 lw 1.5 title "N - 1: every other CPU (v1's design)", \
     NaN with lines lc rgb "#555555" dt 4 lw 1.5 title "k = 1: the process (v5's design)"
unset multiplot
