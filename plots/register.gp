# SPDX-License-Identifier: MIT
# Registration cost vs threads already running: registering once other
# threads exist waits for a grace period, a step from microseconds to a
# tenth of a millisecond, not a slope. Per mechanism, one point with its 95%
# CI bar per count of other threads measured (never joined: nothing lies
# between the counts), on a log axis labelled in time units. The bars are
# the interval's own ends where the merge made it asymmetric
# (register_ns_ci95_lo/_hi: a bootstrap's, never below 0), else the mean ±
# the half-width; one whose lower end is still at or below 0 runs to the
# bottom of the axis and is drawn dashed. Reads register.csv only.
# Variables: in, mechs, title_text, style, extra (the other_threads counts
# measured, from plots/plot).
load style
set datafile separator ","
set datafile columnheaders
counts = (strlen(extra) ? extra : "0 1")
nc = words(counts)
n = words(mechs)
sel(m, j) = (strcol("mechanism") eq m && strcol("status") eq "ok" && column("other_threads") == word(counts, j) + 0)
stats in using (strcol("status") eq "ok" ? column("register_ns") : NaN) nooutput
lo = 10 ** floor(log10(STATS_min > 1 ? STATS_min : 1) - 0.5)
hi = 10 ** ceil(log10(STATS_max + 1) + 0.3)
stats in using (strcol("status") eq "ok" ? column("register_ns") + column("register_ns_ci95") : NaN) nooutput
hi = (STATS_max * 1.5 > hi ? STATS_max * 1.5 : hi)
set logscale y
set yrange [lo:hi]
set ytics @NS_TICS
set mytics 10
set grid ytics mytics lc rgb "#dddddd", lc rgb "#f0f0f0"
set ylabel "MEMBARRIER_CMD_REGISTER_* call (register_ns, log scale; bars: 95% CI)" noenhanced
set title title_text noenhanced
w = (nc > 1 ? 0.6 / (nc - 1) : 0)
set xrange [0.4:n + 0.6]
set xtics () rotate by 20 right noenhanced nomirror
do for [i = 1:n] { set xtics add (word(mechs, i) i) }
set bmargin 8
set key outside right top Left reverse title "other threads running" noenhanced
x(i, j) = i + (j - (nc + 1) / 2.0) * w
low(j) = (L = opt("register_ns_ci95_lo"), L == L ? L : column("register_ns") - column("register_ns_ci95"))
high(j) = (H = opt("register_ns_ci95_hi"), H == H ? H : column("register_ns") + column("register_ns_ci95"))
plot for [j = 1:nc] for [i = 1:n] in using (x(i, j)):(sel(word(mechs, i), j) ? column("register_ns") : NaN): \
	(sel(word(mechs, i), j) && low(j) > lo ? low(j) : NaN):(high(j)) \
	with yerrorbars lc rgb C[j] lw 1.5 pt OPEN[(j - 1) % 6 + 1] ps 1.4 title (i == 1 ? word(counts, j) : ""), \
     for [j = 1:nc] for [i = 1:n] in using (x(i, j)):(sel(word(mechs, i), j) && low(j) <= lo ? column("register_ns") : NaN): \
	(lo):(high(j)) \
	with yerrorbars lc rgb C[j] lw 1.5 dt 2 pt OPEN[(j - 1) % 6 + 1] ps 1.4 notitle, \
     NaN with lines lc rgb "#555555" lw 1.5 dt 2 title "CI down to 0 or below"
