# SPDX-License-Identifier: MIT
# Draws one figure for plots/plot: sets the terminal, the output and the
# variables every figure script reads, then loads that script. Everything
# that comes from a results folder (paths, names, the title) arrives here
# as an ARG string and is used only as a value, never as a command.
#   gnuplot -c draw.gp TERM OUTPUT CSV NAMES WHAT TITLE STYLE EXTRA SCRIPT
# TERM is png or svg; NAMES the space-separated mechanisms (or schemes) to
# draw; EXTRA words (may be empty): "+COL" for each optional column the CSV
# has, which a script reads as opt("COL") or optstr("COL") (NaN or "" when
# the CSV lacks it), then the figure's own words (analysis/mbplotcheck.py's
# plot-check says which), in `extra`; `panels` is the same without the
# "+COL" words.
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
extra = ""
have = " "
do for [w in ARG8] {
	if (w[1:1] eq "+") { have = have . w[2:] . " " } else { extra = extra . (strlen(extra) ? " " : "") . w }
}
panels = extra
has(c) = (strstrt(have, " " . c . " ") > 0)
opt(c) = (has(c) ? column(c) : NaN)
optstr(c) = (has(c) ? strcol(c) : "")
load ARG9
unset output
