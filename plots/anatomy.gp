# SPDX-License-Identifier: MIT
# Where a barrier's time goes: per mechanism, the medians of its traced
# phases stacked (setup, delivery, handler, wait: together the traced
# total), with the untraced median per barrier marked. Reads
# anatomy-phases.csv (in) and, beside it, anatomy.csv. Not one of the
# sweep's figures (anatomy is not swept): draw it with
#   gnuplot -c plots/draw.gp png OUT.png DIR/anatomy-phases.csv "MECHS" \
#       "phases" "" plots/style.gp "" plots/anatomy.gp
# Variables: in, mechs, title_text, style.
load style
set datafile separator ","
set datafile columnheaders
uin = in[1:strlen(in) - strlen("-phases.csv")] . ".csv"
phases = "setup delivery handler wait"
# stats does not take columns by name here: find their numbers in the
# header line, then read the rows after it by number.
set datafile columnheaders
pnames = "mechanism phase target_cpu p50_ns"
unames = "mechanism status untraced_sent_p50_ns"
array PC[4]
array UC[3]
do for [c = 1:60] {
	h = ""
	stats in every ::0::0 using (h = columnhead(c), 1) nooutput
	do for [j = 1:4] { if (h eq word(pnames, j)) { PC[j] = c } }
	h = ""
	stats uin every ::0::0 using (h = columnhead(c), 1) nooutput
	do for [j = 1:3] { if (h eq word(unames, j)) { UC[j] = c } }
}
set datafile nocolumnheaders
n = words(mechs)
array P[n * 4]
array U[n]
ymax = 0
do for [i = 1:n] {
	m = word(mechs, i)
	base = 0
	do for [k = 1:4] {
		ph = word(phases, k)
		v = 0
		STATS_records = 0
		stats in skip 1 using ((strcol(PC[1]) eq m && strcol(PC[2]) eq ph && \
			strcol(PC[3]) eq "all") ? column(PC[4]) / 1000 : NaN) nooutput
		if (exists("STATS_records")) { if (STATS_records > 0) { v = STATS_max } }
		P[(i - 1) * 4 + k] = v
		base = base + v
	}
	U[i] = NaN
	STATS_records = 0
	stats uin skip 1 using ((strcol(UC[1]) eq m && strcol(UC[2]) eq "ok") ? \
		column(UC[3]) / 1000 : NaN) nooutput
	if (exists("STATS_records")) { if (STATS_records > 0) { U[i] = STATS_max } }
	if (base > ymax) { ymax = base }
	if (U[i] == U[i] && U[i] > ymax) { ymax = U[i] }
}
set title title_text noenhanced
set ylabel "µs per barrier (medians; traced)"
set yrange [0:ymax * 1.15 + 0.001]
set xrange [0.4:n + 0.6]
set xtics () rotate by -20
do for [i = 1:n] { set xtics add (word(mechs, i) i) }
set grid y
set key outside right top
set style fill solid 0.85 border lc rgb "#333333"
do for [i = 1:n] {
	y = 0
	do for [k = 1:4] {
		v = P[(i - 1) * 4 + k]
		set object (i - 1) * 4 + k rect from i - 0.3, y to i + 0.3, y + v fc rgb C[k] fs solid 0.85
		y = y + v
	}
}
# The legend entries come from empty plots of the phases' colours.
# (An array is read back as text: the CSV separator would break it.)
set datafile separator whitespace
plot for [k = 1:4] NaN with boxes lc rgb C[k] fs solid 0.85 title word(phases, k), \
	U using 1:2 with points pt 7 ps 1.6 lc rgb "#000000" title "untraced (p50 of those that sent)"
