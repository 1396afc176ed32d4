// SPDX-License-Identifier: MIT
/*
 * The parsers disturb depends on: one row of /proc/interrupts (CPU columns
 * taken from the header, offline CPUs absent; a row by its label on x86, by
 * its name on arm64), the JSON reader on malformed
 * input, and the fields of real rt-tests 2.40 --json files (oslat, and
 * cyclictest with and without -h) turned into a histogram.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ipicount.h"
#include "rtjson.h"
#include "tap.h"

static const char interrupts[] =
	"           CPU0       CPU2       \n"
	"  0:         44          0   IO-APIC   2-edge      timer\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"CAL:     116133     682112   Function call interrupts\n"
	"TLB:      28675     117779   TLB shootdowns\n";

/* arm64 (Debian's 6.1 on QEMU virt): the IPIs are numbered, not labelled. */
static const char interrupts_arm64[] =
	"           CPU0       CPU1       CPU2       CPU3       \n"
	" 11:      21503      19402      18876      19113     GICv3  27 Level     arch_timer\n"
	"IPI0:        871       1208        959       1044       Rescheduling interrupts\n"
	"IPI1:       3370       2818       3004       2911       Function call interrupts\n"
	"IPI2:          0          0          0          0       CPU stop interrupts\n"
	"IPI3:          0          0          0          0       CPU stop (for crash dump) interrupts\n"
	"IPI4:          0          0          0          0       Timer broadcast interrupts\n"
	"IPI5:          7          3          2          4       IRQ work interrupts\n"
	"Err:          0\n";

static int arm64_row(const char *row, uint64_t *v)
{
	FILE *f = fmemopen((void *)interrupts_arm64, sizeof(interrupts_arm64) - 1, "r");
	int rc = proc_interrupts_row(f, row, v, 4);

	fclose(f);
	return rc;
}

static void proc_tests(void)
{
	uint64_t v[4];
	FILE *f = fmemopen((void *)interrupts, sizeof(interrupts) - 1, "r");

	int rc = proc_interrupts_row(f, "CAL", v, 4);

	ok(!rc && v[0] == 116133 && v[1] == 0 && v[2] == 682112 && v[3] == 0,
	   "CAL row: columns follow the header (CPU1 offline): %llu %llu %llu",
	   (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
	fclose(f);
	f = fmemopen((void *)interrupts, sizeof(interrupts) - 1, "r");
	ok(!proc_interrupts_row(f, "TLB", v, 4) && v[2] == 117779, "TLB row read");
	fclose(f);
	f = fmemopen((void *)interrupts, sizeof(interrupts) - 1, "r");
	ok(proc_interrupts_row(f, "RES", v, 4) == -1, "a missing row is an error, not zeros");
	fclose(f);
	f = fmemopen((void *)"no header here\nCAL: 1 2\n", 24, "r");
	ok(proc_interrupts_row(f, "CAL", v, 4) == -1, "a missing header is an error");
	fclose(f);
	rc = arm64_row("CAL", v);
	ok(!rc && v[0] == 3370 && v[3] == 2911,
	   "arm64: the function-call row is found by its name (IPI1): %llu .. %llu",
	   (unsigned long long)v[0], (unsigned long long)v[3]);
	ok(!arm64_row("RES", v) && v[1] == 1208, "arm64: the reschedule row by its name (IPI0)");
	ok(arm64_row("TLB", v) == -1 && strstr(ipi_no_tlb_why(), "TLB"),
	   "arm64: no TLB row is an error with its reason, not zeros (%s)", ipi_no_tlb_why());
}

static void json_tests(void)
{
	static const char *const bad[] = {
		"", "{", "{\"a\":}", "{\"a\" 1}", "[1,]", "{\"a\":1}x", "\"\\q\"",
		"[\"unterminated]", "{\"a\":tru}", "-", "{\"a\":1,,}",
	};
	char err[128];
	struct jval *v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = jv_parse(bad[i], err, sizeof(err));
		ok(!v, "malformed JSON rejected: '%s' (%s)", bad[i], v ? "accepted" : err);
		jv_free(v);
	}
	v = jv_parse("{\"cmdline:\": \"a\\\"b\", \"x\": [1, -2.5e3, true, null, {}]}", err, sizeof(err));
	ok(v && jv_get(v, "cmdline:") && !strcmp(jv_get(v, "cmdline:")->str, "a\"b") &&
	   jv_get(v, "x")->n == 5 && jv_get(v, "x")->kids[1]->num == -2500,
	   "keys with a stray colon, escapes, nested values");
	jv_free(v);
	{
		char deep[200];

		memset(deep, '[', 100);
		memset(deep + 100, ']', 99);
		deep[199] = '\0';
		v = jv_parse(deep, err, sizeof(err));
		ok(!v, "nesting deeper than the limit is rejected");
		jv_free(v);
	}
}

static void rt_tests(const char *dir)
{
	char path[512], err[256] = "";
	struct rt_result r;
	struct hist h;

	hist_init(&h);
	snprintf(path, sizeof(path), "%s/tests/golden/oslat-2.40.json", dir);
	ok(!rtjson_read(path, &r, &h, err, sizeof(err)), "oslat 2.40 JSON read (%s)", err);
	ok(!strcmp(r.tool, "oslat") && r.cpu == 1 && r.min_ns == 1000 && r.max_ns == 4192000 &&
	   fabs(r.avg_ns - 1001.761) < 0.01,
	   "oslat: tool, cpu, min/avg/max in ns (%s %d %.0f %.3f %.0f)", r.tool, r.cpu,
	   r.min_ns, r.avg_ns, r.max_ns);
	ok(h.count == 25669882 && r.samples == h.count && r.overflow == 127 &&
	   fabs(hist_percentile(&h, 50) - 1000) < 10 && h.max == 4192000,
	   "oslat: histogram of %llu samples, p50 %.1f ns, last bucket open-ended (%llu), max from max",
	   (unsigned long long)h.count, hist_percentile(&h, 50), (unsigned long long)r.overflow);
	hist_reset(&h);
	snprintf(path, sizeof(path), "%s/tests/golden/cyclictest-2.40.json", dir);
	ok(!rtjson_read(path, &r, &h, err, sizeof(err)) && !strcmp(r.tool, "cyclictest") &&
	   h.count == 1000 && r.overflow == 0 && r.min_ns == 46000 && r.max_ns == 107000 &&
	   h.min == 46000 && h.max == 107000,
	   "cyclictest -h: 1000 samples, 46..107 us, no overflow (%s)", err);
	hist_reset(&h);
	snprintf(path, sizeof(path), "%s/tests/golden/cyclictest-2.40-nohist.json", dir);
	ok(!rtjson_read(path, &r, &h, err, sizeof(err)) && h.count == 0 && r.max_ns == 4542000,
	   "cyclictest without -h: empty histogram, max still read (%s)", err);
	snprintf(path, sizeof(path), "%s/tests/golden/no-such.json", dir);
	ok(rtjson_read(path, &r, &h, err, sizeof(err)) == -1 && strstr(err, "no-such"),
	   "a missing file is an error naming it (%s)", err);
	snprintf(path, sizeof(path), "%s/tests/golden/placement-pack-1-core-2-pu-1.txt", dir);
	ok(rtjson_read(path, &r, &h, err, sizeof(err)) == -1, "a file that is not JSON is an error (%s)", err);
	/* Numbers no integer holds are refused or unknown, never converted. */
	ok(rtjson_parse("{\"cmdline:\":\"oslat\",\"thread\":{\"0\":{\"min\":1,\"avg\":2,"
			"\"max\":3,\"histogram\":{\"1\":4e19}}}}", "big.json", &r, &h,
			err, sizeof(err)) == -1 && strstr(err, "bad histogram entry"),
	   "a bucket count beyond 2^64 is a bad histogram entry (%s)", err);
	err[0] = '\0';
	ok(!rtjson_parse("{\"cmdline:\":\"/usr/bin/oslat\",\"thread\":{\"0\":{\"min\":1,"
			 "\"avg\":2,\"max\":3}}}", "path.json", &r, &h, err, sizeof(err)) &&
	   !strcmp(r.tool, "oslat"), "a command line of only a path names the tool (%s)", r.tool);
	ok(!rtjson_parse("{\"thread\":{\"0\":{\"min\":1,\"avg\":2,\"max\":3,"
			 "\"cpu\":1e300}}}", "cpu.json", &r, &h, err, sizeof(err)) && r.cpu == -1,
	   "a CPU number beyond int is unknown, -1 (%s)", err);
	hist_free(&h);
}

int main(void)
{
	const char *dir = getenv("top_srcdir");

	plan(4 + 3 + 11 + 2 + 10);
	proc_tests();
	json_tests();
	rt_tests(dir ? dir : ".");
	return done_testing();
}
