/* log.c - stapio's diagnostics: -v progress notes and warnings on stderr, prefixed "stapio: ".
 * Used by every stapio file (and by tests/unit/outfile-driver.c, which links stapio/outfile.c). */
#include <stdarg.h>
#include <stdio.h>

#include "stapio.h"

int verbose;

static void vnote(const char *fmt, va_list ap)
{
	fputs("stapio: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void say(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}
