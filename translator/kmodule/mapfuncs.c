/* mapfuncs.c - the module's per-array map functions: each global array gets its hash, find, read, slot
 * and delete specialised to its key layout (runtime/maps/map.c's inline helpers, offsets fixed), so a
 * hit interprets no key types; written with the globals (globals.c), called by codegen/maps.c's code. */
#include "kmodule/kmodule.h"
#include "codegen/gen.h"

/* The C expression of the offset of key i in an entry's data (map.c's __stp_map_new layout:
 * MAXSTRINGLEN bytes per string key, 8 per long, in order). */
static char *key_offset(const Symbol *arr, int i)
{
	int strings = 0, longs = 0;

	for (int k = 0; k < i; k++) {
		if (arr->keytypes[k] == TY_STRING)
			strings++;
		else
			longs++;
	}
	return xasprintf("(%d * MAXSTRINGLEN + %d)", strings, longs * 8);
}

/* hash: each key mixed in, in order; a string key given as a comm key (bit i of comm) is two words */
static void emit_hash(const Symbol *arr, StrBuf *d)
{
	const char *n = arr->name;

	sb_printf(d, "static __always_inline u64 gm_%s__hash(const struct stp_key *k, const unsigned int comm)\n{\n", n);
	sb_puts(d, "\tu64 h = STP_MAP_SEED;\n\n");
	for (int i = 0; i < arr->nkeys; i++) {
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(d, "\th = (comm & %#x) ? stp_hash_comm(h, k[%d].s) : stp_hash_str(h, k[%d].s);\n", 1u << i, i,
				  i);
		else
			sb_printf(d, "\th = stp_hash_long(h, k[%d].n);\n", i);
	}
	sb_puts(d, "\treturn h;\n}\n\n");
}

/* lookup: the bucket's entries compared key by key at fixed offsets */
static void emit_lookup(const Symbol *arr, StrBuf *d)
{
	const char *n = arr->name;

	sb_printf(d,
		  "static __always_inline struct stp_map_entry *gm_%s__lookup(const struct stp_map *m, "
		  "const struct stp_key *k, u64 h, const unsigned int comm)\n{\n",
		  n);
	sb_puts(d, "\tstruct stp_map_entry *e;\n\n\thlist_for_each_entry(e, stp_map_bucket(m, h), hash) {\n");
	for (int i = 0; i < arr->nkeys; i++) {
		char *off = key_offset(arr, i);
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(d,
				  "\t\tif (!((comm & %#x) ? stp_key_comm_equal(e->data + %s, k[%d].s) : "
				  "stp_key_str_equal(e->data + %s, k[%d].s)))\n",
				  1u << i, off, i, off, i);
		else
			sb_printf(d, "\t\tif (!stp_key_long_equal(e->data + %s, k[%d].n))\n", off, i);
		sb_puts(d, "\t\t\tcontinue;\n");
		free(off);
	}
	sb_puts(d, "\t\treturn e;\n\t}\n\treturn NULL;\n}\n\n");
}

/* find, read (0 or "" when absent), delete, and slot (the entry, created when absent with its value
 * zeroed; NULL after the MAXMAPENTRIES error near where, reported through c, or at once when c is
 * NULL: a light body) */
static void emit_access(const Symbol *arr, StrBuf *d)
{
	const char *n = arr->name;
	const char *args = "const struct stp_key *k, const unsigned int comm";

	sb_printf(d, "static GM_%s__INLINE struct stp_map_entry *gm_%s__find(const struct stp_map *m, %s)\n{\n", n, n, args);
	sb_printf(d, "\treturn gm_%s__lookup(m, k, gm_%s__hash(k, comm), comm);\n}\n\n", n, n);
	if (arr->type == TY_STATS) {
		/* a statistics array: only its per-CPU maps' slots (a[k] <<< v); the rest reads all CPUs */
	} else if (arr->type == TY_STRING) {
		sb_printf(d, "static GM_%s__INLINE const char *gm_%s__get(const struct stp_map *m, %s)\n{\n", n, n, args);
		sb_printf(d, "\tstruct stp_map_entry *e = gm_%s__find(m, k, comm);\n\n", n);
		sb_printf(d, "\treturn e ? (const char *)(e->data + GM_%s__VAL) : \"\";\n}\n\n", n);
	} else {
		sb_printf(d, "static GM_%s__INLINE int64_t gm_%s__get(const struct stp_map *m, %s)\n{\n", n, n, args);
		sb_printf(d, "\tstruct stp_map_entry *e = gm_%s__find(m, k, comm);\n\n", n);
		sb_printf(d, "\treturn e ? *(int64_t *)(e->data + GM_%s__VAL) : 0;\n}\n\n", n);
	}
	if (arr->type != TY_STATS) {
		sb_printf(d, "static GM_%s__INLINE void gm_%s__delete(struct stp_map *m, %s)\n{\n", n, n, args);
		sb_printf(d, "\tstruct stp_map_entry *e = gm_%s__find(m, k, comm);\n\n", n);
		sb_puts(d, "\tif (e)\n\t\tstp_map_unlink(m, e);\n}\n\n");
	}
	sb_printf(d,
		  "static GM_%s__INLINE struct stp_map_entry *gm_%s__slot(struct stp_context *c, struct stp_map *m,\n"
		  "\t\t\t\t\t\t\t  %s, const char *where)\n{\n"
		  "\tu64 h = gm_%s__hash(k, comm);\n"
		  "\tstruct stp_map_entry *e = gm_%s__lookup(m, k, h, comm);\n\n"
		  "\tif (unlikely(!e))\n"
		  "\t\te = stp_map_add_or_error(c, m, k, h, where);\n"
		  "\treturn e;\n}\n\n",
		  n, n, args, n, n);
}

/* ---- how many places name each global: its accessors inlined into each, or called ---- */

static int count_sites(Expr *e, void *ctx)
{
	int *sites = ctx;

	if ((e->kind == EX_INDEX || e->kind == EX_IDENT) && e->sym && e->sym->kind == SYM_GLOBAL)
		sites[e->sym->index]++;
	return 0;
}

int *km_count_map_sites(const Program *prog)
{
	int *sites = xcalloc((size_t)prog->globals.len + 1, sizeof *sites);

	ast_walk_program(prog, &(AstVisitor){ .expr = count_sites, .ctx = sites });
	return sites;
}

void km_map_functions(const int *map_sites, const Symbol *arr, StrBuf *decl, StrBuf *init)
{
	char *end = key_offset(arr, arr->nkeys);

	sb_printf(decl, "\n/* %s: its hash, find, read, slot and delete with the key layout fixed (kmodule/mapfuncs.c) */\n",
		  arr->name);
	sb_printf(decl, "#define GM_%s__VAL ((%s + 7) & ~7)\n", arr->name, end);
	/* inlined where the script names the array, unless it does so in more places than
	 * STP_MAP_INLINE_SITES (runtime/core/limits.h): then one copy, called */
	sb_printf(decl, "#if %d > STP_MAP_INLINE_SITES\n#define GM_%s__INLINE noinline\n#else\n"
		  "#define GM_%s__INLINE __always_inline\n#endif\n", map_sites[arr->index], arr->name, arr->name);
	emit_hash(arr, decl);
	emit_lookup(arr, decl);
	emit_access(arr, decl);
	/* the runtime lays the entry out by the same rule: checked once at load */
	if (arr->type == TY_STATS)
		sb_printf(init, "\t\tif (g_%s->agg->val_off != GM_%s__VAL) {\n\t\t\tstp_pmap_free(g_%s);\n", arr->name,
			  arr->name, arr->name);
	else
		sb_printf(init, "\t\tif (g_%s->val_off != GM_%s__VAL) {\n\t\t\tstp_map_free(g_%s);\n", arr->name,
			  arr->name, arr->name);
	sb_printf(init, "\t\t\tg_%s = NULL;\n\t\t\treturn -EINVAL;\n\t\t}\n", arr->name);
	free(end);
}

