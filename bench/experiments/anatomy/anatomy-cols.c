// SPDX-License-Identifier: MIT
/*
 * anatomy's two tables: a row per (mechanism, threads) with its counts and
 * honesty checks, and a row per phase and target (exp-anatomy.c fills them).
 */
#include "config.h"

#include "anatomy.h"
#include "experiment.h"

static const struct col ana_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name (see `mbbench list`)"),
	COL_KEY("threads", COL_INT, "", COL_REQ | COL_POS, "T: the caller plus T-1 spinning threads"),
	COL_INFO("cpus", COL_STR, "", 0, "OS CPU of each thread, caller first, `;`-separated"),
	COL_INFO("phases_from", COL_STR, "", 0,
		 "`csd` (csd:* and ipi:*: every phase) or `ipi` (ipi:* only: entry -> IPI sent -> exit)"),
	COL_COUNT("barriers", COL_INT, 0, "syscall windows of the caller traced (a barrier of two calls is two windows)"),
	COL_COUNT("complete", COL_INT, 0, "windows with every event of every phase"),
	COL_COUNT("no_call", COL_INT, 0, "windows that queued no cross-CPU call (the kernel sent nothing)"),
	COL_COUNT("missing_handler", COL_INT, 0, "windows with a queued call whose handler entry was not seen"),
	COL_COUNT("missing_handler_exit", COL_INT, 0, "windows with a handler entry whose exit was not seen"),
	COL_COUNT("unclosed", COL_INT, 0, "syscall entries without their exit, or exits without their entry"),
	COL_COUNT("lost_records", COL_INT, 0, "records the kernel dropped from the ring buffers (PERF_RECORD_LOST)"),
	COL_COUNT("foreign_events", COL_INT, 0, "events of other tasks or callbacks, ignored"),
	COL_COUNT("clock_inversions", COL_INT, 0, "handler entries stamped before their queue (within the clock tolerance)"),
	COL_MEASURE("untraced_ns", COL_NUM, "ns", LOWER, MEAN, COL_REQ,
		    "mean over batches of ns per barrier without tracing, in the same run"),
	COL_CI95("untraced_ns_ci95", "untraced_ns", "ns", 0, "its 95% CI half-width (Student t over batches)"),
	COL_MEASURE("traced_ns", COL_NUM, "ns", LOWER, MEAN, 0, "mean over batches of ns per barrier while tracing"),
	COL_CI95("traced_ns_ci95", "traced_ns", "ns", 0, "its 95% CI half-width"),
	COL_MEASURE("tracing_overhead_ns", COL_NUM, "ns", LOWER, NONE, COL_SIGNED,
		    "`traced_ns` - `untraced_ns`: what tracing adds to a barrier"),
	COL_MEASURE("untraced_p50_ns", COL_NUM, "ns", LOWER, NONE, 0,
		    "median of the untraced barriers, each timed alone (robust to a preempted batch)"),
	COL_MEASURE("traced_p50_ns", COL_NUM, "ns", LOWER, NONE, 0, "median of the traced barriers, each timed alone"),
	COL_INFO("untraced_sent_share", COL_NUM, "", 0,
		 "f: function-call IPIs the targets received during the untraced batches (CAL of /proc/interrupts, the busiest target) per barrier, at most 1"),
	COL_INFO("traced_sent_share", COL_NUM, "", 0, "f of the traced batches: windows that queued a call per barrier"),
	COL_MEASURE("untraced_sent_p50_ns", COL_NUM, "ns", LOWER, NONE, 0,
		    "the untraced barriers' percentile 100(1 - f/2): the median of those that sent, taking them as the slowest (a barrier that sends nothing costs a fraction of one that does)"),
	COL_MEASURE("traced_sent_p50_ns", COL_NUM, "ns", LOWER, NONE, 0, "the same of the traced barriers, with their f"),
	COL_MEASURE("tracing_overhead_sent_ns", COL_NUM, "ns", LOWER, NONE, COL_SIGNED,
		    "`traced_sent_p50_ns` - `untraced_sent_p50_ns`: what tracing adds to a barrier that sends"),
	COL_MEASURE("total_p50_ns", COL_NUM, "ns", LOWER, NONE, 0, "median syscall entry -> exit of the complete windows"),
	COL_MEASURE("phase_sum_p50_ns", COL_NUM, "ns", LOWER, NONE, 0,
		    "sum of the medians of setup, delivery, handler and wait (all targets pooled)"),
	COL_MEASURE("phase_sum_over_total", COL_NUM, "", NONE, NONE, 0,
		    "`phase_sum_p50_ns` / `total_p50_ns`: near 1 when the phases account for the total"),
	COL_MEASURE("delivery_p50_ns", COL_NUM, "ns", LOWER, NONE, 0,
		    "median queue -> handler entry over every target: the IPI delivery floor"),
	COL_MEASURE("untraced_over_delivery", COL_NUM, "", NONE, NONE, 0,
		    "`untraced_sent_p50_ns` / `delivery_p50_ns`: the untraced cost of a barrier that sends, in multiples of the floor"),
	COL_MEASURE("software_share", COL_NUM, "", NONE, NONE, 0,
		    "1 - `delivery_p50_ns` / `total_p50_ns`: the traced barrier's share outside delivery"),
	WORK_COLS,
	COL_STATUS("status", COL_REQ, WORK_STATUS_DOC),
	COL_STATUS("skip_reason", 0, "why a skipped or degraded row has no figures"),
	KERNEL_FINDING_COL,
	TOPOLOGY_COLS,
};

static const struct col phase_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "the point's mechanism"),
	COL_KEY("threads", COL_INT, "", COL_REQ | COL_POS, "the point's T"),
	COL_KEY_IN("phase", "setup|send|delivery|handler|wait|total|to-ipi|after-ipi|setup-contended|send-contended|delivery-contended|handler-contended|wait-contended|total-contended|to-ipi-contended|after-ipi-contended", COL_REQ,
		"`setup` (entry -> first queue), `send` (first queue -> first IPI sent), `delivery` (queue -> handler entry), `handler`, `wait` (last handler exit -> exit), `total`; without csd:* `to-ipi` and `after-ipi`; with `--contenders N`, `setup-contended` (`to-ipi-contended`): that phase while N - 1 other processes issue the same command"),
	COL_KEY_IN("target_cpu", "all|other|N", COL_REQ,
		"`all` (every target pooled, or a phase of the whole barrier), a target's OS CPU, or `other` (a CPU outside the team)"),
	COL_COUNT("samples", COL_INT, COL_REQ, "complete windows contributing"),
	COL_MEASURE("p50_ns", COL_NUM, "ns", LOWER, PCT, COL_REQ, "median, from a log-bucketed histogram (error <= 0.4%)"),
	COL_MEASURE("p90_ns", COL_NUM, "ns", LOWER, NONE, COL_REQ, "90th percentile"),
	COL_MEASURE("p99_ns", COL_NUM, "ns", LOWER, PCT, COL_REQ, "99th percentile"),
	COL_MEASURE("mean_ns", COL_NUM, "ns", LOWER, NONE, 0, "mean"),
	COL_COUNT("batches", COL_INT, 0, "batches the samples came from (`--repeat`)"),
	COL_CI95("p50_ns_ci95", "p50_ns", "ns", 0,
		 "95% CI half-width of `p50_ns` by the batch method: the spread of the batches' own percentiles (Student t); empty below two batches"),
	COL_CI95("p90_ns_ci95", "p90_ns", "ns", 0, "as `p50_ns_ci95`"),
	COL_CI95("p99_ns_ci95", "p99_ns", "ns", 0, "as `p50_ns_ci95`"),
};

const struct table_schema anatomy_table = {
	.name = "anatomy", .experiment = "anatomy", .analysed = 1,
	.rows = "One row per (mechanism, threads): the traced barriers' counts, missing events and honesty checks.",
	.notes = "Derived: `clock_offset_ns` and `clock_rtt_ns` (the cross-CPU clock check by ping-pong, per target CPU).",
	.cols = ana_cols, .ncols = NCOLS(ana_cols),
};

const struct table_schema anatomy_phases_table = {
	.name = "anatomy-phases", .experiment = "anatomy", .analysed = 1,
	.rows = "One row per (mechanism, threads, phase, target CPU) with samples.",
	.cols = phase_cols, .ncols = NCOLS(phase_cols),
};
