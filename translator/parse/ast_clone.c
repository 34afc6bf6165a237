/* ast_clone.c - deep copies of statements, expressions and probe points, so
 * each expansion of a probe alias gets a body with its own locals (pass 2). */
#include "parse/ast.h"

#include <string.h>

static void clone_exprs(PtrVec *dst, const PtrVec *src)
{
	PtrVec v = { 0 };
	for (int i = 0; i < src->len; i++)
		vec_push(&v, expr_clone(src->items[i]));
	*dst = v;
}

Expr *expr_clone(const Expr *e)
{
	Expr *c;

	if (!e)
		return NULL;
	c = xmalloc(sizeof *c);
	*c = *e;
	c->sym = NULL;
	c->left = expr_clone(e->left);
	c->right = expr_clone(e->right);
	c->cond = expr_clone(e->cond);
	clone_exprs(&c->args, &e->args);
	memset(&c->chain, 0, sizeof c->chain);
	for (int i = 0; i < e->chain.len; i++) {
		const ChainItem *it = e->chain.items[i];
		ChainItem *n = xmalloc(sizeof *n);
		*n = *it;
		n->index = expr_clone(it->index);
		vec_push(&c->chain, n);
	}
	return c;
}

Stmt *stmt_clone(const Stmt *st)
{
	Stmt *c;

	if (!st)
		return NULL;
	c = xmalloc(sizeof *c);
	*c = *st;
	memset(&c->body, 0, sizeof c->body);
	for (int i = 0; i < st->body.len; i++)
		vec_push(&c->body, stmt_clone(st->body.items[i]));
	c->expr = expr_clone(st->expr);
	c->init = expr_clone(st->init);
	c->step = expr_clone(st->step);
	c->then = stmt_clone(st->then);
	c->els = stmt_clone(st->els);
	clone_exprs(&c->keys, &st->keys);
	c->value = expr_clone(st->value);
	c->array = expr_clone(st->array);
	c->limit = expr_clone(st->limit);
	clone_exprs(&c->slice, &st->slice);
	c->catch_var = expr_clone(st->catch_var);
	return c;
}

ProbePoint *point_clone(const ProbePoint *pp)
{
	ProbePoint *c = xmalloc(sizeof *c);

	*c = *pp;
	memset(&c->components, 0, sizeof c->components);
	for (int i = 0; i < pp->components.len; i++) {
		const ProbePointComponent *comp = pp->components.items[i];
		ProbePointComponent *n = xmalloc(sizeof *n);
		*n = *comp;
		n->arg = expr_clone(comp->arg);
		memset(&n->alts, 0, sizeof n->alts);
		for (int j = 0; j < comp->alts.len; j++)
			vec_push(&n->alts, point_clone(comp->alts.items[j]));
		vec_push(&c->components, n);
	}
	c->cond = expr_clone(pp->cond);
	return c;
}
