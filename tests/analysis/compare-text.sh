#!/bin/sh
# SPDX-License-Identifier: MIT
# mbbench compare --format text: plain text to paste under a kernel patch.
# Every line at most 72 columns (also with long folder names, long host
# facts and long point names, and on the committed reference folders), no
# Markdown, the host facts and settings that differ (and only those), and
# per point its name, before and after with their CIs, the change in %
# with its CI, and the verdict.
. "${top_srcdir:-.}/tests/lib.sh"

need_python
plan 9

long=$TMP/a-folder-name-long-enough-to-need-wrapping-in-a-seventy-two-column-text
"$PY" - "$TMP" "$long" "${top_srcdir:-.}/results/schema.json" <<'PY'
import csv, json, os, sys
tmp, long, schema = sys.argv[1], sys.argv[2], sys.argv[3]
cols = {t["name"]: [c["name"] for c in t["columns"]] for t in json.load(open(schema))["tables"]}
longcmd = " ".join(f"option{i}=value{i}" for i in range(30))

def folder(d, kernel, expedited, cmdline, shift):
    os.makedirs(d)
    h = {"hostname": "h", "kernel_release": kernel, "kernel": f"Linux {kernel} #1 SMP x86_64",
         "cmdline": cmdline, "cpu_model": "Same CPU", "virtualization": "none",
         "rcu_expedited": expedited, "hz": "250", "tlb_shootdowns_since_boot": kernel}
    json.dump({"format_version": 1, "tool": "mbbench sweep", "preset": "quick", "points": [],
               "info": {"host": h}}, open(os.path.join(d, "run.json"), "w"))
    with open(os.path.join(d, "calls.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols["calls"], restval="")
        w.writeheader()
        for mech, ns, s in (("membarrier-private-expedited", 1000.0, shift),
                            ("membarrier-private-expedited-sync-core-with-a-very-long-name-indeed", 2000.0, 1.0),
                            ("fence", 6.0, 1.0)):
            v = ns * s
            w.writerow(dict(mechanism=mech, threads=2, behaviour="spin", scope="same-process",
                            placement="compact", cpus="0;1", oversubscribed=0, repeats=10, calls_per_repeat=100,
                            ns_per_call=v, ns_per_call_stddev=v / 100, ns_per_call_ci95=v / 140,
                            calls_per_s=1e9 / v, calls_per_s_ci95=1e9 / v / 140, cv=0.01, status="ok"))

folder(os.path.join(tmp, "before"), "6.1.0-fixed", "0", "quiet mitigations=off " + longcmd, 1.0)
folder(long, "6.1.0-unfixed", "1", "quiet mitigations=auto " + longcmd, 1.2)
PY

"$MBBENCH" compare "$TMP/before" "$long" --format text >"$TMP/t" 2>"$TMP/e"
ok $? "compare --format text: exit 0"
awk 'length > 72 { print FILENAME ":" NR ": " length; bad = 1 } END { exit bad }' "$TMP/t"
ok $? "every line at most 72 columns (long names, command line, point)"
! grep -qE '^#|\||\*\*|`' "$TMP/t"
ok $? "no Markdown (headings, tables, bold, code)"
grep -q '^  kernel_release$' "$TMP/t" && grep -q 'before: *6.1.0-fixed' "$TMP/t" &&
	grep -q 'after: *6.1.0-unfixed' "$TMP/t" && grep -q '^  rcu_expedited$' "$TMP/t" &&
	grep -q 'before only: mitigations=off' "$TMP/t" && grep -q 'after only: *mitigations=auto' "$TMP/t"
ok $? "the host facts and settings that differ, a command line by its differing words"
! grep -qE '^  (hz|cpu_model|virtualization|tlb_shootdowns_since_boot)$' "$TMP/t"
ok $? "facts that are equal (and counters since boot) are left out"
# membarrier-private-expedited: 1000 -> 1200 ns, CIs 1/140 of each over 10
# repeats: +20.0%, and compare's Welch CI of the change, t(17.4) x
# sqrt(3.16^2 + 3.79^2) / 1000 = 1.0%, its ends +19.0 and +21.0:
# significantly worse.
grep -A1 '^  membarrier-private-expedited$' "$TMP/t" |
	grep -qE '^ +1k ±7\.143 +1\.2k ±8\.571 +\+20\.0% \[\+19\.0,\+21\.0\]  WORSE$'
ok $? "a point: before ±CI, after ±CI, change % with its interval's ends, verdict ($(grep -A1 "^  membarrier-private-expedited$" "$TMP/t" | tail -n 1))"
grep -A1 '^  fence$' "$TMP/t" | grep -qE ' \+0\.0% \[-[0-9.]+,\+[0-9.]+\]  same$' &&
	grep -q 'all: threads=2 behaviour=spin scope=same-process placement=compact' "$TMP/t"
ok $? "an unchanged point is the same; key values common to all points are said once"

# The committed reference folders: real host facts and every experiment.
ref=${top_srcdir:-.}/results/reference
if ls -d "$ref"/vm-quick-* "$ref"/vm-full-* >/dev/null 2>&1; then
	"$MBBENCH" compare "$ref"/vm-quick-* "$ref"/vm-full-* --format text >"$TMP/r" 2>"$TMP/e" &&
		awk 'length > 72 { bad = 1 } END { exit bad }' "$TMP/r" && grep -q '^rcu: writes_per_s' "$TMP/r"
	ok $? "the reference folders in text: every line at most 72 columns"
else
	skip "the reference folders in text: no results/reference here (a release tarball leaves it out)"
fi
"$MBBENCH" compare "$TMP/before" "$long" --format txt 2>"$TMP/e"
[ $? -eq 2 ] && grep -q 'human, csv, json or text' "$TMP/e"
ok $? "an unknown format names text among the valid ones"

done_testing
