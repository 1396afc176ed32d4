# SPDX-License-Identifier: MIT
"""report's section for an experiment table that nothing else in the report
renders: laid out from the result schema alone (results/schema.json: the
table's key, its measures with their units and CIs, its status and
reasons), so that a new experiment is in report.md without a line of
report written for it."""
import os

from mbformat import md_table, pm, unit_kind
from mbresults import COLUMNS, KEYS, TABLES, ok_rows


def unrendered(data, rendered, folder):
    """The tables of data (in the folder's order) that no section renders
    (rendered: the tables the report's own sections show) and whose figure,
    plots/TABLE.png, is not in the folder either (the Figures section shows
    that one)."""
    return [t for t in data if t in TABLES and t not in rendered
            and not os.path.isfile(os.path.join(folder, "plots", t + ".png"))]


def _heading(table, col):
    unit = COLUMNS[table][col]["unit"]
    return f"{col} ({unit})" if unit and unit != "ns" else col


def section_generic(table, rows):
    """One table of the rows measured (ok, degraded or failed; the skipped
    ones are under Skipped measurements): the key's columns, then each
    measure with its 95% CI where the table has one, then the status and
    its reason. A key column that holds one value over the rows (a setting
    of the run) is said above the table instead."""
    cols = COLUMNS[table]
    shown = [r for r in rows if r.get("status", "ok") != "skipped"]
    out = [f"## {table}", "", TABLES[table].get("rows") or f"The rows of `{table}.csv`."]
    if not shown:
        return out[:2] + [f"Every row of `{table}.csv` was skipped (see Skipped measurements).", ""]
    keys = [c for c in KEYS[table] if c in cols and any(r.get(c, "") != "" for r in shown)]
    fixed = [c for c in keys if len(shown) > 1 and len({r.get(c, "") for r in shown}) == 1]
    keys = [c for c in keys if c not in fixed]
    measures = [c for c, spec in cols.items() if spec["role"] == "measure"
                and any(r.get(c, "") != "" for r in shown)]
    status = [c for c, spec in cols.items() if spec["role"] == "status" and c != "status"]
    body = []
    for r in shown:
        line = [r.get(c, "") for c in keys]
        line += [pm(table, r, c, unit_kind(table, c)) if r.get(c, "") != "" else "-" for c in measures]
        why = "; ".join(r[c] for c in status if r.get(c))
        line.append(r.get("status", "ok") + (f": {why}" if why and r.get("status", "ok") != "ok" else ""))
        body.append(line)
    out[-1] += ((" Every row: " + ", ".join(f"{c} {shown[0].get(c)}" for c in fixed) + ".") if fixed else "") \
        + (" Each measure ± 95% CI (from the processes it ran in, else its repeats; n where they are too few "
           f"for one); {len(ok_rows(shown))} of {len(rows)} rows measured. This table has no section of its "
           f"own: it is laid out from the result schema, and every column is in `{table}.csv`.")
    return out + ["", md_table(keys + [_heading(table, c) for c in measures] + ["status"], body), ""]
