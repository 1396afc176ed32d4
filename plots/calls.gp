# SPDX-License-Identifier: MIT
# Figure 1: ns per barrier call vs thread count T, the table's own figure
# (calls.csv ns_per_call, the mean over repeats of loop time / calls) with
# its 95% CI as an error bar. The user-space controls (fence, null) cost a
# few ns and get their own linear panel; the barriers proper span six
# decades and share a log axis labelled in time units. Points are dodged
# sideways so that their CI bars do not hide each other; thin lines only
# join measured T. A point with more threads than CPUs (oversubscribed = 1)
# is ringed. The bars are the interval's own ends where the merge made it
# asymmetric (ns_per_call_ci95_lo/_hi: a t-interval below 0 gave way to a
# bootstrap's), else the mean ± the half-width. A point the kernel's
# lazy-mm bug produced (kernel_finding set by the sweep, and under half an
# IPI per barrier: the barrier reached no one) is crossed. Reads calls.csv
# only.
# Variables: in (CSV), mechs (space-separated), title_text, style (style.gp).
load style
set datafile separator ","
set datafile columnheaders
n = words(mechs)
cheap(m) = (m eq "fence" || m eq "null")
ncheap = sum [i = 1:n] (cheap(word(mechs, i)) ? 1 : 0)
nexp = n - ncheap
ok(m) = (strcol("mechanism") eq m && strcol("status") eq "ok")
# sel(i, c): a measured row of series i, in the controls' panel (c = 1) or not.
sel(i, c) = (cheap(word(mechs, i)) == c && ok(word(mechs, i)))
over = has("oversubscribed")
isover(m) = (ok(m) && opt("oversubscribed") == 1)
# The interval's ends: its own where the CSV has them, else mean ± CI.
ylo(x) = (L = opt("ns_per_call_ci95_lo"), L == L ? L : column("ns_per_call") - column("ns_per_call_ci95"))
yhi(x) = (H = opt("ns_per_call_ci95_hi"), H == H ? H : column("ns_per_call") + column("ns_per_call_ci95"))
# A barrier that the kernel's bug let reach no target.
# (gnuplot reads an empty last field as the column's name: not a finding)
isbug(m) = (K = optstr("kernel_finding"), ok(m) && K ne "" && K ne "kernel_finding" && opt("ipis_per_barrier") < 0.5)
bugs = has("kernel_finding")
# Dodge: series k of K sits at T + (k - (K + 1) / 2) * dx.
dx(K) = (K > 1 ? 0.36 / (K - 1) : 0)
rank(i, want) = sum [j = 1:i] (cheap(word(mechs, j)) == want ? 1 : 0)
set grid ytics xtics lc rgb "#dddddd"
set xtics 1 nomirror
set xlabel "threads T (the caller + T-1 threads spinning in user space)"
set autoscale xfix
set offsets 0.45, 0.45, graph 0.04, graph 0.04
set multiplot title title_text noenhanced
# Right: the barriers proper, log y.
if (nexp > 0) {
	set lmargin at screen (ncheap > 0 ? 0.36 : 0.08)
	set rmargin at screen 0.98
	set tmargin at screen 0.86
	set bmargin at screen 0.31
	set logscale y
	set ytics @NS_TICS
	set mytics 10
	set ylabel "ns per call (log; bars: 95% CI)"
	set title "barriers (ns_per_call, log scale)" noenhanced
	unset key
	plot for [i = 1:n] in using (cheap(word(mechs, i)) ? NaN : column("threads") + (rank(i, 0) - (nexp + 1) / 2.0) * dx(nexp)): \
		(sel(i, 0) ? column("ns_per_call") : NaN) with lines lc rgb C[(i - 1) % 12 + 1] lw 0.8 dt 3 notitle, \
	     for [i = 1:n] in using (cheap(word(mechs, i)) ? NaN : column("threads") + (rank(i, 0) - (nexp + 1) / 2.0) * dx(nexp)): \
		(sel(i, 0) ? column("ns_per_call") : NaN):(sel(i, 0) ? ylo(0) : NaN):(sel(i, 0) ? yhi(0) : NaN) \
		with yerrorbars lc rgb C[(i - 1) % 12 + 1] lw 1.5 pt OPEN[(i - 1) % 6 + 1] ps 1.1 \
		notitle, \
	     for [i = 1:n] in using (cheap(word(mechs, i)) ? NaN : column("threads") + (rank(i, 0) - (nexp + 1) / 2.0) * dx(nexp)): \
		((sel(i, 0) && isover(word(mechs, i))) ? column("ns_per_call") : NaN) with points pt 6 ps 2.2 lc rgb "#000000" lw 1 \
		notitle, \
	     for [i = 1:n] in using (cheap(word(mechs, i)) ? NaN : column("threads") + (rank(i, 0) - (nexp + 1) / 2.0) * dx(nexp)): \
		((sel(i, 0) && isbug(word(mechs, i))) ? column("ns_per_call") : NaN) with points pt 2 ps 2.6 lc rgb "#cc0000" lw 2 \
		notitle
	unset logscale y
	set ytics auto
	set mytics default
	unset key
}
# Left: the user-space controls, linear y from 0.
if (ncheap > 0) {
	set lmargin at screen 0.07
	set rmargin at screen (nexp > 0 ? 0.27 : 0.98)
	set tmargin at screen 0.86
	set bmargin at screen (nexp > 0 ? 0.31 : 0.1)
	set yrange [0:*]
	set ylabel "ns per call (linear; bars: 95% CI)"
	set title "user-space controls" noenhanced
	set xlabel "threads T"
	set key default
	set key top left Left reverse samplen 1 noenhanced
	plot for [i = 1:n] in using (cheap(word(mechs, i)) ? column("threads") + (rank(i, 1) - (ncheap + 1) / 2.0) * dx(ncheap) : NaN): \
		(sel(i, 1) ? column("ns_per_call") : NaN) with lines lc rgb C[(i - 1) % 12 + 1] lw 0.8 dt 3 notitle, \
	     for [i = 1:n] in using (cheap(word(mechs, i)) ? column("threads") + (rank(i, 1) - (ncheap + 1) / 2.0) * dx(ncheap) : NaN): \
		(sel(i, 1) ? column("ns_per_call") : NaN):(sel(i, 1) ? ylo(0) : NaN):(sel(i, 1) ? yhi(0) : NaN) \
		with yerrorbars lc rgb C[(i - 1) % 12 + 1] lw 1.5 pt OPEN[(i - 1) % 6 + 1] ps 1.1 \
		title (cheap(word(mechs, i)) ? word(mechs, i) : ""), \
	     for [i = 1:n] in using (cheap(word(mechs, i)) ? column("threads") + (rank(i, 1) - (ncheap + 1) / 2.0) * dx(ncheap) : NaN): \
		((sel(i, 1) && isover(word(mechs, i))) ? column("ns_per_call") : NaN) with points pt 6 ps 2.2 lc rgb "#000000" lw 1 notitle
}
# The key of the barriers' panel, across the whole width below the panels
# (a key inside a panel gets only the panel's width).
if (nexp > 0) {
	set lmargin at screen 0.02
	set rmargin at screen 0.98
	set tmargin at screen 0.20
	set bmargin at screen 0.01
	unset border; unset tics; unset xlabel; unset ylabel; unset title; unset grid
	set xrange [0:1]; set yrange [0:1]
	set key inside center center horizontal Left reverse width -2 samplen 2 maxrows 5 noenhanced
	plot for [i = 1:n] NaN with yerrorbars lc rgb C[(i - 1) % 12 + 1] lw 1.5 pt OPEN[(i - 1) % 6 + 1] ps 1.1 \
		title (cheap(word(mechs, i)) ? "" : word(mechs, i)), \
	     NaN with points pt 6 ps 2.2 lc rgb "#000000" lw 1 title (over ? "ringed: more threads than CPUs (oversubscribed)" : ""), \
	     NaN with points pt 2 ps 2.6 lc rgb "#cc0000" lw 2 title (bugs ? "crossed: no IPI sent, the kernel's lazy-mm bug" : "")
}
unset multiplot
