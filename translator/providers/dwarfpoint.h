/* dwarfpoint.h - what the DWARF probe families share: FUNC@FILE:LINE patterns, inline instances,
 * entry addresses, function line spans and statement lines.  Used by kernelfn.c (kernel/module) and uprobe.c (process). */
#ifndef STAP_DWARFPOINT_H
#define STAP_DWARFPOINT_H

#include "providers/provider.h"
#include "dwarf/dwarf.h"

/* ---- the pattern: FUNC[@FILE[:LINE | :FIRST-LAST | :* | +OFFSET]] ---- */

typedef enum { LINE_NONE, LINE_ONE, LINE_RANGE, LINE_ALL, LINE_RELATIVE } LineKind;

typedef struct Pattern {
	char *func;             /* glob */
	char *file;             /* glob, NULL when none */
	LineKind lines;
	int first, last;        /* LINE_ONE: first == last; LINE_RELATIVE: first = offset */
} Pattern;

/* Parses text into p; 0, or -1 after an error reported to d at loc. */
int point_parse_pattern(Diag *d, const char *text, SrcLoc loc, Pattern *p);

/* ---- inline instances ---- */

typedef struct Instances {
	Dwarf_Off origin;
	PtrVec dies;            /* (void*)(uintptr_t) offsets of DW_TAG_inlined_subroutine DIEs */
} Instances;

/* The inlined instances of the abstract subprogram at origin (same CU), scanning the CU once;
 * NULL when it has none. */
Instances *point_inline_instances(DwarfModule *m, Dwarf_Off cu, Dwarf_Off origin);
/* Entry address of an inlined instance or a subprogram: 0, or -1 when it has none. */
int point_die_entry_pc(Dwarf_Die *die, Dwarf_Addr *pc);

/* ---- lines ---- */

/* The line span [lo, hi] of a function's code in its own file (0, 0 when unknown). */
void point_function_span(DwarfModule *m, Dwarf_Die *fn, const char *file, int *lo, int *hi);

/* A line of a statement probe and the address chosen for it. */
typedef struct PointLine {
	int line;
	Dwarf_Addr addr;
	int stmt;
} PointLine;

/* .statement("FUNC@FILE:LINE..."): for each line pat asks in the function at die (declared at
 * decl_line of want_file, the index's spelling), the lowest address of that line within its code
 * (rows beginning a statement preferred).  Returns how many (*out, malloc'd); when none and the
 * pattern is not ":*", *why says so (with the nearest lines with code). */
size_t point_statement_lines(DwarfModule *m, Dwarf_Off die, const char *func, const Pattern *pat, int decl_line,
			     const char *want_file, PointLine **out, char **why);
/* The same for the function of index entry n (info: its declaration), the reason when there is none
 * pushed onto nolines (char*). */
size_t point_statement_lines_of(DwarfModule *m, const DwarfName *n, const DwarfNameInfo *info, const Pattern *pat,
				PtrVec *nolines, PointLine **out);

#endif
