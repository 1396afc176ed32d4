// SPDX-License-Identifier: MIT
/*
 * What disturb reads from oslat's and cyclictest's --json files
 * (bench/harness/rtjson.c, on the JSON reader): thread 0's figures and histogram.
 * The input is the file's text, which a broken or foreign tool may have
 * written; a result read must hold a terminated tool name and a histogram
 * whose count is the samples read.
 */
#include "config.h"

#include "fuzz.h"
#include "rtjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), err[256] = "";
	struct rt_result r;
	struct hist h;

	hist_init(&h);
	if (!rtjson_parse(s, "fuzz.json", &r, &h, err, sizeof(err))) {
		FUZZ_CHECK(memchr(r.tool, '\0', sizeof(r.tool)));
		FUZZ_CHECK(h.count == r.samples);
	} else {
		FUZZ_CHECK(err[0]);
	}
	hist_free(&h);
	free(s);
	return 0;
}
