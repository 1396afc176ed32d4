# SPDX-License-Identifier: MIT
# Figure 3: which CPUs a barrier interrupts. A grid of mechanism (rows) x
# victim role (columns, one per role, or per role and side where a big host
# ran a role both near the caller and on a remote package): each cell holds
# the function-call IPIs per barrier the victim's CPU received in the storm
# (less its baseline: a difference, written signed), with the 95% CI below
# it. Private commands should hit only self-spin CPUs, v1 every CPU. The
# colour is the difference, 0 where it is below 0 (noise in the baseline
# subtraction); the text is the measured value, never clamped. A signal is
# not a function-call IPI: where the barrier sent signals to the victim's
# thread the cell says how many, beside the IPIs. The caller's own CPU is
# left out. Reads disturb.csv only.
# Variables: in, mechs, title_text, style, extra (col=COLUMN ... and
# g=ROUND:ROLE@CPU=N ..., from plots/plot).
load style
set datafile separator ","
set datafile columnheaders
n = words(mechs)
ex = " " . extra . " "
ncol = 0
do for [w in extra] { if (w[1:4] eq "col=") { ncol = ncol + 1 } }
if (ncol == 0) { ncol = 1 }
colname(j) = word(substr_cols, j)
substr_cols = ""
do for [w in extra] { if (w[1:4] eq "col=") { substr_cols = substr_cols . " " . w[5:] } }
# The grid column of a row (0: none), looked up by its round, role and CPU.
gkey(dummy) = " g=" . strcol("round") . ":" . strcol("role") . "@" . strcol("cpu") . "="
gcol(k) = (strstrt(ex, k) > 0 ? word(ex[strstrt(ex, k) + strlen(k):], 1) + 0 : 0)
row(m) = sum [k = 1:n] (word(mechs, k) eq m ? n - k + 1 : 0)
sel(dummy) = (strcol("phase") eq "storm" && strcol("status") eq "ok" && strcol("role") ne "caller")
v(dummy) = (column("ipis_per_barrier") > 0 ? column("ipis_per_barrier") : 0)
# The measured difference, signed; a signal's count where it sent some.
sig(dummy) = (S = opt("signals"), S == S && S > 0 ? sprintf("\n%d signals", S) : "")
vtext(dummy) = (abs(column("ipis_per_barrier")) < 0.005 ? "0.00" : sprintf("%+.2f", column("ipis_per_barrier"))) . sig(0)
hasci(dummy) = (opt("ipis_per_barrier_ci95") == opt("ipis_per_barrier_ci95"))
citext(dummy) = (hasci(0) ? sprintf("± %.2f", opt("ipis_per_barrier_ci95")) : "no CI")
set title title_text noenhanced
set xrange [0.5:ncol + 0.5]
set yrange [0.5:n + 0.5]
set x2range [0.5:ncol + 0.5]
set xtics () nomirror
set x2tics () noenhanced scale 0
set ytics () noenhanced scale 0
unset xtics
do for [j = 1:ncol] { set x2tics add (colname(j) j) }
do for [k = 1:n] { set ytics add (word(mechs, k) n - k + 1) }
set x2label "victim role (small text: the 95% CI)"
set palette defined (0 "#ffffff", 0.5 "#99bbdd", 1 "#224488")
set cbrange [0:1]
set cblabel "IPIs per barrier, storm less baseline (colour: below 0 as 0)"
set cbtics 0.25
unset grid
set border 0
set style fill solid 1.0 border lc rgb "#999999"
set lmargin 34
unset key
plot in using (sel(0) ? gcol(gkey(0)) : NaN):(row(strcol("mechanism"))):(0.5):(0.5):(v(0)) \
	with boxxyerror fc palette, \
     in using (sel(0) ? gcol(gkey(0)) : NaN):(row(strcol("mechanism")) + 0.12):(vtext(0)): \
	(v(0) > 0.6 ? 0xffffff : 0x000000) with labels tc rgb variable font ",12", \
     in using (sel(0) ? gcol(gkey(0)) : NaN):(row(strcol("mechanism")) - 0.2):(citext(0)): \
	(v(0) > 0.6 ? 0xffffff : 0x333333) with labels tc rgb variable font ",9"
