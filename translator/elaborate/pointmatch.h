/* pointmatch.h - probe point patterns: {a,b} alternatives, component text and
 * wildcard matching.  Used by the tapset loader and alias expansion (pass 2). */
#ifndef STAP_POINTMATCH_H
#define STAP_POINTMATCH_H

#include "parse/ast.h"

/* One component as text: name and argument ("" when there is none). */
typedef struct CompText {
	char *name;
	char *arg;
} CompText;

/* The points {a,b} alternatives stand for (pp itself when it has none), in
 * order; each has pp's ?, ! and condition and those of the alternatives it
 * took (conditions and-ed), as SystemTap's brace expansion. */
PtrVec point_alternatives(const ProbePoint *pp);

/* "syscall.read.return", without ?, ! or if: the name of a point or an alias. */
char *point_path(const ProbePoint *pp);

/* Splits a point into components; returns how many (*out is allocated). */
int comps_of_point(const ProbePoint *pp, CompText **out);
/* The same for a point path as point_path() writes it. */
int comps_of_text(const char *text, CompText **out);

/* Whether the pattern's first na components match the alias name's na
 * components (wildcards in the pattern; arguments compared as text).
 * Returns na on a match (np - na components are left as a suffix), else -1. */
int comps_match_prefix(const CompText *pat, int np, const CompText *alias, int na);

/* Does a name contain a '*' or '?' wildcard? */
int has_wildcard(const char *s);

/* A source file pattern (function("F@PATTERN")) matches a file name as written or any trailing
 * part of it ("read_write.c", "fs/read_write.c" and "fs/read_*.c" all match "fs/read_write.c"). */
int point_file_matches(const char *pattern, const char *file);

#endif
