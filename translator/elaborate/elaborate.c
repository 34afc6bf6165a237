/* elaborate.c - pass 2's driver: probe points expanded, target variables bound, then resolution,
 * inference and checks (elab.h's files) in order; C names made unique. Called by the driver. */
#include "elaborate/elaborate.h"
#include "elaborate/elab.h"
#include "elaborate/autocast.h"
#include "elaborate/expand.h"
#include "elaborate/optimize.h"
#include "elaborate/tapsets.h"
#include "targets/bind.h"

#include <string.h>

static void check_declarations(Elab *el)
{
	Program *prog = el->prog;

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		g->index = i;
		for (int j = 0; j < i; j++) {
			Symbol *o = prog->globals.items[j];
			if (!strcmp(o->name, g->name) && ((!o->is_private && !g->is_private) || o->loc.file == g->loc.file))
				elab_error(el, g->loc, "global '%s' is declared twice", g->name);
		}
		if (g->init)
			g->type = g->init->kind == EX_STRING ? TY_STRING : TY_LONG;
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		f->index = i;
		if (f->embedded && strstr(f->embedded, "/* pure */"))
			f->pure = 1;
		for (int j = 0; j < f->params.len; j++) {
			Symbol *p = f->params.items[j];
			p->index = j;
			p->is_array = 0;
			if (f->embedded && p->type == TY_UNKNOWN)
				p->type = TY_LONG;
		}
	}
}

/* One name may have several definitions of different arities (SystemTap's overloads), not two of
 * one arity in one scope: the script, the library, or one file for private ones.  Checked before
 * unused functions are dropped. */
static void check_function_definitions(Elab *el)
{
	Program *prog = el->prog;

	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		for (int j = 0; j < i; j++) {
			Function *o = prog->functions.items[j];
			if (!strcmp(o->name, f->name) && o->params.len == f->params.len &&
			    ((!o->is_private && !f->is_private && o->loc.file->is_tapset == f->loc.file->is_tapset) ||
			     o->loc.file == f->loc.file)) {
				if (f->has_priority || o->has_priority)
					elab_error(el, f->loc, "function '%s' is defined twice: overloads of one number of "
						  "parameters (chosen at run time by priority and 'next') are not supported",
						  f->name);
				else
					elab_error(el, f->loc, "function '%s' is defined twice", f->name);
				break;
			}
		}
	}
}

/* Private names, names defined both by the script and the library, and the overloads of a name
 * (one per arity: NAME__aN) get distinct C names. */
static void make_c_names_unique(Program *prog)
{
	StrMap seen = { 0 };

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (strmap_get(&seen, g->name))
			g->name = xasprintf("%s__%d", g->name, i);
		strmap_put(&seen, g->name, g);
	}
	memset(&seen, 0, sizeof seen);
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		f->cname = f->name;
		for (int j = 0; j < prog->functions.len; j++) {
			Function *o = prog->functions.items[j];
			if (!strcmp(o->name, f->name) && o->params.len != f->params.len) {
				f->cname = xasprintf("%s__a%d", f->name, f->params.len);
				f->overloaded = 1;
				break;
			}
		}
		if (strmap_get(&seen, f->cname))
			f->cname = xasprintf("%s__%d", f->cname, i);
		strmap_put(&seen, f->cname, f);
	}
}

/* The note under an error in an expanded probe: the aliases it came through. */
static const char *probe_note(Probe *p)
{
	if (!p->note)
		p->note = xasprintf("in probe %s (from the script's probe at %s:%d:%d)", p->chain,
				    p->loc.file ? p->loc.file->name : "?", p->loc.line, p->loc.col);
	return p->note;
}

static void run_inference(Elab *el)
{
	Program *prog = el->prog;

	for (int round = 0; round < 64; round++) {
		el->changed = 0;
		for (int i = 0; i < prog->functions.len; i++) {
			Function *f = prog->functions.items[i];
			el->fn = f;
			elab_infer_stmt(el, f->body);
		}
		el->fn = NULL;
		for (int i = 0; i < prog->probes.len; i++)
			elab_infer_stmt(el, ((Probe *)prog->probes.items[i])->body);
		if (!el->changed)
			break;
	}
	/* one more round only to report conflicts, now that types are settled */
	el->reporting = 1;
	for (int i = 0; i < prog->functions.len; i++) {
		el->fn = prog->functions.items[i];
		elab_infer_stmt(el, el->fn->body);
	}
	el->fn = NULL;
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		diag_set_context(&el->s->diag, p->chain ? probe_note(p) : NULL);
		elab_infer_stmt(el, p->body);
	}
	diag_set_context(&el->s->diag, NULL);
}

static int returns_value(Stmt *st, void *ctx)
{
	(void)ctx;
	return st->kind == ST_RETURN && st->expr;
}

static void check_resolved_types(Elab *el, PtrVec *syms, const char *where)
{
	for (int i = 0; i < syms->len; i++) {
		Symbol *sym = syms->items[i];
		if (sym->type == TY_UNKNOWN)
			elab_error(el, sym->loc, "cannot infer the type of %s '%s'%s", sym->kind == SYM_GLOBAL ? "global" : "variable",
				  sym->name, where);
		for (int k = 0; sym->is_array == 1 && k < sym->nkeys; k++) {
			if (sym->keytypes[k] == TY_UNKNOWN)
				elab_error(el, sym->loc, "cannot infer the type of key %d of array '%s'", k + 1, sym->name);
		}
	}
}

static void resolve_program(Elab *el)
{
	Program *prog = el->prog;

	check_declarations(el);
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		el->locals = &p->locals;
		diag_set_context(&el->s->diag, p->chain ? probe_note(p) : NULL);
		elab_resolve_stmt(el, p->body);
	}
	diag_set_context(&el->s->diag, NULL);
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		el->fn = f;
		el->locals = &f->locals;
		elab_resolve_stmt(el, f->body);
	}
	el->fn = NULL;
	{
		AstVisitor foreach_bodies = { elab_check_foreach_body, NULL, el };
		ast_walk_program(prog, &foreach_bodies);
	}
}

/* A call whose value is used must call a function that returns one. */
static int returns_value(Stmt *st, void *ctx);

static int valueless_call(Expr *e, void *ctx)
{
	AstVisitor returns = { returns_value, NULL, NULL };

	if (e->kind == EX_CALL && e->fn && e->fn->ret == TY_UNKNOWN && !e->discarded &&
	    !ast_walk_stmt(e->fn->body, &returns))
		elab_error(ctx, e->loc, "cannot infer the type of the value of '%s()': the function returns nothing",
			  e->fn->name);
	return 0;
}

static void check_types(Elab *el)
{
	Program *prog = el->prog;
	AstVisitor calls = { NULL, valueless_call, el };

	for (int i = 0; i < prog->probes.len; i++)
		ast_walk_stmt(((Probe *)prog->probes.items[i])->body, &calls);
	for (int i = 0; i < prog->functions.len; i++)
		ast_walk_stmt(((Function *)prog->functions.items[i])->body, &calls);

	/* unused variables get a default type rather than an error */
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (!g->read && !g->written && g->type == TY_UNKNOWN) {
			g->type = TY_LONG;
			if (g->is_array == -1)
				g->is_array = 0;
		}
		if (g->is_array == -1)
			g->is_array = 0;
	}
	check_resolved_types(el, &prog->globals, "");
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		AstVisitor returns = { returns_value, NULL, NULL };
		if (f->ret == TY_UNKNOWN && ast_walk_stmt(f->body, &returns))
			elab_error(el, f->loc, "cannot infer the return type of function '%s'", f->name);
		check_resolved_types(el, &f->params, xasprintf(" in function '%s'", f->name));
		check_resolved_types(el, &f->locals, xasprintf(" in function '%s'", f->name));
	}
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		diag_set_context(&el->s->diag, p->chain ? probe_note(p) : NULL);
		check_resolved_types(el, &p->locals, "");
	}
	diag_set_context(&el->s->diag, NULL);
}

int elaborate(Session *s)
{
	Elab el = { .s = s, .prog = &s->prog };
	Program *prog = &s->prog;
	int errors;

	errors = tapsets_load_needed(s);
	if (errors)
		return errors;
	errors = expand_probes(s);
	if (errors)
		return errors;
	if (!s->derived.len && !s->list_pattern) {
		elab_error(&el, (SrcLoc){0}, "no probes found");
		return el.errors;
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->embedded && !elab_embedded_allowed(&el, f->loc))
			elab_error(&el, f->loc, "embedded C function '%s' is only allowed in guru mode (-g) or in the "
				  "tapset library", f->name);
	}
	check_function_definitions(&el);
	if (el.errors)
		return el.errors;
	prune_unused(s);
	autocast_program(prog);
	elab_elide_early(&el);
	el.errors += targets_bind_program(s);
	if (el.errors)
		return el.errors;
	elab_check_supported(&el);
	if (el.errors)
		return el.errors;
	resolve_program(&el);
	if (el.errors)
		return el.errors;
	elab_check_guru_calls(&el);
	if (el.errors)
		return el.errors;
	run_inference(&el);
	check_types(&el);
	if (el.errors)
		return el.errors;
	if (!s->unoptimized)
		elide_unused_locals(s);
	for (int i = 0; i < prog->functions.len; i++)
		((Function *)prog->functions.items[i])->index = i;
	for (int i = 0; i < prog->globals.len; i++)
		((Symbol *)prog->globals.items[i])->index = i;
	elab_analyze_calls(prog);
	for (int i = 0; i < prog->functions.len; i++)
		((Function *)prog->functions.items[i])->index = i;
	make_c_names_unique(prog);
	return el.errors;
}

/* --dump-functions: every function of the library, resolved and typed. */
int elaborate_library(Session *s)
{
	Elab el = { .s = s, .prog = &s->prog, .library = 1 };

	s->prog.probes.len = 0;   /* alias bodies are checked when a script uses them */
	elab_check_supported(&el);
	resolve_program(&el);
	if (!el.errors)
		run_inference(&el);
	return el.errors;
}
