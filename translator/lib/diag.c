/* diag.c - formats diagnostics with file, line, column, the source line and a
 * caret; counts errors so each pass can stop the run.  Used by all passes. */
#include "lib/diag.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

void diag_init(Diag *d)
{
	pthread_mutex_init(&d->once_lock, NULL);
}

void diag_warning_once(Diag *d, const char *msg)
{
	pthread_mutex_lock(&d->once_lock);
	if (!strmap_get(&d->once_seen, msg)) {
		strmap_put(&d->once_seen, xstrdup(msg), (void *)1);
		fprintf(stderr, "stap: warning: %s\n", msg);
	}
	pthread_mutex_unlock(&d->once_lock);
}

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

static void index_lines(SourceFile *f)
{
	int cap = 1024;

	f->lines = xmalloc((size_t)cap * sizeof *f->lines);
	f->lines[f->nlines++] = 0;
	for (size_t i = 0; i < f->len; i++) {
		if (f->text[i] != '\n')
			continue;
		if (f->nlines == cap) {
			cap *= 2;
			f->lines = xrealloc(f->lines, (size_t)cap * sizeof *f->lines);
		}
		f->lines[f->nlines++] = i + 1;
	}
}

/* Print the line of loc and a caret under its column; tabs are kept so the
 * caret lines up in a terminal.  A long line is cut to a window around the
 * column, marked with "...". */
static void show_source_line(SrcLoc loc)
{
	enum { WINDOW = 80 };
	SourceFile *f = (SourceFile *)loc.file;
	const char *p, *eol, *end = f->text + f->len, *from, *to, *at;
	StrBuf out;

	if (!f->lines)
		index_lines(f);
	if (loc.line < 1 || loc.line > f->nlines)
		return;
	p = f->text + f->lines[loc.line - 1];
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	at = p + loc.col - 1 < eol ? p + loc.col - 1 : eol;
	from = at - p > WINDOW ? at - WINDOW : p;
	to = eol - at > WINDOW ? at + WINDOW : eol;
	sb_init(&out);
	sb_puts(&out, from > p ? "    ..." : "    ");
	for (const char *q = from; q < to; q++)
		sb_putc(&out, (*q >= 32 || *q == '\t') && *q != 127 ? *q : '?');
	sb_puts(&out, to < eol ? "...\n    " : "\n    ");
	if (from > p)
		sb_puts(&out, "   ");
	for (const char *q = from; q < at; q++)
		sb_putc(&out, *q == '\t' ? '\t' : ' ');
	sb_puts(&out, "^\n");
	fwrite(out.data, 1, out.len, stderr);
	sb_free(&out);
}

/* Past DIAG_MAX_SHOWN messages, only a count: a binary file as a script
 * would otherwise print one error per byte. */
static int may_show(Diag *d)
{
	if (d->shown == DIAG_MAX_SHOWN)
		fprintf(stderr, "stap: error: too many errors; only the first %d are shown\n", DIAG_MAX_SHOWN);
	return d->shown++ < DIAG_MAX_SHOWN;
}

void diag_mute(Diag *d, int delta)
{
	d->muted += delta;
}

char *diag_take_muted(Diag *d)
{
	char *m = d->last_muted;

	d->last_muted = NULL;
	return m;
}

void diag_set_context(Diag *d, const char *note)
{
	d->context_note = note;
}

/* The same message at the same place is shown once: a body shared by many
 * expansions of a probe alias would repeat it for each. */
static int seen_before(Diag *d, SrcLoc loc, const char *kind, const char *msg)
{
	char *key = xasprintf("%p:%d:%d:%s:%s", (void *)loc.file, loc.line, loc.col, kind, msg);
	if (strmap_get(&d->seen, key)) {
		free(key);
		return 1;
	}
	strmap_put(&d->seen, key, (void *)1);
	return 0;
}

void diag_vat(Diag *d, SrcLoc loc, const char *kind, const char *fmt, va_list ap)
{
	StrBuf sb;
	char *msg;

	if (d->muted && is_error_kind(kind)) {
		free(d->last_muted);
		sb_init(&sb);
		sb_vprintf(&sb, fmt, ap);
		d->last_muted = sb_steal(&sb);
		return;
	}
	if (d->muted || (!is_error_kind(kind) && d->warnings_off))
		return;
	sb_init(&sb);
	sb_vprintf(&sb, fmt, ap);
	msg = sb_steal(&sb);
	if (seen_before(d, loc, kind, msg)) {
		free(msg);
		return;
	}
	if (is_error_kind(kind))
		d->errors++;
	else
		d->warnings++;
	if (!may_show(d)) {
		free(msg);
		return;
	}
	if (loc.file && loc.line > 0)
		fprintf(stderr, "%s:%d:%d: %s: %s\n", loc.file->name, loc.line, loc.col, kind, msg);
	else
		fprintf(stderr, "stap: %s: %s\n", kind, msg);
	if (loc.file && loc.line > 0)
		show_source_line(loc);
	if (d->context_note)
		fprintf(stderr, "  %s\n", d->context_note);
	free(msg);
}

void diag_at(Diag *d, SrcLoc loc, const char *kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(d, loc, kind, fmt, ap);
	va_end(ap);
}

void diag_plain(Diag *d, const char *kind, const char *fmt, ...)
{
	va_list ap;
	SrcLoc none = { 0 };

	va_start(ap, fmt);
	diag_vat(d, none, kind, fmt, ap);
	va_end(ap);
}

int diag_error_count(const Diag *d)
{
	return d->errors;
}

int diag_warning_count(const Diag *d)
{
	return d->warnings;
}

void diag_set_warnings(Diag *d, int enabled)
{
	d->warnings_off = !enabled;
}
