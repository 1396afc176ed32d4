// SPDX-License-Identifier: MIT
/*
 * anatomy's phase matcher on synthetic event streams (clean, reordered,
 * missing events, foreign events, two targets, clock tolerance, ipi:*
 * alone) and on a real capture (tests/unit/anatomy-capture.txt); the text form
 * of an event; and the tracefs format-file parser.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "anatomy.h"
#include "tap.h"

#define CALLER 100
#define SPIN 200
#define F_MB 0xffffffff81000010ull
#define F_OTHER 0xffffffff81000020ull
#define CSD_A 0xffff888000001000ull
#define CSD_B 0xffff888000002000ull

static struct ana_event evs[256];
static size_t nev;

static void ev(uint64_t t, int cpu, int tid, enum ana_kind k, int target, uint64_t csd, uint64_t func)
{
	evs[nev++] = (struct ana_event){ .t = t, .cpu = cpu, .tid = tid, .kind = k,
					 .target = target, .csd = csd, .func = func };
}

/* One barrier at base: setup 100, send 50, delivery 400, handler 100, wait 200. */
static void barrier(uint64_t base, int drop)
{
	ev(base, 0, CALLER, ANA_ENTER, -1, 0, 0);
	ev(base + 100, 0, CALLER, ANA_QUEUE, 1, CSD_A, F_MB);
	ev(base + 150, 0, CALLER, ANA_IPI, 1, 0, 0);
	if (drop != 1)
		ev(base + 500, 1, SPIN, ANA_HENTRY, -1, CSD_A, F_MB);
	if (drop != 2)
		ev(base + 600, 1, SPIN, ANA_HEXIT, -1, CSD_A, F_MB);
	if (drop != 3)
		ev(base + 800, 0, CALLER, ANA_EXIT, -1, 0, 0);
}

static const uint64_t funcs[] = { F_MB };

static int phase(const struct ana_barrier *b, enum ana_phase p, int k)
{
	double v;

	return ana_phase_value(b, p, k, &v) ? -1 : (int)v;
}

static int phases_are(const struct ana_barrier *b, int setup, int send, int deliv, int handler,
		      int wait, int total)
{
	return phase(b, PH_SETUP, 0) == setup && phase(b, PH_SEND, 0) == send &&
	       phase(b, PH_DELIVERY, 0) == deliv && phase(b, PH_HANDLER, 0) == handler &&
	       phase(b, PH_WAIT, 0) == wait && phase(b, PH_TOTAL, 0) == total;
}

static void shuffle(struct ana_event *e, size_t n, unsigned seed)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j;
		struct ana_event t;

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % (i + 1);
		t = e[i];
		e[i] = e[j];
		e[j] = t;
	}
}

static void synthetic(void)
{
	struct ana_cfg cfg = { .caller = CALLER, .funcs = funcs, .nfuncs = 1 };
	struct ana_result r, r2;
	int same = 1;

	/* Clean: three barriers. */
	nev = 0;
	for (int i = 0; i < 3; i++)
		barrier(10000 * (uint64_t)(i + 1), 0);
	ana_match(evs, nev, &cfg, &r);
	ok(r.n == 3 && r.status[ANA_COMPLETE] == 3 && r.foreign == 0,
	   "clean stream: 3 windows, 3 complete, nothing foreign (got %zu, %zu, %zu)",
	   r.n, r.status[ANA_COMPLETE], r.foreign);
	ok(phases_are(&r.b[1], 100, 50, 400, 100, 200, 800),
	   "phases: setup 100, send 50, delivery 400, handler 100, wait 200, total 800");
	ok(phase(&r.b[0], PH_SETUP, 0) + phase(&r.b[0], PH_DELIVERY, 0) + phase(&r.b[0], PH_HANDLER, 0) +
	   phase(&r.b[0], PH_WAIT, 0) == phase(&r.b[0], PH_TOTAL, 0),
	   "one target: setup + delivery + handler + wait = total");
	/* Reordered: the same events in a shuffled order. */
	shuffle(evs, nev, 7);
	ana_match(evs, nev, &cfg, &r2);
	for (size_t i = 0; i < 3 && r2.n == 3; i++)
		same &= r2.b[i].status == ANA_COMPLETE &&
			phases_are(&r2.b[i], 100, 50, 400, 100, 200, 800);
	ok(r2.n == 3 && same, "reordered stream: the same barriers and phases");
	ana_result_free(&r);
	ana_result_free(&r2);

	/* Missing: a handler entry, a handler exit, a syscall exit, an entry. */
	nev = 0;
	barrier(10000, 1);
	barrier(20000, 2);
	barrier(30000, 3);
	barrier(40000, 0);
	ev(50800, 0, CALLER, ANA_EXIT, -1, 0, 0);	/* an exit with no entry */
	barrier(60000, 0);
	ana_match(evs, nev, &cfg, &r);
	ok(r.status[ANA_NO_HANDLER] == 1 && r.status[ANA_NO_HANDLER_EXIT] == 1,
	   "missing handler entry and exit are counted (%zu, %zu)",
	   r.status[ANA_NO_HANDLER], r.status[ANA_NO_HANDLER_EXIT]);
	ok(r.unclosed == 1 && r.orphan_exits == 1,
	   "an entry without exit and an exit without entry are counted (%zu, %zu)", r.unclosed, r.orphan_exits);
	ok(r.status[ANA_COMPLETE] == 2 && phase(&r.b[0], PH_TOTAL, 0) < 0,
	   "complete barriers still matched (%zu); an incomplete one gives no phase", r.status[ANA_COMPLETE]);
	ok(r.n == r.status[ANA_COMPLETE] + r.status[ANA_NO_HANDLER] + r.status[ANA_NO_HANDLER_EXIT] +
	   r.status[ANA_NO_CALL], "every window has one status");
	ana_result_free(&r);

	/* Foreign: other tasks' syscalls and queues, other callbacks, a
	 * handler of the same csd run before our queue, one on another CPU. */
	nev = 0;
	ev(9000, 1, SPIN, ANA_ENTER, -1, 0, 0);
	ev(9050, 0, CALLER, ANA_QUEUE, 1, CSD_B, F_MB);		/* outside a window */
	barrier(10000, 0);
	ev(10010, 0, 999, ANA_QUEUE, 1, CSD_A, F_MB);		/* another task */
	ev(10020, 0, CALLER, ANA_QUEUE, 1, CSD_B, F_OTHER);	/* another callback */
	ev(10050, 1, 999, ANA_HENTRY, -1, CSD_A, F_MB);	/* before our queue */
	ev(10060, 1, 999, ANA_HEXIT, -1, CSD_A, F_MB);
	ev(10510, 0, 999, ANA_HENTRY, -1, CSD_A, F_MB);	/* another CPU */
	ev(10520, 0, 999, ANA_HEXIT, -1, CSD_A, F_MB);
	ev(10700, 1, SPIN, ANA_EXIT, -1, 0, 0);
	ana_match(evs, nev, &cfg, &r);
	ok(r.n == 1 && r.status[ANA_COMPLETE] == 1 && phases_are(&r.b[0], 100, 50, 400, 100, 200, 800),
	   "foreign events do not change the barrier");
	ok(r.foreign == 9, "foreign events counted: 9 (got %zu)", r.foreign);
	ana_result_free(&r);
	/* Without a callback list, another callback of the caller counts. */
	cfg.nfuncs = 0;
	ana_match(evs, nev, &cfg, &r);
	ok(r.b[0].ntargets == 2 && r.status[ANA_NO_HANDLER] == 1,
	   "any callback counts without the list: its missing handler shows");
	ana_result_free(&r);
	cfg.nfuncs = 1;

	/* A window without a queue: nothing sent. */
	nev = 0;
	ev(100, 0, CALLER, ANA_ENTER, -1, 0, 0);
	ev(900, 0, CALLER, ANA_EXIT, -1, 0, 0);
	ana_match(evs, nev, &cfg, &r);
	ok(r.n == 1 && r.status[ANA_NO_CALL] == 1 && phase(&r.b[0], PH_TOTAL, 0) < 0,
	   "a window that queued nothing is no-call, without phases");
	ana_result_free(&r);

	/* Two targets: the wait runs from the later handler exit. */
	nev = 0;
	barrier(10000, 0);
	ev(10120, 0, CALLER, ANA_QUEUE, 2, CSD_B, F_MB);
	ev(10700, 2, SPIN + 1, ANA_HENTRY, -1, CSD_B, F_MB);
	ev(10750, 2, SPIN + 1, ANA_HEXIT, -1, CSD_B, F_MB);
	ana_match(evs, nev, &cfg, &r);
	ok(r.status[ANA_COMPLETE] == 1 && r.b[0].ntargets == 2 && phase(&r.b[0], PH_DELIVERY, 1) == 580 &&
	   phase(&r.b[0], PH_HANDLER, 1) == 50 && phase(&r.b[0], PH_WAIT, 0) == 50,
	   "two targets: per-target delivery 580 and handler 50, wait 50 from the last exit");
	ana_result_free(&r);

	/* Clock tolerance: a handler stamped 20 ns before its queue. */
	nev = 0;
	ev(1000, 0, CALLER, ANA_ENTER, -1, 0, 0);
	ev(1100, 0, CALLER, ANA_QUEUE, 1, CSD_A, F_MB);
	ev(1080, 1, SPIN, ANA_HENTRY, -1, CSD_A, F_MB);
	ev(1180, 1, SPIN, ANA_HEXIT, -1, CSD_A, F_MB);
	ev(1300, 0, CALLER, ANA_EXIT, -1, 0, 0);
	ana_match(evs, nev, &cfg, &r);
	ok(r.status[ANA_NO_HANDLER] == 1, "without tolerance a handler before its queue is missing");
	ana_result_free(&r);
	cfg.tol_ns = 50;
	ana_match(evs, nev, &cfg, &r);
	ok(r.status[ANA_COMPLETE] == 1 && r.inversions == 1 && phase(&r.b[0], PH_DELIVERY, 0) == 0,
	   "within the tolerance it matches, counted as an inversion, delivery 0");
	ana_result_free(&r);
	cfg.tol_ns = 0;

	/* ipi:* alone: entry -> IPI -> exit. */
	nev = 0;
	ev(1000, 0, CALLER, ANA_ENTER, -1, 0, 0);
	ev(1300, 0, CALLER, ANA_IPI, 1, 0, 0);
	ev(2000, 0, CALLER, ANA_EXIT, -1, 0, 0);
	cfg.no_csd = 1;
	ana_match(evs, nev, &cfg, &r);
	ok(r.status[ANA_COMPLETE] == 1 && phase(&r.b[0], PH_TO_IPI, 0) == 300 &&
	   phase(&r.b[0], PH_AFTER_IPI, 0) == 700 && phase(&r.b[0], PH_DELIVERY, 0) < 0,
	   "ipi only: to-ipi 300, after-ipi 700, no delivery");
	ana_result_free(&r);
}

/* The recorded capture: "# mechanism M threads T caller TID funcs F..." then events. */
static void capture(void)
{
	const char *src = getenv("top_srcdir");
	char path[512], line[256];
	FILE *f;
	uint64_t fl[8];
	struct ana_cfg cfg = { .funcs = fl };
	struct ana_result r;
	int bad = 0, sums = 1, order = 1, enters = 0;
	double tot = 0;

	snprintf(path, sizeof(path), "%s/tests/unit/anatomy-capture.txt", src ? src : ".");
	f = fopen(path, "r");
	if (!f) {
		ok(0, "cannot read %s", path);
		return;
	}
	nev = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if ((p = strstr(line, " caller "))) {
			char *q;

			cfg.caller = (int)strtol(p + 8, &q, 10);
			if ((p = strstr(q, " funcs")))
				for (p += 6; cfg.nfuncs < 8 && *p && *p != '\n'; ) {
					fl[cfg.nfuncs++] = strtoull(p, &q, 16);
					if (q == p)
						break;
					p = q;
				}
			continue;
		}
		if (line[0] == '#')
			continue;
		if (nev == sizeof(evs) / sizeof(evs[0]) || ana_event_parse(line, &evs[nev])) {
			bad++;
			continue;
		}
		if (nev && evs[nev].t < evs[nev - 1].t)
			order = 0;
		enters += evs[nev].kind == ANA_ENTER;
		nev++;
	}
	fclose(f);
	ok(!bad && nev == 88 && cfg.caller > 0 && cfg.nfuncs == 5,
	   "capture: 88 events, the caller and 5 callbacks read (%zu events, %d bad)", nev, bad);
	ok(!order, "capture: not in time order (two CPUs' rings one after the other)");
	ana_match(evs, nev, &cfg, &r);
	ok(r.n == (size_t)enters && r.n == 11 && !r.unclosed && !r.orphan_exits,
	   "capture: 11 windows, every entry with its exit (%zu)", r.n);
	ok(r.status[ANA_COMPLETE] == 9 && r.status[ANA_NO_CALL] == 2,
	   "capture: 9 complete, 2 sent nothing (%zu, %zu)", r.status[ANA_COMPLETE], r.status[ANA_NO_CALL]);
	ok(r.foreign == 30, "capture: perf's own 9 cross-calls, their IPIs and 6 handlers are foreign (%zu)",
	   r.foreign);
	for (size_t i = 0; i < r.n; i++) {
		const struct ana_barrier *b = &r.b[i];

		if (b->status != ANA_COMPLETE)
			continue;
		if (phase(b, PH_SETUP, 0) + phase(b, PH_DELIVERY, 0) + phase(b, PH_HANDLER, 0) +
		    phase(b, PH_WAIT, 0) != phase(b, PH_TOTAL, 0) || phase(b, PH_DELIVERY, 0) <= 0)
			sums = 0;
		tot += phase(b, PH_TOTAL, 0);
	}
	ok(sums && !r.inversions, "capture: each complete barrier's phases add up to its total, in order");
	diag("capture: mean traced total %.0f ns over %zu complete barriers", tot / 9, r.status[ANA_COMPLETE]);
	ana_result_free(&r);
}

static const char fmt_queue[] =
	"name: csd_queue_cpu\n"
	"ID: 529\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:void * func;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:void * csd;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc cpumask_t cpumask;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"cpu=%u callsite=%pS func=%ps csd=%p\", REC->cpu, REC->callsite, REC->func, REC->csd\n";

static void formats(void)
{
	int off = -1, size = -1;
	struct ana_event e, back;
	char buf[256];
	FILE *m;

	ok(ana_format_id(fmt_queue) == 529, "format: ID 529");
	ok(!ana_format_field(fmt_queue, "csd", &off, &size) && off == 32 && size == 8, "format: csd at 32, 8 bytes");
	ok(!ana_format_field(fmt_queue, "cpu", &off, &size) && off == 8 && size == 4,
	   "format: cpu at 8, not common_... or cpumask");
	ok(!ana_format_field(fmt_queue, "cpumask", &off, &size) && off == 40 && size == 4, "format: a __data_loc field");
	ok(!ana_format_field(fmt_queue, "comm", &off, &size) && off == 44 && size == 16, "format: an array field");
	ok(!ana_format_field(fmt_queue, "common_type", &off, &size) && off == 0 && size == 2, "format: common_type");
	ok(ana_format_field(fmt_queue, "pid", &off, &size) && ana_format_field(fmt_queue, "nosuch", &off, &size) &&
	   ana_format_field("", "csd", &off, &size) && ana_format_id("name: x\n") == -1,
	   "format: absent fields and IDs are -1, a suffix of a name is not the name");

	e = (struct ana_event){ .t = 25734092254095ull, .cpu = 1, .tid = 17392, .kind = ANA_QUEUE,
				.target = 1, .csd = 0xffffc90007343b00ull, .func = 0xffffffff8157f180ull };
	m = fmemopen(buf, sizeof(buf), "w");
	ana_event_print(m, &e);
	fclose(m);
	ok(!ana_event_parse(buf, &back) && !memcmp(&e, &back, sizeof(e)), "event text round trip: %s", strtok(buf, "\n"));
	ok(ana_event_parse("1 0 5 teleport -1 0 0", &back) && ana_event_parse("1 0 5 enter -1 0", &back) &&
	   ana_event_parse("1 0 5 enter -1 0 0 junk", &back) && ana_event_parse("", &back),
	   "bad event lines are refused");
}

int main(void)
{
	plan(31);
	synthetic();
	capture();
	formats();
	return done_testing();
}
