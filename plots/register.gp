# SPDX-License-Identifier: MIT
# Registration cost vs threads already running: registering once other
# threads exist costs a grace period. Reads register.csv only.
# Variables: in, mechs, title_text, style.
load style
set datafile separator ","
set datafile columnheaders
set logscale y
set grid
set key outside right top
set xlabel "other threads running at registration"
set ylabel "MEMBARRIER_CMD_REGISTER_* time (ns, log; bars: 95% CI)"
set title title_text noenhanced
set xtics 1
sel(m) = (strcol("mechanism") eq m && strcol("status") eq "ok")
plot for [i = 1:words(mechs)] in using "other_threads":(sel(word(mechs, i)) ? column("register_ns") : NaN): \
	(sel(word(mechs, i)) ? column("register_ns_ci95") : NaN) \
	with yerrorlines ls i title word(mechs, i) noenhanced
