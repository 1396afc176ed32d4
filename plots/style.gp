# SPDX-License-Identifier: MIT
# Line styles shared by every figure: 12 series stay distinct in colour
# (Paul Tol's bright and muted palettes), dash pattern and point shape, so a
# figure reads in grey print too. Series i of a figure uses `ls i`; C[i] is
# its colour for scripts that vary the dash themselves.
array C[12] = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", \
	"#332288", "#882255", "#ee7733", "#009988", "#999933", "#000000"]
do for [i = 1:12] {
	dash = (i - 1) % 5 + 1	# a variable: "dt (expr)" would read as a dash list
	set style line i lc rgb C[i] dt dash pt i lw 1.5 ps 0.9
}
set style line 100 lc rgb "#555555" dt 3 lw 1.2
# Tick labels for a log axis in ns, in time units: `set ytics @NS_TICS`.
NS_TICS = '("1 ns" 1, "10 ns" 10, "100 ns" 100, "1 µs" 1e3, "10 µs" 1e4, "100 µs" 1e5, "1 ms" 1e6, "10 ms" 1e7, "100 ms" 1e8, "1 s" 1e9, "10 s" 1e10)'
# The same every second decade, for a narrow panel whose labels would run
# together: `set xtics @NS_TICS2` (mxtics 100 marks the decades between).
NS_TICS2 = '("1 ns" 1, "100 ns" 100, "10 µs" 1e4, "1 ms" 1e6, "100 ms" 1e8, "10 s" 1e10)'
# Open point shapes (an error bar shows through them), in series order.
array OPEN[6] = [6, 4, 8, 10, 12, 14]
set bars 2
