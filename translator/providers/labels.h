/* labels.h - the DWARF labels of a function (.label("NAME") probe points): DW_TAG_label entries
 * under its DIE with an address. Used by providers/kernelfn.c. */
#ifndef STAP_LABELS_H
#define STAP_LABELS_H

#include "dwarf/dwarf.h"

typedef struct PointLabel {
	char *name;
	Dwarf_Addr pc;
	int line;                   /* DW_AT_decl_line, 0 when absent */
} PointLabel;

/* The labels of the function DIE at fn (in its lexical blocks too, not in the bodies of other
 * functions inlined into it) whose names match the glob pattern, in DIE order; their count, *out
 * malloc'd (free with point_labels_free) */
size_t point_labels_of(DwarfModule *m, Dwarf_Off fn, const char *pattern, PointLabel **out);
void point_labels_free(PointLabel *labels, size_t n);

#endif
