/* diag.h - source files and diagnostics ("file:line:col: error: ..." with the
 * source line and a caret), each reported to the Diag given as the first argument (the
 * Session's, reached through what the caller holds).  Used by the lexer, parser and every later pass. */
#ifndef STAP_DIAG_H
#define STAP_DIAG_H

#include "lib/util.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>

typedef struct SourceFile {
	char *name;        /* as shown in messages; "<input>" for -e */
	char *text;        /* whole contents, NUL-terminated */
	size_t len;
	size_t *lines;     /* offsets of line starts, built on the first diagnostic */
	int nlines;
	int is_tapset;     /* a library file: embedded C allowed, no unused warnings */
} SourceFile;

typedef struct SrcLoc {
	const SourceFile *file;
	int line, col;     /* 1-based; line 0 = no location */
} SrcLoc;

SourceFile *source_new(const char *name, char *text, size_t len);

/* The diagnostics of one run: what was counted, shown and muted.  The Session owns one
 * (Session.diag); every diag_* function takes the Diag it reports to. */
typedef struct Diag {
	int errors;
	int warnings;            /* shown so far (stap -W fails a pass that gave one) */
	int warnings_off;        /* -w: warnings neither shown nor counted */
	int shown;               /* past DIAG_MAX_SHOWN messages, only counted */
	int muted;               /* diag_mute() nesting */
	char *last_muted;        /* the last error muted, for diag_take_muted() */
	const char *context_note;   /* diag_set_context() */
	StrMap seen;             /* messages shown, each shown once */
	pthread_mutex_t once_lock;  /* guards once_seen: diag_warning_once runs in any thread */
	StrMap once_seen;        /* diag_warning_once's messages shown */
} Diag;

/* Makes d (zeroed) ready for use; before the first diagnostic reported to it. */
void diag_init(Diag *d);

/* "stap: warning: MSG" once per run, from any thread (btf/source.c's cache write beside the main
 * thread): neither counted nor muted nor cut by -w.  lib/filecache.c's warnings. */
void diag_warning_once(Diag *d, const char *msg);

/* kind is "parse error", "semantic error", "error" or "warning". */
void diag_at(Diag *d, SrcLoc loc, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_vat(Diag *d, SrcLoc loc, const char *kind, const char *fmt, va_list ap);
/* A message with no location: "stap: error: ..." */
void diag_plain(Diag *d, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int diag_error_count(const Diag *d);
/* Warnings shown so far (stap -W fails a pass that gave one). */
int diag_warning_count(const Diag *d);

/* While muted (delta +1 / -1 nests), diagnostics are neither shown nor
 * counted: resolving an optional probe point that may fail. */
void diag_mute(Diag *d, int delta);
/* The last error muted since the previous call (the caller frees it), NULL when none was. */
char *diag_take_muted(Diag *d);
/* A line printed after each diagnostic, e.g. the probe alias chain that led
 * there; NULL for none.  The caller keeps the string alive. */
void diag_set_context(Diag *d, const char *note);

/* Diagnostics printed in one run; past it they are only counted. */
#define DIAG_MAX_SHOWN 100
void diag_set_warnings(Diag *d, int enabled);

#endif
