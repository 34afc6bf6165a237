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
 * caret lines up in a terminal. */
static void show_source_line(SrcLoc loc)
{
	const char *p = loc.file->text, *end = p + loc.file->len;
	const char *eol;
	int line = 1, col;

	while (p < end && line < loc.line) {
		if (*p++ == '\n')
			line++;
	}
	if (line != loc.line)
		return;
	for (eol = p; eol < end && *eol != '\n'; eol++)
		;
	fputs("    ", stderr);
	for (const char *q = p; q < eol; q++)
		fputc((*q >= 32 || *q == '\t') && *q != 127 ? *q : '?', stderr);
	fputs("\n    ", stderr);
	for (col = 1; col < loc.col && p + col - 1 < eol; col++)
		fputc(p[col - 1] == '\t' ? '\t' : ' ', stderr);
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
