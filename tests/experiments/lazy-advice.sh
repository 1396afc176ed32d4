#!/bin/sh
# SPDX-License-Identifier: MIT
# The advice for the lazy-mm GLOBAL_EXPEDITED bug is true everywhere the
# project gives it: no registration order avoids the bug (a thread that
# exits after registration, or the main thread's own move before it, leaves
# a CPU stale), so no file of the project may offer one as the workaround.
. "${top_srcdir:-.}/tests/lib.sh"
plan 2

src=${top_srcdir:-.}
# The phrasings the old advice took, as a user would have read them (a
# line break anywhere in them). The registration *cost* rule of the Verdict
# (PRIVATE_EXPEDITED's registration waits for a grace period once threads
# exist) is about cost, not this bug, and names no GLOBAL_EXPEDITED.
old='threads exist \(or before any thread|register GLOBAL_EXPEDITED after|registering while the other threads already run is the workaround|registering while the other threads run|the workaround on an unfixed kernel|while the other threads already run avoids'
hits=
for f in $(find "$src/bench" "$src/analysis" "$src/docs" "$src/README.md" "$src/kernel-patch" "$src/plots" \
	"$src/workloads" -type f \( -name '*.[ch]' -o -name '*.md' -o -name '*.py' -o -name '*.1' -o -name '*.patch' \
	-o -name '*.gp' -o -name '*.sh' -o -name README -o -name report -o -name sweep \) 2>/dev/null); do
	tr -s ' \t\n' '   ' <"$f" | grep -qiE "$old" && hits="$hits ${f#"$src"/}"
done
[ -z "$hits" ]
ok $? "no registration-order workaround in the project (found in: ${hits:-none})"

# The one advice that holds, where the suite prints it: doctor's workaround.
grep -q 'within one process use' "$src/bench/experiments/doctor/doctor.h" &&
	grep -q 'MEMBARRIER_CMD_PRIVATE_EXPEDITED' "$src/bench/experiments/doctor/doctor.h" &&
	grep -q 'across processes' "$src/bench/experiments/doctor/doctor.h"
ok $? "doctor's workaround: PRIVATE_EXPEDITED within a process, GLOBAL or a fixed kernel across processes"
done_testing
