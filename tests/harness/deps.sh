#!/bin/sh
# SPDX-License-Identifier: MIT
# Every program the scripts run comes from bootstrap --deps or a minimal
# Debian 12 (tests/deps.py), so the README's commands work on a new machine.
PY=${PYTHON3:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found (apt-get install python3)"
	exit 0
fi
exec "$PY" "${top_srcdir:-.}/tests/deps.py" "${top_srcdir:-.}"
