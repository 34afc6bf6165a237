/* log.c - staprun's and stapio's diagnostics: -v progress notes and errors on stderr, prefixed by
 * the program's name. Linked into both programs (and tests/unit/outfile-driver.c); see log.h. */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int verbose;

static void vnote(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", log_program);
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
