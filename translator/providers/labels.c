/* labels.c - the DWARF labels of a function, for .label("NAME") points: a bounded walk of the
 * function's DIE tree. Used by providers/kernelfn.c. */
#include "providers/labels.h"
#include "lib/util.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>

#define LABEL_DEPTH 64          /* nesting of lexical blocks followed */

typedef struct LabelWalk {
	const char *pattern;
	PtrVec found;               /* PointLabel* */
} LabelWalk;

static void label_add(LabelWalk *w, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	Dwarf_Attribute attr;
	Dwarf_Word line = 0;
	Dwarf_Addr pc;
	PointLabel *l;

	if (!name || fnmatch(w->pattern, name, 0) != 0 || dwarf_lowpc(die, &pc) != 0)
		return;   /* a label the compiler dropped has no address */
	if (dwarf_attr_integrate(die, DW_AT_decl_line, &attr))
		dwarf_formudata(&attr, &line);
	l = xcalloc(1, sizeof *l);
	l->name = xstrdup(name);
	l->pc = pc;
	l->line = (int)line;
	vec_push(&w->found, l);
}

static void label_walk(LabelWalk *w, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	if (depth > LABEL_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_label)
			label_add(w, &child);
		else if (tag == DW_TAG_lexical_block)
			label_walk(w, &child, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

size_t point_labels_of(DwarfModule *m, Dwarf_Off fn, const char *pattern, PointLabel **out)
{
	LabelWalk w = { .pattern = pattern };
	Dwarf_Die die;
	size_t n;

	*out = NULL;
	if (!m->dw || !dwarf_offdie(m->dw, fn, &die))
		return 0;
	label_walk(&w, &die, 0);
	n = (size_t)w.found.len;
	if (n) {
		*out = xcalloc(n, sizeof **out);
		for (size_t i = 0; i < n; i++) {
			(*out)[i] = *(PointLabel *)w.found.items[i];
			free(w.found.items[i]);
		}
	}
	free(w.found.items);
	return n;
}

void point_labels_free(PointLabel *labels, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(labels[i].name);
	free(labels);
}
