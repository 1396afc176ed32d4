/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share: the libFuzzer entry point, a NUL-terminated
 * copy of the input, and a check that aborts (a crash the fuzzer keeps)
 * when a parser breaks its own contract.
 */
#ifndef MBBENCH_FUZZ_H
#define MBBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: contract broken: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* The input as a C string (it ends at its first NUL); free() it. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Cut s in place at the first newline; the rest, or "" when there is none. */
static inline char *fuzz_line(char *s)
{
	char *nl = strchr(s, '\n');

	if (!nl)
		return s + strlen(s);
	*nl = '\0';
	return nl + 1;
}

#endif
