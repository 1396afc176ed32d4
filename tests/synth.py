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
            self.cols = {t["name"]: [c["name"] for c in t["columns"]] for t in json.load(f)["tables"]}

    def write(self, where, name, rows, replicates=False):
        """rows into WHERE/NAME.csv (WHERE a folder) or WHERE (a .csv path);
        a row without a status is ok where the table has one."""
        path = where if where.endswith(".csv") else os.path.join(where, name + ".csv")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fields = self.cols[name] + (["replicates"] if replicates else [])
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, restval="")
            w.writeheader()
            for r in rows:
                w.writerow(dict({"status": "ok"} if "status" in fields else {}, **r))
