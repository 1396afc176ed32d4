/* SPDX-License-Identifier: MIT */
/*
 * Strings built whole: a message or a list of names is as long as it is,
 * never cut at a fixed buffer's size. Out of memory ends the process, as
 * xmalloc does.
 */
#ifndef MBBENCH_STRBUF_H
#define MBBENCH_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/* A formatted string of its full length (malloc'd). */
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...);
__attribute__((format(printf, 1, 0))) char *xvasprintf(const char *fmt, va_list ap);

/*
 * A string that grows as it is appended to. Start from STRBUF_INIT; s is
 * NULL until something is added (strbuf_str() gives "" then).
 */
struct strbuf {
	char *s;
	size_t len, cap;
};
#define STRBUF_INIT { NULL, 0, 0 }
__attribute__((format(printf, 2, 3))) void strbuf_addf(struct strbuf *b, const char *fmt, ...);
void strbuf_add(struct strbuf *b, const char *str);
const char *strbuf_str(const struct strbuf *b);
void strbuf_free(struct strbuf *b);

#endif
