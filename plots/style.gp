# SPDX-License-Identifier: MIT
# Line styles shared by every figure: 12 series stay distinct in colour
# (Paul Tol's bright and muted palettes), dash pattern and point shape, so a
# figure reads in grey print too. Series i of a figure uses `ls i`; C[i] is
# its colour for scripts that vary the dash themselves.
array C[12] = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", \
	"#332288", "#882255", "#117733", "#999933", "#cc6677", "#000000"]
do for [i = 1:12] {
	dash = (i - 1) % 5 + 1	# a variable: "dt (expr)" would read as a dash list
	set style line i lc rgb C[i] dt dash pt i lw 1.5 ps 0.9
}
set style line 100 lc rgb "#555555" dt 3 lw 1.2
