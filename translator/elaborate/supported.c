/* supported.c - constructs pass 1 reads that later passes do not handle yet, embedded C and
 * guru-only calls outside guru mode, refused. Used by elaborate.c. */
#include "elaborate/elab.h"
#include "providers/perf.h"

#include <string.h>

/* ---- constructs pass 1 reads but later passes do not handle yet ---- */

int elab_embedded_allowed(Elab *el, SrcLoc loc)
{
	return el->s->guru || (loc.file && loc.file->is_tapset);
}

/* @perf("NAME"): a counter some probe of the program defines with perf....counter("NAME"). */
static void check_perf_counter(Elab *el, Expr *e)
{
	Expr *arg = e->args.len == 1 ? e->args.items[0] : NULL;

	if (!arg || arg->kind != EX_STRING) {
		elab_error(el, e->loc, "@perf needs the name of a counter as a literal string: @perf(\"NAME\")");
		return;
	}
	if (perf_counter_index(el->s, arg->str) < 0)
		elab_error(el, arg->loc, "@perf(\"%s\"): no perf counter of that name; one is defined by a probe "
			  "perf.type(N).config(M).counter(\"%s\")", arg->str, arg->str);
}

static int unsupported_expr(Expr *e, void *ctx)
{
	Elab *el = ctx;

	switch (e->kind) {
	case EX_TARGET:   /* targets_bind_program() binds those of the script's probes and functions */
		elab_error(el, e->loc, "target variable '%s' is only available in kernel.function(), "
			  "module().function() and kernel.statement() probes", e->str);
		break;
	case EX_AT:
		if (!strcmp(e->str, "perf"))
			check_perf_counter(el, e);
		else if (!is_stats_op(e->str) && !el->library)
			elab_error(el, e->loc, "@%s is not supported", e->str);
		break;
	case EX_EMBEDDED:
		if (!elab_embedded_allowed(el, e->loc))
			elab_error(el, e->loc, "embedded C is only allowed in guru mode (-g) or in the tapset library");
		break;
	case EX_AUTOCAST:
		elab_error(el, e->loc, "'%s' on a value whose type is not known: write @cast(value, \"type\") "
			  "(autocast knows calls of functions returning a @cast, and locals assigned only those)",
			  e->chain.len ? "->" : "&");
		break;
	default:
		break;
	}
	return 0;
}

/* Over what is left after alias expansion and pruning: the expanded probes
 * (alias bodies included) and the functions they use. */
void elab_check_supported(Elab *el)
{
	Program *prog = el->prog;
	AstVisitor v = { NULL, unsupported_expr, el };

	for (int i = 0; i < prog->embedded.len; i++)
		unsupported_expr(prog->embedded.items[i], el);
	/* embedded-C functions have no body: they were checked before pruning */
	ast_walk_program(prog, &v);
}

/* A library function marked guru in its embedded C (set_kernel_long, set_user_int, printk, raise...)
 * writes memory or acts on the kernel: only a guru-mode script may call it.  Over the resolved calls. */
static int guru_call(Expr *e, void *ctx)
{
	Elab *el = ctx;

	if (e->kind == EX_CALL && e->fn && e->fn->embedded && strstr(e->fn->embedded, "/* guru */") &&
	    !elab_embedded_allowed(el, e->loc))
		elab_error(el, e->loc, "function '%s' is guru-mode only: it needs guru mode (-g)", e->fn->name);
	return 0;
}

void elab_check_guru_calls(Elab *el)
{
	AstVisitor v = { NULL, guru_call, el };

	ast_walk_program(el->prog, &v);
}
