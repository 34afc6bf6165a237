/* diag.c - formats diagnostics with file, line, column, the source line and a
 * caret; counts errors so each pass can stop the run.  Used by all passes. */
#include "diag.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int error_count;
static int warnings_enabled = 1;

SourceFile *source_new(const char *name, char *text, size_t len)
{
	SourceFile *f = xcalloc(1, sizeof *f);
	f->name = xstrdup(name);
	f->text = text;
	f->len = len;
	return f;
}

static int is_error_kind(const char *kind)
{
	return strcmp(kind, "warning") != 0;
}

/* Print the line of loc and a caret under its column; tabs are kept so the
 * caret lines up in a terminal.  A long line is cut to a window around the
 * column, marked with "...". */
static void show_source_line(SrcLoc loc)
{
	enum { WINDOW = 80 };
	const char *p = loc.file->text, *end = p + loc.file->len;
	const char *eol, *from, *to, *at;
	int line = 1;

	while (p < end && line < loc.line) {
		if (*p++ == '\n')
			line++;
	}
	if (line != loc.line)
		return;
	for (eol = p; eol < end && *eol != '\n'; eol++)
		;
	at = p + loc.col - 1 < eol ? p + loc.col - 1 : eol;
	from = at - p > WINDOW ? at - WINDOW : p;
	to = eol - at > WINDOW ? at + WINDOW : eol;
	fputs(from > p ? "    ..." : "    ", stderr);
	for (const char *q = from; q < to; q++)
		fputc((*q >= 32 || *q == '\t') && *q != 127 ? *q : '?', stderr);
	fputs(to < eol ? "...\n    " : "\n    ", stderr);
	if (from > p)
		fputs("   ", stderr);
	for (const char *q = from; q < at; q++)
		fputc(*q == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
}

void diag_at(SrcLoc loc, const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (!is_error_kind(kind) && !warnings_enabled)
		return;
	if (is_error_kind(kind))
		error_count++;
	if (loc.file && loc.line > 0)
		fprintf(stderr, "%s:%d:%d: %s: ", loc.file->name, loc.line, loc.col, kind);
	else
		fprintf(stderr, "stap: %s: ", kind);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (loc.file && loc.line > 0)
		show_source_line(loc);
}

void diag_plain(const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (!is_error_kind(kind) && !warnings_enabled)
		return;
	if (is_error_kind(kind))
		error_count++;
	fprintf(stderr, "stap: %s: ", kind);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int diag_error_count(void)
{
	return error_count;
}

void diag_set_warnings(int enabled)
{
	warnings_enabled = enabled;
}
