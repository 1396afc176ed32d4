# SPDX-License-Identifier: MIT
"""A point measured in several processes (a sweep's replicates) merged into
one row per key: each measure's mean with its CI from the processes'
spread, a proportion's Wilson interval, a latency row's percentiles from
the processes' pooled histograms (merge_replicates), and a table's CSV
text merged so (merged_csv)."""
import csv
import io
import math

from mbresults import (COLUMNS, KEYS, PROPORTIONS, TABLES, bounds, ci_column, ends_columns, figures, num,
                       pct_level, pct_percent, per_process_columns)
from mbstats import hist_percentile, mean_interval, mean_sd, percentile_interval, wilson


def _fmt_merged(v, integer=False):
    if math.isnan(v):
        return ""
    return str(int(round(v))) if integer else f"{v:.7g}"


def _serialization_merged(rows):
    """contend's serialization_factor of merged rows: a ratio of the merged
    aggregate means (C over C=1 of the same mechanism and mode), never a
    mean of the replicates' ratios, with its CI from the merged aggregates'
    half-widths (between replicates). Rows whose replicates gave no factor
    (threads mode, skipped with a reason) keep theirs."""
    ones = {(r.get("mechanism"), r.get("mode")): r for r in rows
            if r.get("callers") == "1" and r.get("status", "ok") == "ok"}
    for r in rows:
        one = ones.get((r.get("mechanism"), r.get("mode")))
        if r.get("serialization_factor", "") == "" or one is None or r.get("status", "ok") != "ok":
            continue
        a, a1 = num(r.get("aggregate_calls_per_s")), num(one.get("aggregate_calls_per_s"))
        if not (a > 0 and a1 > 0):
            continue
        f = 1.0 if r is one else a / a1
        r["serialization_factor"] = _fmt_merged(f)
        h, h1 = num(r.get("aggregate_calls_per_s_ci95")), num(one.get("aggregate_calls_per_s_ci95"))
        if "serialization_factor_ci95" in r:
            r["serialization_factor_ci95"] = ("" if r is one or math.isnan(h) or math.isnan(h1) else
                                              _fmt_merged(f * math.sqrt((h / a) ** 2 + (h1 / a1) ** 2)))


# A proportion: a measure that counts events over trials, the columns of
# its events and trials, and its scale (litmus: per million trials). The
# schema says so only in words ("`r1_0_r2_0` per million trials"). Its


def _pooled_histogram(point, hists):
    """The buckets [(lo, hi, count)] of one point's histograms added up over
    its processes (hists: each process's histogram rows), or None where a
    process has none for it."""
    pooled = {}
    for rows in hists:
        mine = [h for h in rows if all(h.get(c, "") == v for c, v in point.items())]
        if not mine:
            return None
        for h in mine:
            lo, hi, n = int(h["bucket_lo_ns"]), int(h["bucket_hi_ns"]), int(h["count"] or 0)
            b = pooled.setdefault(lo, [lo, hi, 0])
            b[2] += n
    return sorted(tuple(b) for b in pooled.values() if b[2] > 0) or None


def _merge_percentiles(table, row, ok, hists):
    """A latency row's percentiles from the histogram of all its processes
    (their bucket counts added up), never a mean of the processes' own:
    each the nearest rank at the bucket's midpoint, within the exact min
    and max (the least of the processes' mins, the greatest of their
    maxes); the mean weighted by samples. Its 95% interval holds both the
    order statistics of the pooled samples (binomial, on the bucket CDF)
    and the processes' own spread (the pooled figure -/+ Student's t over
    their percentiles), never below 0: COL_ci95_lo and _hi, and the
    half-width the farther end."""
    hcols = COLUMNS.get(f"{table}-histogram", {})
    point = {c: row.get(c, "") for c in KEYS.get(f"{table}-histogram", ()) if not c.startswith("bucket")}
    buckets = _pooled_histogram(point, hists)
    if not buckets or "count" not in hcols:
        return
    mins = [num(r.get("min_ns")) for r in ok]
    maxs = [num(r.get("max_ns")) for r in ok]
    least = min((v for v in mins if not math.isnan(v)), default=buckets[0][0])
    most = max((v for v in maxs if not math.isnan(v)), default=buckets[-1][1])
    if "min_ns" in row:
        row["min_ns"] = _fmt_merged(least)
    if "max_ns" in row:
        row["max_ns"] = _fmt_merged(most)
    means, samples = [num(r.get("mean_ns")) for r in ok], [num(r.get("samples")) for r in ok]
    if "mean_ns" in row and not any(math.isnan(v) for v in means + samples) and sum(samples) > 0:
        row["mean_ns"] = _fmt_merged(sum(m * s for m, s in zip(means, samples)) / sum(samples))
    for col in COLUMNS[table]:
        if col not in row or COLUMNS[table][col]["role"] != "measure" or pct_level(col) is None:
            continue
        p = pct_percent(col)
        est = hist_percentile(buckets, p, least, most)
        lo, hi = percentile_interval(buckets, p, least, most)
        floor = bounds(table, col)[0]
        _, h, _, _, _ = mean_interval([num(r.get(col)) for r in ok])
        if not math.isnan(h):
            lo, hi = min(lo, est - h), max(hi, est + h)
        if floor is not None:
            lo = max(lo, floor)
        row[col] = _fmt_merged(est)
        ci = ci_column(table, col)
        if ci and ci in row:
            row[ci] = _fmt_merged(max(est - lo, hi - est))
        lo_col, hi_col = ends_columns(table, col)
        row[lo_col], row[hi_col] = _fmt_merged(lo), _fmt_merged(hi)


def _merge_proportion(table, row, col):
    """A proportion's merged figure: its events over its trials, all
    processes' added up, with Wilson's interval; False where the row does
    not hold both counts."""
    k_col, n_col, scale = PROPORTIONS[(table, col)]
    k, n = num(row.get(k_col)), num(row.get(n_col))
    if math.isnan(k) or math.isnan(n) or n < 1 or not 0 <= k <= n:
        return False
    lo, hi = wilson(k, n)
    row[col] = _fmt_merged(k / n * scale)
    lo_col, hi_col = ends_columns(table, col)
    row[lo_col], row[hi_col] = _fmt_merged(lo * scale), _fmt_merged(hi * scale)
    return True


def merge_replicates(table, reps, hists=None):
    """One table's rows of one point measured in several processes: reps is
    a list of row lists, one per replicate (hists, where the table has a
    histogram table, the same replicates' histogram rows). Rows are matched
    by the table's key. A measure is the mean of the replicates'; its CI
    half-width comes from their spread (Student t over the replicates), and
    the replicates' own, within-process, half-widths are averaged into
    COLUMN_within; each measure with a CI keeps its processes' values in
    COLUMN_per_process (';'-joined, in replicate order). Where mean - t
    half-width would run below what the column holds (a cost's 0), the
    interval is the bootstrap's of the mean over the processes, in
    COLUMN_ci95_lo and COLUMN_ci95_hi (or the table's own interval
    columns); a proportion with its counts (litmus) is its events over its
    trials with Wilson's interval; a latency row with histograms takes its
    percentiles from their sum (_merge_percentiles). The standard deviation
    and cv are the processes'. Counts add up; text keeps the first
    replicate's (ns_per_repeat joins them all). A row with status failed in
    any replicate is kept as that replicate's (a finding stays a finding);
    skipped replicates are left out. `replicates` says how many processes a
    row's figures come from."""
    cols = COLUMNS.get(table, {})
    keys = KEYS.get(table, ())
    groups, order = {}, []
    for i, rows in enumerate(reps):
        for r in rows:
            k = tuple(r.get(c, "") for c in keys)
            if k not in groups:
                groups[k] = []
                order.append(k)
            groups[k].append((i, r))
    measured = per_process_columns(table)
    out = []
    for k in order:
        rs = [r for _, r in groups[k]]
        failed = [r for r in rs if r.get("status") == "failed"]
        ok = [r for r in rs if r.get("status", "ok") == "ok"]
        # A process whose repeats never measured the point (a degraded
        # row) gives no figure, but its degraded repeats are counted.
        degraded = [r for r in rs if r.get("status") == "degraded"]
        if failed or not ok:
            row = dict(failed[0] if failed else (degraded or rs)[0])
            row["replicates"] = str(len(failed) if failed else len(rs))
            if not failed and degraded:
                row["repeats_degraded"] = str(sum(int(num(r.get("repeats_degraded")) or 0) for r in degraded
                                                  if not math.isnan(num(r.get("repeats_degraded")))))
            out.append(row)
            continue
        row = dict(ok[0])
        n = len(ok)
        row["replicates"] = str(n)
        for c, spec in cols.items():
            if c not in row:
                continue
            role = spec["role"]
            vals = [num(r.get(c)) for r in ok]
            good = [v for v in vals if not math.isnan(v)]
            if role == "measure":
                row[c] = _fmt_merged(sum(good) / len(good)) if good else ""
            elif role == "count":
                row[c] = _fmt_merged(sum(good), spec["type"] == "integer") if good else ""
            elif role == "ci" and n >= 2 and spec["ci"] == "half-width":
                _, h, _, _, _ = mean_interval([num(r.get(spec["of"])) for r in ok])
                if not math.isnan(h):
                    row[c] = _fmt_merged(h)
                    row[c + "_within"] = _fmt_merged(sum(good) / len(good)) if good else ""
            elif c == "ns_per_repeat":
                row[c] = ";".join(r[c] for r in ok if r.get(c))
        if not row.get("degraded_reason") and "degraded_reason" in row:
            row["degraded_reason"] = next((r["degraded_reason"] for r in rs if r.get("degraded_reason")), "")
        if degraded and "repeats_degraded" in row:
            extra = sum(int(v) for v in (num(r.get("repeats_degraded")) for r in degraded) if not math.isnan(v))
            row["repeats_degraded"] = str(int(num(row["repeats_degraded"]) if row["repeats_degraded"] else 0) + extra)
            row["processes_degraded"] = str(len(degraded))
            if not row.get("degraded_reason"):
                row["degraded_reason"] = degraded[0].get("degraded_reason", "")
        for c in measured:
            if c not in row:
                continue
            row[c + "_per_process"] = ";".join(r.get(c, "") for r in ok)
            if n < 2 or c in ("calls_per_s", "serialization_factor"):	# derived below
                continue
            least = bounds(table, c)[0]
            _, h, lo, hi, how = mean_interval([num(r.get(c)) for r in ok], least)
            lo_col, hi_col = ends_columns(table, c)
            if lo_col in cols and how:	# the table's own interval columns: the merged one
                row[lo_col], row[hi_col] = _fmt_merged(lo), _fmt_merged(hi)
            elif how == "bootstrap":
                row[lo_col], row[hi_col] = _fmt_merged(lo), _fmt_merged(hi)
            if (table, c) in PROPORTIONS:
                _merge_proportion(table, row, c)
        if n >= 2:
            # The spread is the processes': their standard deviation, and
            # the cv of the table's first measure compare tests as a mean.
            for c in cols:
                if c.endswith("_stddev") and c in row and c[:-len("_stddev")] in cols:
                    sd = mean_sd([v for v in (num(r.get(c[:-len("_stddev")])) for r in ok) if not math.isnan(v)])[1]
                    row[c] = _fmt_merged(sd)
            fig = next((c for c, test, _ in figures(table) if test == "mean" and c in row), None) \
                if table in TABLES else None
            if "cv" in row and fig:
                m, sd = mean_sd([v for v in (num(r.get(fig)) for r in ok) if not math.isnan(v)])
                row["cv"] = _fmt_merged(sd / m) if m > 0 and not math.isnan(sd) else row["cv"]
        if hists is not None and n >= 1:
            mine = [hists[i] for i, r in groups[k] if r.get("status", "ok") == "ok" and i < len(hists)]
            if len(mine) == n:
                _merge_percentiles(table, row, ok, mine)
        # calls_per_s is 1e9 / ns_per_call (the schema says so), the mean
        # cost as a rate, never a mean of rates; so are its interval's ends.
        ns = num(row.get("ns_per_call"))
        if "calls_per_s" in row and ns > 0:
            row["calls_per_s"] = _fmt_merged(1e9 / ns)
            h = num(row.get("ns_per_call_ci95"))
            row["calls_per_s_ci95"] = _fmt_merged(1e9 / ns * h / ns) if not math.isnan(h) else ""
            hw = num(row.get("ns_per_call_ci95_within"))
            if "calls_per_s_ci95_within" in row:
                row["calls_per_s_ci95_within"] = _fmt_merged(1e9 / ns * hw / ns) if not math.isnan(hw) else ""
            lo, hi = num(row.get("ns_per_call_ci95_lo")), num(row.get("ns_per_call_ci95_hi"))
            if lo > 0 and hi > 0:
                row["calls_per_s_ci95_lo"], row["calls_per_s_ci95_hi"] = _fmt_merged(1e9 / hi), _fmt_merged(1e9 / lo)
        out.append(row)
    if table == "contend":
        _serialization_merged(out)
    if "cumulative_fraction" in cols:
        # A histogram: the merged counts give the fractions again, per point.
        point = [c for c in keys if c in cols and cols[c]["role"] == "key" and not c.startswith("bucket")]
        total = {}
        for r in out:
            total[tuple(r.get(c) for c in point)] = total.get(tuple(r.get(c) for c in point), 0) + int(r["count"] or 0)
        seen = {}
        for r in sorted(out, key=lambda r: (tuple(r.get(c) for c in point), int(r.get("bucket_lo_ns") or 0))):
            p = tuple(r.get(c) for c in point)
            seen[p] = seen.get(p, 0) + int(r["count"] or 0)
            r["cumulative_fraction"] = _fmt_merged(seen[p] / total[p]) if total[p] else ""
        # Each point's buckets in order (a bucket only a later replicate
        # filled would otherwise come after the others).
        first = {}
        for r in out:
            first.setdefault(tuple(r.get(c) for c in point), len(first))
        out.sort(key=lambda r: (first[tuple(r.get(c) for c in point)], int(r.get("bucket_lo_ns") or 0)))
    return out


def merged_columns(table, fields):
    """The columns a merged CSV adds to a table's fields: replicates, each
    CI half-width's _within, each measure's _per_process, and the ends of
    an interval the merge may make asymmetric (_ci95_lo, _ci95_hi)."""
    cols = COLUMNS.get(table, {})
    extra = ["replicates"] + (["processes_degraded"] if "repeats_degraded" in fields else []) \
        + [c + "_within" for c in fields if cols.get(c, {}).get("ci") == "half-width"]
    for c in per_process_columns(table):
        if c in fields:
            extra.append(c + "_per_process")
            lo, hi = ends_columns(table, c)
            if lo not in cols:
                extra += [lo, hi]
    return [c for c in extra if c not in fields]


def merged_csv(table, head, groups, hist_groups=None):
    """The CSV text of a table whose points ran in several processes:
    groups is [(point, {replicate: [lines]})] in the plan's order;
    hist_groups, where the table has a histogram table, that table's
    (head, {point: {replicate: [lines]}})."""
    fields = next(csv.reader([head]))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields + merged_columns(table, fields), restval="",
                       lineterminator="\n")
    w.writeheader()
    for point, reps in groups:
        order = sorted(reps)
        rows = [list(csv.DictReader(io.StringIO(head + "".join(reps[i])))) for i in order]
        hists = None
        if hist_groups is not None:
            hhead, hreps = hist_groups[0], hist_groups[1].get(point, {})
            if all(i in hreps for i in order):
                hists = [list(csv.DictReader(io.StringIO(hhead + "".join(hreps[i])))) for i in order]
        w.writerows(merge_replicates(table, rows, hists))
    return buf.getvalue()
