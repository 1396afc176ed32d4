# SPDX-License-Identifier: MIT
# Figure 3: IPIs per barrier received by each victim role, per mechanism
# (storm minus baseline): private commands should hit only self-spin CPUs,
# v1 every CPU. Reads disturb.csv only. Variables: in, mechs, title_text.
set datafile separator ","
set datafile columnheaders
set style fill solid 0.8 border -1
set grid y
set key outside right top
set ylabel "IPIs per barrier (storm - baseline)"
set title title_text noenhanced
roles = "idle self-spin self-sleep foreign-spin foreign-rt foreign-sleep caller"
idx(w, i) = (i > words(roles)) ? NaN : (word(roles, i) eq w ? i : idx(w, i + 1))
n = words(mechs)
bw = 0.8 / n
set boxwidth bw
set xrange [0.4:words(roles) + 0.6]
set yrange [0:*]
set xtics () 
do for [i = 1:words(roles)] { set xtics add (word(roles, i) i) }
sel(k) = (strcol("mechanism") eq word(mechs, k) && strcol("phase") eq "storm" && strcol("status") eq "ok")
plot for [k = 1:n] in using (idx(strcol("role"), 1) - 0.4 + bw * (k - 0.5)):(sel(k) ? column("ipis_per_barrier") : NaN) \
	with boxes title word(mechs, k) noenhanced
