/* translate.c - pass 3: turns the elaborated program into the module's C:
 * globals, frames, one C function per probe body and script function. */
#include "translate.h"
#include "codegen/gen.h"
#include "builtins.h"
#include "format.h"
#include "parser.h"
#include "providers/provider.h"
#include "dwarf/dwarf.h"
#include "usyms.h"

#include <string.h>

/* ---- whole functions ---- */

/* A comment naming where in the script the C below comes from: "probe POINT at FILE:LINE:COL". */
static void source_comment(StrBuf *code, const char *what, const char *name, SrcLoc loc)
{
	char *safe = xasprintf("%s %s at %s:%d:%d", what, name ? name : "", loc.file ? loc.file->name : "?", loc.line,
			       loc.col);

	/* a point or file name may hold "*" followed by "/": never end the comment early */
	for (char *p = safe; *p; p++)
		if (p[0] == '*' && p[1] == '/')
			p[1] = '|';
	sb_printf(code, "/* %s */\n", safe);
	free(safe);
}

static void frame_members(StrBuf *frame, PtrVec *syms)
{
	for (int i = 0; i < syms->len; i++) {
		Symbol *sym = syms->items[i];
		if (sym->type == TY_STRING)
			sb_printf(frame, "\tchar l_%s[MAXSTRINGLEN];\n", sym->name);
		else
			sb_printf(frame, "\tint64_t l_%s;\n", sym->name);
	}
}

static void init_locals(Gen *g, PtrVec *syms)
{
	for (int i = 0; i < syms->len; i++) {
		Symbol *sym = syms->items[i];
		if (sym->type == TY_STRING)
			line(g, "f->l_%s[0] = 0;", sym->name);
		else
			line(g, "f->l_%s = 0;", sym->name);
	}
}

/* Generates one C function; frame struct text goes to frames, code to code.  light = a probe's
 * index + 1 to generate its body for the light hit path (no prologue: neither context nor frame
 * is used), 0 otherwise.  Returns 0, having written nothing, when a light body turns out to need
 * the context or the frame after all (the caller then generates it normally). */
static int gen_function_body(Session *s, const char *name, const char *signature, const char *prologue,
			     PtrVec *params, PtrVec *locals, Stmt *body, Function *fn, StrBuf *frames, StrBuf *code,
			     StrBuf *tables, int light)
{
	Gen g = { .s = s, .fn = fn, .indent = 1, .tables = tables, .light = light };
	StrBuf frame;

	sb_init(&g.body);
	sb_init(&g.decls);
	sb_init(&frame);
	g.frame = &frame;
	if (params)
		frame_members(&frame, params);
	frame_members(&frame, locals);
	if (fn && fn->ret == TY_STRING)
		sb_puts(&frame, "\tchar retval[MAXSTRINGLEN];\n");
	else if (fn && fn->ret == TY_LONG)
		sb_puts(&frame, "\tint64_t retval;\n");
	init_locals(&g, locals);
	if (fn && fn->ret == TY_STRING)
		line(&g, "f->retval[0] = 0;");
	else if (fn && fn->ret == TY_LONG)
		line(&g, "f->retval = 0;");
	gen_block(&g, body);

	if (light && (frame.len || !light_code_ok(g.decls.data ? g.decls.data : "") ||
		      !light_code_ok(g.body.data ? g.body.data : ""))) {
		sb_free(&g.body);
		sb_free(&g.decls);
		sb_free(&frame);
		return 0;
	}
	sb_printf(frames, "struct frame_%s {\n\tchar unused_;\n%s};\n\n", name, frame.data ? frame.data : "");
	if (light) {
		/* 1 unless -DSTP_NO_LIGHT, or MAXACTION below its statements (runtime/core/probe.c) */
		sb_printf(code, "#define STP_LIGHT_PROBE_%d STP_LIGHT_OK(%d)   /* the light hit path */\n", light - 1,
			  g.light_actions);
		prologue = "";
	}
	sb_printf(code, "%s\n{\n%s%s", signature, prologue, g.decls.data ? g.decls.data : "");
	sb_puts(code, g.body.data);
	if (g.out_used)
		sb_puts(code, "out:\n\t;\n");
	sb_puts(code, "}\n\n");
	sb_free(&g.body);
	sb_free(&g.decls);
	sb_free(&frame);
	return 1;
}

/* Whether an embedded-C function's frame member may also carry the script name NAME: not one of
 * the frame's own names, nor a C keyword (SystemTap identifiers may be). */
static int embedded_name_is_free(const char *name)
{
	static const char *const taken[] = {
		"unused_", "retval", "__retvalue", "auto", "break", "case", "char", "const", "continue",
		"default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
		"int", "long", "register", "restrict", "return", "short", "signed", "sizeof", "static",
		"struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "current",
	};

	if (!strncmp(name, "l_", 2))
		return 0;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (!strcmp(name, taken[i]))
			return 0;
	return 1;
}

/* The frame of an embedded-C function written for SystemTap's older interface, which names its
 * arguments and result through THIS (THIS->name, THIS->__retvalue): each member also carries
 * that name, in an anonymous union with ours (l_name, retval). */
static void embedded_old_api_members(StrBuf *frame, Function *f, int is_str)
{
	for (int i = 0; i < f->params.len; i++) {
		Symbol *sym = f->params.items[i];
		const char *ty = sym->type == TY_STRING ? "char" : "int64_t";
		const char *dim = sym->type == TY_STRING ? "[MAXSTRINGLEN]" : "";

		if (embedded_name_is_free(sym->name))
			sb_printf(frame, "\tunion { %s l_%s%s; %s %s%s; };\n", ty, sym->name, dim, ty, sym->name, dim);
		else
			sb_printf(frame, "\t%s l_%s%s;\n", ty, sym->name, dim);
	}
	if (is_str)
		sb_puts(frame, "\tunion { char retval[MAXSTRINGLEN]; char __retvalue[MAXSTRINGLEN]; };\n");
	else
		sb_puts(frame, "\tunion { int64_t retval; int64_t __retvalue; };\n");
}

/* An embedded-C function: the same frame and calling convention as script
 * functions, with SystemTap's macros for its arguments and result. */
static void gen_embedded_function(Function *f, StrBuf *frames, StrBuf *code)
{
	int is_str = f->ret == TY_STRING;

	sb_printf(frames, "struct frame_fn_%s {\n\tchar unused_;\n", f->name);
	if (strstr(f->embedded, "THIS->"))
		embedded_old_api_members(frames, f, is_str);
	else {
		frame_members(frames, &f->params);
		sb_puts(frames, is_str ? "\tchar retval[MAXSTRINGLEN];\n" : "\tint64_t retval;\n");
	}
	sb_puts(frames, "};\n\n");
	sb_printf(code, "static void fn_%s(struct stp_context *c, struct frame_fn_%s *f)\n{\n", f->name, f->name);
	sb_puts(code, "#define CONTEXT c\n#define THIS f\n#define STAP_RETVALUE (f->retval)\n");
	for (int i = 0; i < f->params.len; i++) {
		Symbol *p = f->params.items[i];
		sb_printf(code, "#define STAP_ARG_%s (f->l_%s)\n", p->name, p->name);
	}
	if (is_str)
		sb_puts(code, "#define STAP_RETURN(v) do { stp_strlcpy(f->retval, (v), MAXSTRINGLEN); goto stp_out; } while (0)\n");
	else
		sb_puts(code, "#define STAP_RETURN(v) do { f->retval = (v); goto stp_out; } while (0)\n");
	sb_puts(code, "#define STAP_ERROR(...) do { if (!c->last_error) { snprintf(c->error_buf, sizeof(c->error_buf), "
		      "__VA_ARGS__); stp_error(c, c->error_buf); } goto stp_out; } while (0)\n");
	sb_puts(code, is_str ? "\tf->retval[0] = 0;\n" : "\tf->retval = 0;\n");
	sb_printf(code, "\t{\n%s\n\t}\n\tgoto stp_out;\nstp_out:\n\t;\n", f->embedded);
	sb_puts(code, "#undef CONTEXT\n#undef THIS\n#undef STAP_RETVALUE\n#undef STAP_RETURN\n#undef STAP_ERROR\n");
	for (int i = 0; i < f->params.len; i++)
		sb_printf(code, "#undef STAP_ARG_%s\n", ((Symbol *)f->params.items[i])->name);
	sb_puts(code, "}\n\n");
}

/* ---- locks: which globals each probe touches ---- */

typedef struct Access {
	char *mode;             /* per global: 0 none, 1 read, 2 write */
	PtrVec seen_fns;        /* functions already followed */
	AstVisitor v;
} Access;

static void access_sym(Access *acc, Symbol *sym, int write)
{
	if (!sym || sym->kind != SYM_GLOBAL)
		return;
	if (acc->mode[sym->index] < (write ? 2 : 1))
		acc->mode[sym->index] = (char)(write ? 2 : 1);
}

static int access_in_stmt(Stmt *st, void *ctx)
{
	if (st->kind == ST_DELETE)
		access_sym(ctx, st->expr->sym, 1);
	/* reading statistics merges the CPUs' accumulators; sorting reorders entries */
	if (st->kind == ST_FOREACH && st->array->kind != EX_AT && (st->array->sym->type == TY_STATS || st->sort_on))
		access_sym(ctx, st->array->sym, 1);
	return 0;
}

static int access_in_expr(Expr *e, void *ctx)
{
	Access *a = ctx;

	if (e->kind == EX_IDENT || e->kind == EX_INDEX)
		access_sym(a, e->sym, 0);
	/* x <<< v adds to this CPU's accumulator: a read lock is enough, and none at all for a
	 * statistic that only counts (stats_lockfree); reading statistics merges every CPU's, which
	 * needs the write lock */
	if (e->kind == EX_ASSIGN && e->op == AGG_ASSIGN && e->left->kind == EX_IDENT && stats_lockfree(e->left->sym))
		return ast_walk_expr(e->right, &a->v) ? 1 : AST_WALK_SKIP;
	if ((e->kind == EX_ASSIGN || e->kind == EX_INCDEC) && e->left->sym && e->op != AGG_ASSIGN)
		access_sym(a, e->left->sym, 1);
	if (e->kind == EX_AT && is_stats_op(e->str) && e->args.len)
		access_sym(a, ((Expr *)e->args.items[0])->sym, 1);
	/* k in a of statistics looks into every CPU's map */
	if (e->kind == EX_BINARY && e->op == IN && e->right->sym && e->right->sym->type == TY_STATS)
		access_sym(a, e->right->sym, 1);
	if (e->kind == EX_CALL && e->fn && first_visit(&a->seen_fns, e->fn))
		ast_walk_stmt(e->fn->body, &a->v);
	return 0;
}

static void gen_locks(Session *s, Probe *p, StrBuf *out)
{
	Program *prog = &s->prog;
	Access a = { .mode = xcalloc((size_t)prog->globals.len + 1, 1) };
	int n = 0;

	a.v = (AstVisitor){ access_in_stmt, access_in_expr, &a };
	ast_walk_stmt(p->body, &a.v);
	sb_printf(out, "static const struct stp_lock_req locks_probe_%d[] = {\n", p->index);
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (!a.mode[i])
			continue;
		sb_printf(out, "\t{ &lock_%s, %d },\n", g->name, a.mode[i] == 2);
		n++;
	}
	if (!n)
		sb_puts(out, "\t{ NULL, 0 },\n");
	sb_puts(out, "};\n");
	sb_printf(out, "#define NLOCKS_probe_%d %d\n\n", p->index, n);
	free(a.mode);
	free(a.seen_fns.items);
}

/* ---- globals ---- */

static const char *stp_type(Type t)
{
	return t == TY_STRING ? "STP_STRING" : "STP_LONG";
}

/* A scalar global as a module parameter (name=value at load). A global named like a kernel macro
 * (the tapset's VM_FAULT_ERROR...) would be expanded inside module_param_cb(): it is then no parameter. */
static void emit_param(StrBuf *decl, const char *name, const char *ops, const char *ref)
{
	sb_printf(decl, "#ifndef %s\nmodule_param_cb(%s, &%s, %s%s, 0444);\n#endif\n", name, name, ops, ref, name);
}

static void gen_globals(Session *s, StrBuf *decl, StrBuf *init, StrBuf *fini)
{
	Program *prog = &s->prog;

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		sb_printf(decl, "static stp_rwlock_t lock_%s;\n", g->name);
		if (g->type == TY_STATS) {
			gen_stats_global(g, decl, init, fini);
		} else if (g->is_array == 1) {
			sb_printf(decl, "static struct stp_map *g_%s;\n", g->name);
			sb_printf(init, "\t{\n\t\tstatic const u8 keytypes[] = { ");
			for (int k = 0; k < g->nkeys; k++)
				sb_printf(init, "%s%s", k ? ", " : "", stp_type(g->keytypes[k]));
			if (!g->nkeys)
				sb_puts(init, "0");
			sb_printf(init, " };\n\t\tg_%s = stp_map_new(\"%s\", %lld, %d, keytypes, %s, %d);\n", g->name,
				  g->name, (long long)(g->max_entries ? g->max_entries : 0), g->nkeys, stp_type(g->type),
				  g->wrap);
			sb_printf(init, "\t\tif (!g_%s)\n\t\t\treturn -ENOMEM;\n\t}\n", g->name);
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
			sb_printf(decl, "static int64_t g_%s = %s;\n", g->name, g->init ? c_long_literal(g->init->num) : "0");
			emit_param(decl, g->name, "stp_param_ops_long", "&g_");
		}
	}
}

/* ---- probe handlers, one per distinct body ---- */

/* text with probe index n's names ("probe_N", "PROBE_N", not followed by a digit) as "probe_#",
 * so that the handlers of two sites compare equal when only their names differ */
static void handler_normalize(StrBuf *key, const char *text, int n)
{
	char *num = xasprintf("_%d", n), *pos;
	size_t len = strlen(num);

	while ((pos = strstr(text, num)) != NULL) {
		int named = pos - text >= 5 && (!strncmp(pos - 5, "probe", 5) || !strncmp(pos - 5, "PROBE", 5)) &&
			    (pos[len] < '0' || pos[len] > '9');
		sb_printf(key, "%.*s", (int)(pos - text), text);
		sb_puts(key, named ? "_#" : num);
		text = pos + len;
	}
	sb_puts(key, text);
	free(num);
}

/* The handlers of every probe body into frames, code and tables (data: the static data they
 * use).  The sites of a wildcard point each have a body of their own after elaboration; those
 * whose generated handler, frame and locks are the same but for their names share the first
 * one's: shared[i] is the probe whose handler probe i's sites run (i itself if it has its own),
 * light[i] whether that handler takes the light hit path. */
static void gen_probe_handlers(Session *s, char *light, int *shared, StrBuf *frames, StrBuf *code, StrBuf *tables,
			       StrBuf *data)
{
	Program *prog = &s->prog;
	const char **point = xcalloc((size_t)prog->probes.len + 1, sizeof *point);
	StrMap seen = { 0 };
	PtrVec keys = { 0 };

	for (int i = s->derived.len - 1; i >= 0; i--) {
		DerivedProbe *dp = s->derived.items[i];
		point[dp->probe->index] = dp->written ? dp->written : dp->name;
	}
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		char *name = xasprintf("probe_%d", p->index);
		char *sig = xasprintf("static void probe_%d(struct stp_context *c)", p->index);
		/* the handler's frame is the bottom of the context's frame stack */
		char *prologue = xasprintf("\tstruct frame_probe_%d *f = &((union stp_frame *)c->frames)->probe_%d;\n",
					   p->index, p->index);
		StrBuf f, c, t, key;
		void **slot;

		sb_init(&f);
		sb_init(&c);
		sb_init(&t);
		sb_init(&key);
		light[p->index] = light_eligible(p) && gen_function_body(s, name, sig, prologue, NULL, &p->locals, p->body,
									 NULL, &f, &c, data, p->index + 1);
		if (!light[p->index])
			gen_function_body(s, name, sig, prologue, NULL, &p->locals, p->body, NULL, &f, &c, data, 0);
		gen_locks(s, p, &t);
		handler_normalize(&key, f.data ? f.data : "", p->index);
		sb_putc(&key, '\n');
		handler_normalize(&key, c.data ? c.data : "", p->index);
		sb_putc(&key, '\n');
		handler_normalize(&key, t.data ? t.data : "", p->index);
		slot = strmap_slot(&seen, key.data, 1);
		if (*slot) {
			shared[p->index] = p->handler = (int)(intptr_t)*slot - 1;
			light[p->index] = light[shared[p->index]];
			sb_free(&key);
		} else {
			*slot = (void *)(intptr_t)(p->index + 1);
			shared[p->index] = p->handler = p->index;
			vec_push(&keys, key.data);
			sb_puts(frames, f.data ? f.data : "");
			source_comment(code, "probe", point[p->index] ? point[p->index] : "", p->loc);
			sb_puts(code, c.data ? c.data : "");
			sb_puts(tables, t.data ? t.data : "");
		}
		sb_free(&f);
		sb_free(&c);
		sb_free(&t);
		free(name);
		free(sig);
		free(prologue);
	}
	for (int i = 0; i < keys.len; i++)
		free(keys.items[i]);
	free(keys.items);
	free(seen.keys);
	free(seen.values);
	free(point);
}

/* ---- the whole module ---- */

int translate(Session *s, StrBuf *out)
{
	Program *prog = &s->prog;
	StrBuf frames, code, gdecl, ginit, gfini, tables, data;
	char *light;            /* per probe body: generated for the light hit path */
	int *shared;            /* per probe body: the index of the probe whose handler it runs */

	if (check_generated(s))
		return diag_error_count();
	sb_init(&frames);
	sb_init(&code);
	sb_init(&gdecl);
	sb_init(&ginit);
	sb_init(&gfini);
	sb_init(&tables);
	sb_init(&data);

	gen_globals(s, &gdecl, &ginit, &gfini);
	if (gen_global_display(s, &code))
		add_display_probe(s);
	/* every function is declared before any body calls it */
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		sb_printf(&code, "static void fn_%s(struct stp_context *c, struct frame_fn_%s *f);\n", f->name, f->name);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->embedded) {
			gen_embedded_function(f, &frames, &code);
			continue;
		}
		char *name = xasprintf("fn_%s", f->name);
		char *sig = xasprintf("static void fn_%s(struct stp_context *c, struct frame_fn_%s *f)", f->name, f->name);
		source_comment(&code, "function", f->name, f->loc);
		gen_function_body(s, name, sig, "", &f->params, &f->locals, f->body, f, &frames, &code, &data, 0);
	}
	light = xcalloc((size_t)prog->probes.len + 1, 1);
	shared = xcalloc((size_t)prog->probes.len + 1, sizeof *shared);
	gen_probe_handlers(s, light, shared, &frames, &code, &tables, &data);

	sb_puts(out, "/* Generated by stap: do not edit. */\n");
	sb_printf(out, "#define STP_MODULE_NAME \"%s\"\n", s->module_name);
	for (int i = 0; i < s->defines.len; i++) {
		char *d = xstrdup(s->defines.items[i]);
		char *eq = strchr(d, '=');
		if (eq)
			*eq = ' ';
		sb_printf(out, "#define %s\n", d);
		free(d);
	}
	if (s->suppress_handler_errors)
		sb_puts(out, "#define STP_SUPPRESS_HANDLER_ERRORS 1\n");
	sb_printf(out, "#define STP_CALL_DEPTH %d   /* the deepest call chain */\n", prog->call_depth);
	sb_printf(out, "#define STP_RECURSIVE %d\n", prog->recursive);
	sb_puts(out, "#include \"runtime.h\"\n\n");
	if (usyms_needed(s))
		usyms_emit(s, out);
	if (prog->embedded.len) {
		sb_puts(out, "/* embedded C of the script (guru mode) and the tapset library */\n");
		for (int i = 0; i < prog->embedded.len; i++)
			sb_printf(out, "%s\n", ((Expr *)prog->embedded.items[i])->str);
		sb_puts(out, "\n");
	}
	if (data.len) {
		sb_puts(out, "/* static data of the handlers (compiled regular expressions ...) */\n");
		sb_puts(out, data.data);
		sb_puts(out, "\n");
	}
	sb_puts(out, "/* globals */\n");
	sb_puts(out, gdecl.data);
	sb_puts(out, "\n/* frames: locals and temporaries of probes and functions */\n");
	sb_puts(out, frames.data);
	sb_puts(out, "union stp_frame {\n");
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		sb_printf(out, "\tstruct frame_fn_%s fn_%s;\n", f->name, f->name);
	}
	for (int i = 0; i < prog->probes.len; i++)
		if (shared[i] == i)
			sb_printf(out, "\tstruct frame_probe_%d probe_%d;\n", i, i);
	sb_puts(out, "};\n#define STP_FRAME_SIZE sizeof(union stp_frame)\n");
	sb_puts(out, "#include \"core/frames.h\"\n\n");
	sb_puts(out, "/* probe bodies and functions */\n");
	sb_puts(out, code.data);
	sb_puts(out, "/* globals each probe locks */\n");
	sb_puts(out, tables.data);

	sb_puts(out, "/* probe descriptors */\n");
	sb_printf(out, "static const struct stp_probe_desc stp_descs[%d] = {\n", s->derived.len);
	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		int h = shared[dp->probe->index];
		sb_printf(out, "\t{ .handler = probe_%d, .locks = locks_probe_%d, .nlocks = NLOCKS_probe_%d, .pp = ",
			  h, h, h);
		emit_c_string(out, dp->name);
		if (dp->written && strcmp(dp->written, dp->name)) {
			sb_puts(out, ", .pn = ");
			emit_c_string(out, dp->written);
		}
		if (light[h])
			sb_printf(out, ", .light = STP_LIGHT_PROBE_%d", h);
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n\n");

	dwarf_emit_support(s, out);
	sb_puts(out, "/* probe families */\n");
	{
		StrBuf reg;
		sb_init(&reg);
		/* user modules' files are looked up before any probe can fire */
		if (usyms_needed(s))
			sb_puts(&reg, "\t{ \"umods\", stp_umods_start, stp_umods_stop },\n");
		/* armed in the registry's order, disarmed in reverse */
		for (int f = 0; provider_at(f); f++) {
			const ProbeProvider *prov = provider_at(f);
			DerivedProbe **dps = xcalloc((size_t)s->derived.len + 1, sizeof *dps);
			int n = 0;
			for (int i = 0; i < s->derived.len; i++) {
				DerivedProbe *dp = s->derived.items[i];
				if (dp->provider == prov)
					dps[n++] = dp;
			}
			if (n) {
				const char *cname = provider_cname(prov);
				prov->emit(s, dps, n, out);
				sb_printf(&reg, "\t{ \"%s\", stp_%s_register, stp_%s_unregister },\n", cname, cname, cname);
			}
			free(dps);
		}
		sb_puts(out, "static const struct stp_provider stp_providers[] = {\n");
		sb_puts(out, reg.data);
		sb_puts(out, "};\n\n");
		sb_free(&reg);
	}

	sb_puts(out, "static int stp_globals_init(void)\n{\n");
	for (int i = 0; i < prog->globals.len; i++)
		sb_printf(out, "\tstp_rwlock_init(&lock_%s);\n", ((Symbol *)prog->globals.items[i])->name);
	sb_puts(out, ginit.data);
	sb_puts(out, "\treturn 0;\n}\n\n");
	sb_puts(out, "static void stp_globals_free(void)\n{\n");
	sb_puts(out, gfini.data);
	sb_puts(out, "}\n\n");
	sb_puts(out, "#include \"core/module.c\"\n");

	sb_free(&frames);
	sb_free(&code);
	sb_free(&gdecl);
	sb_free(&ginit);
	sb_free(&gfini);
	sb_free(&tables);
	sb_free(&data);
	free(light);
	free(shared);
	return 0;
}
