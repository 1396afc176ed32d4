# SPDX-License-Identifier: MIT
# Where a barrier's time goes: one bar per mechanism and T, its traced phase
# medians stacked (entry -> queue, delivery, handler, last exit -> return;
# from ipi:* alone: entry -> IPI sent, IPI sent -> exit), the untraced
# median of a barrier that sends marked, the stack's sum written above it.
# The bars come from analysis/mbplotcheck.py's plot check (anatomy-phases.csv
# with anatomy.csv beside it), in `extra`:
#   bar=MECH@T:SETUP:DELIVERY:HANDLER:WAIT:TO_IPI:AFTER_IPI:UNTRACED:TOTAL_CI (ns; - none)
# TOTAL_CI, the 95% CI half-width of the traced total's median, is drawn as
# an error bar on the stack's top; the sum is written above the bar, the
# dot and the error bar, whichever is highest.
# Variables: extra, title_text, style.
load style
# The k-th ":"-separated field of s.
field(s, k) = (k <= 1) ? s[1:strstrt(s . ":", ":") - 1] : field(s[strstrt(s, ":") + 1:], k - 1)
us(f) = (f eq "-" || f eq "") ? 0 : real(f) / 1000
NPH = 6
array LBL[NPH] = ["entry → queue (mutex, mask, setup)", "queue → handler entry (IPI delivery)", "handler", \
	"last exit → return (wait, return)", "entry → IPI sent (ipi:* only)", "IPI sent → exit (ipi:* only)"]
array COL[NPH] = [C[4], C[1], C[3], C[2], C[5], C[6]]
n = 0
do for [w in extra] { if (w[1:4] eq "bar=") { n = n + 1 } }
if (n == 0) { print "anatomy.gp: no bar in the plot check's words"; exit status 2 }
array P[n * NPH]
array U[n]
array S[n]
array NAME[n]
array TCI[n]
array USED[NPH]
do for [k = 1:NPH] { USED[k] = 0 }
ymax = 0
i = 0
do for [w in extra] {
	if (w[1:4] eq "bar=") {
		i = i + 1
		b = w[5:]
		NAME[i] = field(b, 1)
		S[i] = 0
		do for [k = 1:NPH] {
			v = us(field(b, k + 1))
			P[(i - 1) * NPH + k] = v
			S[i] = S[i] + v
			if (v > 0) { USED[k] = 1 }
		}
		u = field(b, NPH + 2)
		U[i] = (u eq "-") ? NaN : real(u) / 1000
		c = field(b, NPH + 3)
		TCI[i] = (c eq "-" || c eq "") ? 0 : real(c) / 1000
		if (S[i] + TCI[i] > ymax) { ymax = S[i] + TCI[i] }
		if (U[i] == U[i] && U[i] > ymax) { ymax = U[i] }
	}
}
set title title_text noenhanced
set ylabel "µs per barrier (medians of the traced phases; bar: the total's 95% CI)"
set yrange [0:ymax * 1.5 + 0.001]
set xrange [0.4:n + 0.6]
set xtics () rotate by 25 right noenhanced
do for [i = 1:n] {
	m = NAME[i]
	at = strstrt(m, "@")
	set xtics add (m[1:at - 1] . " T=" . m[at + 1:] i)
}
set grid y
set rmargin 4
# The key in the room left above the bars.
set key inside top center horizontal maxrows 3 width 2 opaque noenhanced
set lmargin 16
set bmargin 12
set style fill solid 0.85 border lc rgb "#333333"
do for [i = 1:n] {
	y = 0
	do for [k = 1:NPH] {
		v = P[(i - 1) * NPH + k]
		if (v > 0) {
			set object (i - 1) * NPH + k rect from i - 0.3, y to i + 0.3, y + v fc rgb COL[k] fs solid 0.85
		}
		y = y + v
	}
	if (TCI[i] > 0) {
		set arrow i from i, S[i] - TCI[i] to i, S[i] + TCI[i] heads size 0.06, 90 lw 1.5 lc rgb "#000000" front
	}
	top = S[i] + TCI[i]
	if (U[i] == U[i] && U[i] > top) { top = U[i] }
	set label i sprintf("%.3g µs", S[i]) at i, top center offset 0, 1.2
}
# The legend comes from empty plots of the phases' colours; the untraced
# medians are an array (read back as text: whitespace-separated).
set datafile separator whitespace
plot for [k = 1:NPH] (USED[k] ? NaN : 1/0) with boxes lc rgb COL[k] fs solid 0.85 \
		title (USED[k] ? LBL[k] : ""), \
	U using 1:2 with points pt 7 ps 1.8 lc rgb "#000000" title "untraced: median of the barriers that send"
