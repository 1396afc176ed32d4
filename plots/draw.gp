# SPDX-License-Identifier: MIT
# Draws one figure for plots/plot: sets the terminal, the output and the
# variables every figure script reads, then loads that script. Everything
# that comes from a results folder (paths, names, the title) arrives here
# as an ARG string and is used only as a value, never as a command.
#   gnuplot -c draw.gp TERM OUTPUT CSV NAMES WHAT TITLE STYLE EXTRA SCRIPT
# TERM is png or svg; NAMES the space-separated mechanisms (or schemes) to
# draw; EXTRA the disturb figures' bar groups or panels (may be empty).
if (ARGC != 9) { print "draw.gp: 9 arguments expected"; exit status 2 }
if (ARG1 eq "png") {
	set terminal pngcairo size 1100,650 noenhanced font ",10"
} else {
	set terminal svg size 1100,650 noenhanced font ",10"
}
set output ARG2
in = ARG3
mechs = ARG4
title_text = ARG5 . "\n" . ARG6
style = ARG7
if (strlen(ARG8) > 0) { groups = ARG8; panels = ARG8 }
load ARG9
unset output
