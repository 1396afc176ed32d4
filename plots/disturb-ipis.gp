# SPDX-License-Identifier: MIT
# Figure 3: IPIs per barrier received by each victim role, per mechanism
# (storm minus baseline): private commands should hit only self-spin CPUs,
# v1 every CPU. One bar group per round, role and CPU (the caller appears in
# every round), one bar per mechanism. Reads disturb.csv only.
# Variables: in, mechs, title_text, style, groups ("ROUND:ROLE@CPU ...", set
# by plots/plot).
load style
set datafile separator ","
set datafile columnheaders
set style fill solid 0.8 border -1
set grid y
set key outside right top
set ylabel "IPIs per barrier (storm - baseline)"
set title title_text noenhanced
if (!exists("groups")) groups = ""
ng = words(groups)
gidx(g, i) = (i > ng) ? NaN : (word(groups, i) eq g ? i : gidx(g, i + 1))
n = words(mechs)
bw = 0.8 / n
set boxwidth bw
set xrange [0.4:ng + 0.6]
set yrange [0:*]
set xtics () rotate by -30 font ",9"
do for [i = 1:ng] {
	g = word(groups, i)
	set xtics add (sprintf("r%s %s", g[1:strstrt(g, ":") - 1], g[strstrt(g, ":") + 1:]) i)
}
sel(k) = (strcol("mechanism") eq word(mechs, k) && strcol("phase") eq "storm" && strcol("status") eq "ok")
grp(dummy) = gidx(strcol("round").":".strcol("role")."@".strcol("cpu"), 1)
plot for [k = 1:n] in using (grp(0) - 0.4 + bw * (k - 0.5)):(sel(k) ? column("ipis_per_barrier") : NaN) \
	with boxes lc rgb C[(k - 1) % 12 + 1] title word(mechs, k) noenhanced
