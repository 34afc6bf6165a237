/* globals.c - the module's globals: a lock each, arrays as preallocated maps (their gm_ functions,
 * mapfuncs.c), statistics, scalars as module parameters; each handler's lock table. */
#include "kmodule/kmodule.h"
#include "codegen/gen.h"

#include <stdlib.h>

/* ---- globals ---- */

static const char *stp_type(Type t)
{
	return t == TY_STRING ? "STP_STRING" : "STP_LONG";
}

/* An array's set-up opens a block with its keys' types (keytypes[], for stp_map_new and stp_pmap_new). */
static void open_keytypes(const Symbol *arr, StrBuf *init)
{
	sb_puts(init, "\t{\n\t\tstatic const u8 keytypes[] = { ");
	for (int k = 0; k < arr->nkeys; k++)
		sb_printf(init, "%s%s", k ? ", " : "", stp_type(arr->keytypes[k]));
	if (!arr->nkeys)
		sb_puts(init, "0");
	sb_puts(init, " };\n");
}

/* A scalar global as a module parameter (name=value at load). A global named like a kernel macro
 * (the tapset's VM_FAULT_ERROR...) would be expanded inside module_param_cb(): it is then no parameter. */
static void emit_param(StrBuf *decl, const char *name, const char *ops, const char *ref)
{
	sb_printf(decl, "#ifndef %s\nmodule_param_cb(%s, &%s, %s%s, 0444);\n#endif\n", name, name, ops, ref, name);
}

/* A statistic: per-CPU accumulators (a pmap for an array) shaped by its uses (cg_stats_shape). */
static void stats_global(CgState *cg, const int *map_sites, Symbol *sym, StrBuf *decl, StrBuf *init, StrBuf *fini)
{
	static const char *const types[] = { "STP_HIST_NONE", "STP_HIST_LOG", "STP_HIST_LINEAR" };
	CgStatShape sh = cg_stats_shape(cg, sym);
	char *shape = xasprintf("%s, %s, %s, %s, %d, %d", types[sh.htype], cg_long_literal(sh.low),
				cg_long_literal(sh.high), cg_long_literal(sh.width), sh.shift, sh.variance);

	if (sym->is_array == 1) {
		sb_printf(decl, "static struct stp_pmap *g_%s;\n", sym->name);
		open_keytypes(sym, init);
		sb_printf(init, "\t\tg_%s = stp_pmap_new(\"%s\", %lld, %d, keytypes, %d, %s);\n", sym->name,
			  sym->name, (long long)sym->max_entries, sym->nkeys, sym->wrap, shape);
		sb_printf(init, "\t\tif (!g_%s)\n\t\t\treturn -ENOMEM;\n", sym->name);
		km_map_functions(map_sites, sym, decl, init);
		sb_puts(init, "\t}\n");
		sb_printf(fini, "\tstp_pmap_free(g_%s);\n", sym->name);
	} else {
		sb_printf(decl, "static struct stp_stat *g_%s;\n", sym->name);
		sb_printf(init, "\tg_%s = stp_stat_new(%s);\n", sym->name, shape);
		sb_printf(init, "\tif (!g_%s)\n\t\treturn -ENOMEM;\n", sym->name);
		sb_printf(fini, "\tstp_stat_free(g_%s);\n", sym->name);
	}
	free(shape);
}

void km_globals(Session *s, CgParts *parts)
{
	Program *prog = &s->prog;
	StrBuf *decl = &parts->globals, *init = &parts->globals_init, *fini = &parts->globals_free;
	int *map_sites = km_count_map_sites(prog);   /* per global: the places naming it */

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		sb_printf(decl, "static stp_rwlock_t lock_%s;\n", g->name);
		if (g->type == TY_STATS) {
			stats_global(s->cg, map_sites, g, decl, init, fini);
		} else if (g->is_array == 1) {
			sb_printf(decl, "static struct stp_map *g_%s;\n", g->name);
			open_keytypes(g, init);
			sb_printf(init, "\t\tg_%s = stp_map_new(\"%s\", %lld, %d, keytypes, %s, %d);\n", g->name,
				  g->name, (long long)(g->max_entries ? g->max_entries : 0), g->nkeys, stp_type(g->type),
				  g->wrap);
			sb_printf(init, "\t\tif (!g_%s)\n\t\t\treturn -ENOMEM;\n", g->name);
			km_map_functions(map_sites, g, decl, init);
			sb_puts(init, "\t}\n");
			sb_printf(fini, "\tstp_map_free(g_%s);\n", g->name);
		} else if (g->type == TY_STRING) {
			/* initialized statically: module parameters (name=value) are set after */
			sb_printf(decl, "static char g_%s[MAXSTRINGLEN]", g->name);
			if (g->init) {
				sb_puts(decl, " = ");
				emit_c_string(decl, g->init->str);
			}
			sb_puts(decl, ";\n");
			emit_param(decl, g->name, "stp_param_ops_string", "g_");
		} else {
			sb_printf(decl, "static int64_t g_%s = %s;\n", g->name, g->init ? cg_long_literal(g->init->num) : "0");
			emit_param(decl, g->name, "stp_param_ops_long", "&g_");
		}
	}
	free(map_sites);
}

/* A handler's lock table: each global it touches, for writing (1) or reading (0). */
void km_lock_table(Session *s, const Probe *p, const char *mode, StrBuf *out)
{
	Program *prog = &s->prog;
	int n = 0;

	sb_printf(out, "static const struct stp_lock_req locks_probe_%d[] = {\n", p->index);
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (!mode[i])
			continue;
		sb_printf(out, "\t{ &lock_%s, %d },\n", g->name, mode[i] == 2);
		n++;
	}
	if (!n)
		sb_puts(out, "\t{ NULL, 0 },\n");
	sb_puts(out, "};\n");
	sb_printf(out, "#define NLOCKS_probe_%d %d\n\n", p->index, n);
}
