// SPDX-License-Identifier: MIT
/*
 * The riscv64 guest's static mbbench links Debian 13's libhwloc.a and
 * libnuma.a (Debian 12 has no riscv64) against Debian 12's riscv64 cross
 * libc (glibc 2.36): Debian 13's libc.a cannot be linked by Debian 12's
 * binutils (its ld crashes on it). Those libraries were compiled against
 * glibc 2.41, whose headers send strtol, strtoul, strtoull, sscanf and
 * fscanf to their C23 forms (__isoc23_*, glibc 2.38+). Here each C23 form
 * is the C17 one: they differ only in C23's binary numbers ("0b101", %b),
 * which hwloc and libnuma do not read from sysfs and procfs.
 * Built by kernel-patch/cross-mbbench for riscv64 only.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char *s, char **end, int base);
unsigned long __isoc23_strtoul(const char *s, char **end, int base);
unsigned long long __isoc23_strtoull(const char *s, char **end, int base);
int __isoc23_sscanf(const char *s, const char *fmt, ...);
int __isoc23_fscanf(FILE *f, const char *fmt, ...);

long __isoc23_strtol(const char *s, char **end, int base)
{
	return strtol(s, end, base);
}

unsigned long __isoc23_strtoul(const char *s, char **end, int base)
{
	return strtoul(s, end, base);
}

unsigned long long __isoc23_strtoull(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

int __isoc23_sscanf(const char *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsscanf(s, fmt, ap);
	va_end(ap);
	return n;
}

int __isoc23_fscanf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfscanf(f, fmt, ap);
	va_end(ap);
	return n;
}
