// SPDX-License-Identifier: MIT
/* Strings of their full length: formatted whole, or grown as appended to. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	char *p;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		fail("cannot format a message: %s", strerror(errno));
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	n = strlen(p);
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, p, n + 1);
	b->len += n;
	free(p);
}

void strbuf_add(struct strbuf *b, const char *str)
{
	strbuf_addf(b, "%s", str);
}

const char *strbuf_str(const struct strbuf *b)
{
	return b->s ? b->s : "";
}

void strbuf_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
