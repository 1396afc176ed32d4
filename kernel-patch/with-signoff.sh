# SPDX-License-Identifier: GPL-2.0
# Sourced by kernel-patch/common.sh and tests/kernel/upstream-series.sh.
# with_signoff PATCH: the patch on stdout with a Signed-off-by: line of
# its From: added after the message when it has none, for checkpatch
# only. The patches carry none: the sender adds their own.
with_signoff() {
	awk 'NR == 1 { inhdr = 1 }
	inhdr && /^From: / { from = substr($0, 7); cont = 1; print; next }
	inhdr && cont && /^ / { from = from $0; print; next }
	{ cont = 0 }
	inhdr && /^$/ { inhdr = 0 }
	/^Signed-off-by: / { sob = 1 }
	!done && !inhdr && /^---$/ { if (!sob) print "Signed-off-by: " from; done = 1 }
	{ print }' "$1"
}
