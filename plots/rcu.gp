# SPDX-License-Identifier: MIT
# Figure 5: the RCU trade-off in one scatter: reads/s (y) against writes
# (grace periods)/s (x), log-log, one point per scheme with its 95% CI in
# both directions (ours: circles, liburcu's: triangles; the key below names
# them); a CI reaching 0 or below runs to the axis. The seed's published
# points (liburcu, 6 readers and 2 writers for 10 s on an 8-CPU Xeon
# E5405, 2010) are black diamonds, named beside them and marked as from
# other hardware: compare
# positions, not values. Reads rcu.csv only; the seed's figures come from
# plots/plot (results/seed-2010.csv).
# Variables: in, mechs (the schemes), title_text, style, extra (rw=R:W
# and seed=NAME:READS_PER_S:WRITES_PER_S ...).
load style
set datafile separator ","
set datafile columnheaders
n = words(mechs)
seeds = ""
do for [w in extra] { if (w[1:5] eq "seed=") { seeds = seeds . " " . w } }
ns = words(seeds)
sname(i) = word(seeds, i)[6:strstrt(word(seeds, i), ":") - 1]
srest(i) = word(seeds, i)[strstrt(word(seeds, i), ":") + 1:]
sreads(i) = srest(i)[1:strstrt(srest(i), ":") - 1] + 0
swrites(i) = srest(i)[strstrt(srest(i), ":") + 1:] + 0
sel(k) = (strcol("scheme") eq word(mechs, k) && strcol("status") eq "ok")
ours(k) = (strcol("family") ne "liburcu")
# The axes: every point and CI end above 0, and the seed's points.
stats in using (strcol("status") eq "ok" ? column("writes_per_s") : NaN): \
	(strcol("status") eq "ok" ? column("reads_per_s") : NaN) nooutput
wmin = STATS_min_x; wmax = STATS_max_x; rmin = STATS_min_y; rmax = STATS_max_y
do for [i = 1:ns] {
	wmin = (swrites(i) < wmin ? swrites(i) : wmin); wmax = (swrites(i) > wmax ? swrites(i) : wmax)
	rmin = (sreads(i) < rmin ? sreads(i) : rmin); rmax = (sreads(i) > rmax ? sreads(i) : rmax)
}
wlo = 10 ** floor(log10(wmin > 0 ? wmin : 1) - 0.2); whi = 10 ** ceil(log10(wmax > 0 ? wmax : 1) + 0.4)
rlo = 10 ** floor(log10(rmin > 0 ? rmin : 1) - 0.2); rhi = 10 ** ceil(log10(rmax > 0 ? rmax : 1) + 0.2)
set logscale xy
set xrange [wlo:whi]
set yrange [rlo:rhi]
set format x "%.0s%c"
set format y "%.0s%c"
set grid xtics ytics lc rgb "#e4e4e4"
set xlabel "writes (grace periods) per second (writes_per_s, log; bars: 95% CI)" noenhanced
set ylabel "reads per second (reads_per_s, log; bars: 95% CI)" noenhanced
R = "?"; W = "?"
do for [w in extra] {
	if (w[1:3] eq "rw=") { R = w[4:strstrt(w, ":") - 1]; W = w[strstrt(w, ":") + 1:] }
}
set title title_text . "\nthis run: " . R . " reader(s), " . W . " writer(s); up and right is better; seed memb = liburcu on sys_membarrier" noenhanced
set key outside below center horizontal Left reverse width -2 maxrows 4 noenhanced
lo(v, c) = (v - c > 0 ? v - c : 1e-300)
plot for [f = 0:1] for [k = 1:n] in using (sel(k) && ours(k) == f ? column("writes_per_s") : NaN):(column("reads_per_s")): \
	(lo(column("writes_per_s"), column("writes_per_s_ci95"))):(column("writes_per_s") + column("writes_per_s_ci95")): \
	(lo(column("reads_per_s"), column("reads_per_s_ci95"))):(column("reads_per_s") + column("reads_per_s_ci95")) \
	with xyerrorbars lc rgb C[(k - 1) % 12 + 1] lw 1.3 pt (f ? 6 : 8) ps 1.5 notitle, \
     for [k = 1:n] NaN with points lc rgb C[(k - 1) % 12 + 1] lw 1.3 pt (word(mechs, k)[1:8] eq "liburcu-" ? 8 : 6) ps 1.5 \
	title word(mechs, k), \
     for [i = 1:ns] '+' using (swrites(i)):(sreads(i)) every ::0::0 with points pt 13 ps 1.6 lc rgb "#000000" \
	title (i == 1 ? "seed, 2010 (8 CPUs, other hardware; 6 readers, 2 writers)" : ""), \
     for [i = 1:ns] '+' using (swrites(i) * 1.15):(sreads(i) * (sname(i) eq "memb-nonexp" ? 1.3 : 0.75)): \
	("seed " . sname(i)) every ::0::0 with labels left font ",9" tc rgb "#000000" notitle
