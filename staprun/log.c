/* log.c - staprun's diagnostics: -v progress notes and errors on stderr, prefixed "staprun: ".
 * Used by every staprun file through staprun.h (say, err, verbose). */
#include <stdarg.h>
#include <stdio.h>

#include "staprun.h"

int verbose;

static void vnote(const char *fmt, va_list ap)
{
	fputs("staprun: ", stderr);
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

void err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}
