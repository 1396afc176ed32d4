// SPDX-License-Identifier: MIT
/*
 * Replays inputs through a fuzz target without libFuzzer: each file named
 * on the command line goes once through LLVMFuzzerTestOneInput. Built with
 * the normal compiler, so make check (and its sanitizer builds) run every
 * committed corpus file and regression input.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (n == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*size = n;
	return buf;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t size;
		uint8_t *data = slurp(argv[i], &size);

		if (!data) {
			fprintf(stderr, "%s: cannot read %s: %s\n", argv[0], argv[i],
				strerror(errno));
			return 1;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
	}
	return 0;
}
