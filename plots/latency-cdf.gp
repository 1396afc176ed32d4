# SPDX-License-Identifier: MIT
# Figure 2: per-call latency, one small panel per mechanism (and T): the
# fraction of calls at or above x (the tail of the CDF) on log-log axes
# shared by every panel, so p50 sits at 0.5, p99 at 0.01 and the slowest
# call at the curve's end. Each panel marks and prints p50, p99 (nearest
# rank at the bucket's midpoint, as latency.csv) and the max (the top of
# the highest bucket). Log x: expedited commands sit in microseconds,
# grace-period ones in milliseconds. Reads latency-histogram.csv only.
# Variables: in, mechs, title_text, style, extra (MECH@T:P50:P99:MAX:N per
# histogram, from plots/plot).
load style
set datafile separator ","
set datafile columnheaders
np = words(extra)
if (np == 0) { print "latency-cdf.gp: no histogram"; exit status 1 }
ncols = (np <= 4 ? np : (np <= 9 ? 3 : (np <= 12 ? 4 : 5)))
nrows = int(ceil(np * 1.0 / ncols))
# A taller canvas for more rows of panels.
if (nrows > 2) {
	if (GPVAL_TERM eq "pngcairo") { set terminal pngcairo size 1100, 250 * nrows + 100 noenhanced font ",10" }
	if (GPVAL_TERM eq "svg") { set terminal svg size 1100, 250 * nrows + 100 noenhanced font ",10" }
}
f(i, k) = word(extra, i)[strstrt(word(extra, i), "@") + 1:]
field(s, k) = (k == 1 ? s[1:strstrt(s, ":") - 1] : field(s[strstrt(s, ":") + 1:], k - 1))
pname(i) = word(extra, i)[1:strstrt(word(extra, i), "@") - 1]
pt(i) = field(f(i, 0), 1) + 0
pval(i, k) = field(f(i, 0) . ":", k + 1) + 0
ns(x) = (x >= 1e6 ? sprintf("%.3g ms", x / 1e6) : (x >= 1e3 ? sprintf("%.3g µs", x / 1e3) : sprintf("%.3g ns", x)))
xmin = 1e9; xmax = 1
do for [i = 1:np] {
	xmax = (pval(i, 3) > xmax ? pval(i, 3) : xmax)
}
stats in using "bucket_lo_ns" nooutput
xmin = (STATS_min > 1 ? STATS_min : 1)
xlo = 10 ** floor(log10(xmin))
xhi = 10 ** ceil(log10(xmax))
is(i) = (strcol("mechanism") eq pname(i) && (!has("threads") || opt("threads") == pt(i)))
set logscale xy
set xrange [xlo:xhi]
set yrange [1e-7:2]
set xtics @NS_TICS2
set ytics ("1" 1, "0.01" 0.01, "1e-4" 1e-4, "1e-6" 1e-6) font ",8"
set arrow 1 from graph 0, first 0.5 to graph 1, first 0.5 nohead lc rgb "#aaaaaa" dt 2 back
set arrow 2 from graph 0, first 0.01 to graph 1, first 0.01 nohead lc rgb "#aaaaaa" dt 2 back
set xtics font ",8"
set grid xtics ytics lc rgb "#e4e4e4"
set key noautotitle
unset key
set multiplot layout nrows, ncols title title_text . "\nfraction of calls at or above x (log-log); o p50 (y = 0.5), x p99 (y = 0.01), + max (the slowest call)" noenhanced \
	margins 0.05, 0.97, 0.06, 0.87 spacing 0.045, 0.11
do for [i = 1:np] {
	set title sprintf("%s\nT=%d, %d calls", pname(i), pt(i), pval(i, 4)) noenhanced font ",8"
	set label 1 sprintf("p50 %s\np99 %s\nmax %s", ns(pval(i, 1)), ns(pval(i, 2)), ns(pval(i, 3))) \
		at graph 0.03, 0.28 left font ",8" front
	# The fraction of calls in this bucket or above, summed from the counts
	# (the CSV's cumulative_fraction is rounded, too coarse for the tail).
	acc = 0
	N = pval(i, 4)
	plot in using (is(i) ? column("bucket_lo_ns") : NaN): \
		(is(i) ? (y = (N - acc) / N, acc = acc + column("count"), y) : NaN) \
		with steps lc rgb C[(i - 1) % 12 + 1] lw 1.5, \
	     '+' using (pval(i, 1)):(0.5) every ::0::0 with points pt 6 ps 1.3 lc rgb "#000000", \
	     '+' using (pval(i, 2)):(0.01) every ::0::0 with points pt 2 ps 1.3 lc rgb "#000000", \
	     '+' using (pval(i, 3)):(1.0 / N) every ::0::0 with points pt 1 ps 1.6 lw 2 lc rgb "#000000"
}
unset multiplot
