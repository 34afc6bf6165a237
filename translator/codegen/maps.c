/* maps.c - an array element's slot through the array's gm_NAME__slot (each runtime's writer defines
 * the gm_ functions: kmodule/mapfuncs.c), created when absent; used by expr.c and stats.c. */
#include "codegen/gen.h"

/* The address of elem's value in map (keys and comm from cg_keys_comm), created when absent:
 * a local of ctype.  A full array is the MAXMAPENTRIES error near elem and ends the body: the slot
 * function takes the location for that error (stp_error_near stores it), and a light body passes
 * it no context (the error is reported at once, out of line). */
char *cg_map_slot(Gen *g, const Expr *elem, const char *map, const char *keys, unsigned int comm, const char *ctype)
{
	const char *name = elem->sym->name;
	char *where = cg_location_literal("identifier", elem->str, elem->loc);
	char *e = cg_named_local(g, "struct stp_map_entry *", "e");
	char *p = cg_named_local(g, ctype, "p");

	cg_line(g, "%s = gm_%s__slot(%s, %s, %s, %#x, %s);", e, name, g->light ? "NULL" : "c", map, keys, comm, where);
	/* tested as the entry, not as the value's address: on the found path the lookup's own test
	 * of the entry already decided it */
	cg_line(g, "if (unlikely(!%s)) goto %s;", e, cg_error_label(g));
	cg_line(g, "%s = (%s)(%s->data + GM_%s__VAL);", p, ctype, e, name);
	g->out_used = 1;
	free(where);
	free(e);
	return p;
}
