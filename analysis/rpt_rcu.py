"""The rcu section of the report: reads and writes per scheme, and the
read side explained by the model (rcu-model.csv): what one read executes,
priced with this host's unit costs, beside the rate measured."""
import math

from mbformat import fmt_ns, md_table, pm, sig
from mbresults import num, ok_rows
from rpt_quality import why


def _ns(v):
    return fmt_ns(v) if math.isfinite(v) else "-"


def _fences(r):
    parts = []
    for col, name in (("rmw_per_read", "locked add"), ("rmw_idle_per_read", "locked add, idle"),
                      ("mfence_per_read", "mfence"), ("mfence_idle_per_read", "mfence, idle")):
        n = num(r.get(col, ""))
        if n > 0:
            parts.append(f"{sig(n, 2) if n < 1 else int(n)} {name}")
    return " + ".join(parts) or "none"


def unit_costs(model):
    """One sentence: this host's prices, from the first priced row."""
    ok = ok_rows(model)
    if not ok:
        return ""
    r = ok[0]
    stolen = {}
    for x in ok:
        if x.get("interrupt") and x.get("interruption_ns"):
            stolen[x["interrupt"]] = num(x["interruption_ns"])
    return ("Priced on this host (`rcu-model.csv`): the reader loop alone "
            f"{_ns(num(r['loop_ns']))} a read; one locked add {_ns(num(r['rmw_ns']))} with a store pending, "
            f"{_ns(num(r['rmw_idle_ns']))} without; one mfence {_ns(num(r['mfence_ns']))}, "
            f"{_ns(num(r['mfence_idle_ns']))} without; one cache line from the writer's CPU "
            f"{_ns(num(r['line_paid_ns']))} as a running reader pays for it (a hand-over alone: "
            f"{_ns(num(r['line_ns']))})"
            + "".join(f"; one {m} interruption of a running reader {_ns(v)}" for m, v in stolen.items())
            + ".")


def agreement(r):
    """(agree, inside): the model's read rate and the measured one agree
    when their difference is within the 95% interval of the difference
    (both half-widths in quadrature); inside when the model's rate lies in
    the measured interval itself. None where a half-width is missing."""
    m, mci = num(r.get("model_read_ns", "")), num(r.get("model_read_ns_ci95", ""))
    rps, ci = num(r.get("reads_per_s", "")), num(r.get("reads_per_s_ci95", ""))
    if not (m > 0 and rps > 0) or math.isnan(ci) or math.isnan(mci):
        return None, None
    model = num(r["readers"]) * 1e9 / m
    d = abs(model - rps)
    return d <= math.hypot(ci, model * mci / m), d <= ci


def _agree(r):
    agree, inside = agreement(r)
    if agree is None:
        return "- (one process, one repeat: no interval)"
    if agree:
        return "yes" + ("" if inside else " (outside the measured interval alone)")
    return "no: " + _miss(r)


def _writers_share(r):
    """The share of the gap between the model and the measurement that
    the writer's lines could make (1: all of it)."""
    gap = abs(num(r["read_ns"]) - num(r["model_read_ns"]))
    per_line = num(r["writes_per_read"]) * num(r["line_paid_ns"])
    return per_line / gap if gap > 0 else math.inf


def _miss(r):
    gap = num(r["read_ns"]) - num(r["model_read_ns"])
    if _writers_share(r) >= 0.1:
        return f"the rate implies {sig(num(r['lines_implied']), 2)} lines a write"
    return (f"{_ns(abs(gap))} a read {'slower' if gap > 0 else 'faster'} than the reader alone and its writer's "
            f"{sig(num(r['writes_per_read']), 2)} writes a read explain")


def model_table(model, head="##"):
    ok = ok_rows(model)
    if not ok:
        skipped = [r for r in model if r.get("skip_reason")]
        return ([f"{head} rcu: what one read costs, and why", "",
                 f"The read-side model was not priced: {skipped[0]['skip_reason']}.", ""] if skipped else [])
    body = []
    for r in ok:
        intr = num(r["interrupts_per_write"])
        body.append((r["scheme"], _fences(r),
                     f"{_ns(num(r['model_solo_ns']))} / {_ns(num(r['solo_read_ns']))}",
                     sig(num(r["writes_per_read"]), 2),
                     f"{sig(num(r['lines_per_write']), 2)}"
                     + (f", {sig(intr, 2)} × {r['interrupt']}" if intr > 0 else ""),
                     f"{_ns(num(r['transfer_ns']))} + {_ns(num(r['interrupt_ns']))}",
                     f"{_ns(num(r['model_read_ns']))} / {_ns(num(r['read_ns']))}",
                     _agree(r)))
    lines = [f"{head} rcu: what one read costs, and why", "",
             unit_costs(model), "",
             "Alone: the fences the code executes per read, priced, plus the loop, against the reader "
             "measured with no writer. Running: the reader alone plus, per write it sees, the cache lines "
             "a grace period takes from it and the interruptions the writer's barrier makes, against the "
             "run's read rate (ns per read of one reader). They agree when the difference is within "
             "the 95% interval of the difference.", "",
             md_table(("scheme", "fences a read", "alone: model / measured", "writes a read",
                       "lines, interruptions a write", "lines + interruptions", "running: model / measured",
                       "agree"), body), ""]
    lines += _mb_pair(ok)
    miss = [r for r in ok if agreement(r)[0] is False]
    more = [r["scheme"] for r in miss if _writers_share(r) >= 0.1 and num(r["read_ns"]) > num(r["model_read_ns"])]
    fewer = [r["scheme"] for r in miss if _writers_share(r) >= 0.1 and num(r["read_ns"]) <= num(r["model_read_ns"])]
    other_miss = [r["scheme"] for r in miss if _writers_share(r) < 0.1]
    if more:
        lines += ["Where the rate implies more lines than the code moves (" + ", ".join(more) + "): the model "
                  "prices only the lines the code must move; a writer that polls a reader's counter in a loop "
                  "takes its line once more for each of the reader's stores between polls, a number set by "
                  "timing, not by the code.", ""]
    if fewer:
        lines += ["Where the rate implies fewer lines than the code moves (" + ", ".join(fewer) + "): a line is "
                  "priced as the publish probe's reader pays for it, two misses one behind the other (the "
                  "pointer, then the object it points to); misses the reader need not wait for in turn (the "
                  "grace-period word beside the pointer) overlap and cost less each.", ""]
    if other_miss:
        lines += ["Where the writer is too rare to matter (" + ", ".join(other_miss) + "), a disagreement is "
                  "between the reader alone and the reader in the run, measured apart: the same loop ran at "
                  "another speed (its CPU's other work, the host), not a cost the model leaves out.", ""]
    return lines


def _mb_pair(ok):
    """Our mb against liburcu's, explained by the model's terms."""
    a = next((r for r in ok if r["scheme"] == "mb"), None)
    b = next((r for r in ok if r["scheme"] == "liburcu-mb"), None)
    if not a or not b or num(a["read_ns"]) <= 0:
        return []
    return [f"Two implementations of one scheme: liburcu-mb's read takes {sig(num(b['read_ns']) / num(a['read_ns']), 2)}× "
            f"ours ({_ns(num(b['read_ns']))} against {_ns(num(a['read_ns']))}). Alone, {sig(num(b['solo_read_ns']) / num(a['solo_read_ns']), 2)}× "
            f"({_ns(num(b['solo_read_ns']))} against {_ns(num(a['solo_read_ns']))}): its fences are "
            f"{_fences(b)} against our {_fences(a)}, priced {_ns(num(b['fence_ns']))} against {_ns(num(a['fence_ns']))}. "
            f"Running, its slower reader sees more writes a read ({sig(num(b['writes_per_read']), 2)} against "
            f"{sig(num(a['writes_per_read']), 2)}) and its grace period moves more lines "
            f"({sig(num(b['lines_per_write']), 2)} against {sig(num(a['lines_per_write']), 2)}: two waits for readers "
            f"and a gp word it loads in read_lock and read_unlock), so the writer's lines take "
            f"{_ns(num(b['transfer_ns']))} a read from it against {_ns(num(a['transfer_ns']))} from ours.", ""]


def read_ratio_why(model):
    """The fidelity table's reason for the membarrier-over-mb read ratio."""
    ok = {r["scheme"]: r for r in ok_rows(model)}
    a, p = ok.get("mb"), ok.get("membarrier-private-expedited")
    if not a or not p:
        return None
    return (f"mb's read here: {_ns(num(a['solo_read_ns']))} alone ({_ns(num(a['fence_ns']))} of fences) and "
            f"{_ns(num(a['read_ns']) - num(a['solo_read_ns']))} more from a writer at "
            f"{sig(num(a['writes_per_read']), 2)} writes a read; membarrier's: {_ns(num(p['solo_read_ns']))} "
            f"and {_ns(num(p['interrupt_ns']))} of interruptions. The ratio is the fences' price and the writer's "
            "rate on this host (§rcu), and the seed's 6 readers shared the writer's lines")


def section_rcu(rows, model=()):
    good = [r for r in rows if r.get("status") in ("ok", "failed")]
    if not good:
        return []
    r0 = good[0]
    body = [(r["scheme"], r["family"], pm("rcu", r, "reads_per_s", "num"), pm("rcu", r, "writes_per_s", "num"),
             r["violations"], why("rcu", r)) for r in good]
    return ["## rcu: reads and writes per scheme", "",
            f"{r0['readers']} readers, {r0['writers']} writers, {num(r0['duration_s']):.3g} s a repeat; "
            "rates ± 95% CI (per-repeat counts are in `rcu.csv`; the seed's figures, of another "
            "configuration, under Fidelity in the appendix). Violations are reads that saw a retired (poisoned) "
            "object: any is a failure.", "",
            md_table(("scheme", "family", "reads/s", "writes/s", "violations", "flagged"), body), ""] \
        + (["What one read costs, and why each scheme reads as fast as it does (the read-side model, "
            "`rcu-model.csv`), is in the appendix.", ""] if model else [])
