# SPDX-License-Identifier: MIT
"""Synthetic results folders for the analysis tests, written from the
result schema (results/schema.json), so that a new column moves nothing:

    sys.path.insert(0, os.path.join(src, "tests")); from synth import Tables
    t = Tables(src)
    t.write(path_or_folder, "rcu", rows, replicates=True)
"""
import csv
import json
import os


class Tables:
    def __init__(self, src):
        with open(os.path.join(src, "results", "schema.json")) as f:
            tables = json.load(f)["tables"]
        self.cols = {t["name"]: [c["name"] for c in t["columns"]] for t in tables}
        # a replicated row's per-process cells: each measure with a CI
        self.per = {t["name"]: [c["name"] + "_per_process" for c in t["columns"] if c["role"] == "measure"
                                and any(x["role"] == "ci" and x["of"] == c["name"] for x in t["columns"])]
                    for t in tables}

    def write(self, where, name, rows, replicates=False):
        """rows into WHERE/NAME.csv (WHERE a folder) or WHERE (a .csv path);
        a row without a status is ok where the table has one; replicates:
        the merge's replicates and COL_per_process columns too."""
        path = where if where.endswith(".csv") else os.path.join(where, name + ".csv")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fields = self.cols[name] + (["replicates"] + self.per[name] if replicates else [])
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, restval="")
            w.writeheader()
            for r in rows:
                w.writerow(dict({"status": "ok"} if "status" in fields else {}, **r))


def run_json(folder, host=None, **extra):
    """A finished sweep's run.json in folder (made if missing): the host's
    facts (hostname h, kernel 6.1.0, KVM unless host says otherwise) and
    any top-level keys of extra (ab, boot_id)."""
    os.makedirs(folder, exist_ok=True)
    facts = {"hostname": "h", "kernel_release": "6.1.0", "cmdline": "quiet", "virtualization": "kvm"}
    facts.update(host or {})
    run = {"format_version": 1, "tool": "mbbench sweep", "preset": "ab", "interrupted": False,
           "points_planned": 1, "points_done": 1, "points_failed": [], "info": {"host": facts},
           "points": [{"version": "0.1.0", "end": "2026-12-07T00:00:00Z"}]}
    run.update(extra)
    with open(os.path.join(folder, "run.json"), "w") as f:
        json.dump(run, f)


def processes(values, digits=2):
    """A replicated row's figure from its processes' values: (mean, 95% CI
    half-width, the per-process cell), the CI Student's t (scipy)."""
    from scipy import stats
    n = len(values)
    m = sum(values) / n
    sd = (sum((v - m) ** 2 for v in values) / (n - 1)) ** 0.5 if n > 1 else 0.0
    ci = float(stats.t.ppf(0.975, n - 1)) * sd / n ** 0.5 if n > 1 else 0.0
    return f"{m:.{digits}f}", f"{ci:.{digits}f}", ";".join(f"{v:.{digits}f}" for v in values)
