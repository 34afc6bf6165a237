/* bind.c - pass 2 for target variables, the binding pass: walks every probe and function body and
 * binds $var, $var->a[i], &..., $var$, $$vars, $return, @cast, @var, @entry, @defined, @choose_defined,
 * @param and the families' context variables, asking the DWARF leaf (dwarf/dwvars.c) or the BTF leaf
 * (btf/btfvars.c) for each target's access record (access.h) and rewriting it into an EX_BOUND node;
 * prunes the branches @defined rules out. Called by elaborate.c; codegen/targetvars.c writes the C. */
#include "targets/bind.h"
#include "targets/access.h"
#include "dwarf/dwvars.h"
#include "btf/btfvars.h"
#include "providers/provider.h"

#include <stdarg.h>
#include <string.h>

typedef struct Bind {
	Session *s;
	Probe *probe;            /* the probe being bound, NULL in a function */
	DerivedProbe *dp;        /* its DWARF derived probe, NULL when it has none */
	TgSite *site;
	int quiet;               /* inside @defined / the first choice of @choose_defined */
	int failed;              /* a quiet binding failed */
	int errors;
	int entry;               /* inside what is evaluated at function entry */
	int kret;                /* no DWARF site, but every point is a kprobe.function(...).return: @entry
	                          * values are saved by the kretprobe's entry handler (dp is the first) */
	DwarfBind dw;            /* the DWARF leaf's questions at site (the scopes it read there) */
	AstVisitor v;
	PtrVec params;           /* Expr* (EX_AT "param"): the target variables the probe's alias declared */
	const char *nodwarf;     /* a point of the probe with a site but no DWARF scope (a process probe from
	                          * the symbol table, a .plt or .absolute one): its name, for the errors */
	StrMap reported;         /* "file:line:col" of errors shown: one per place, not one per site */
} Bind;

static int bind_visit(Expr *e, void *ctx);
static int const_cond(const Expr *e, int64_t *val);

static void berr(Bind *b, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void berr(Bind *b, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;
	char *key;

	if (b->quiet) {
		b->failed = 1;
		return;
	}
	b->errors++;
	/* a body copied to many sites would repeat the same error at the same place */
	key = xasprintf("%p:%d:%d", (const void *)loc.file, loc.line, loc.col);
	if (strmap_get(&b->reported, key)) {
		free(key);
		return;
	}
	strmap_put(&b->reported, key, key);
	va_start(ap, fmt);
	diag_vat(&b->s->diag, loc, "semantic error", fmt, ap);
	va_end(ap);
}

/* The DWARF leaf, asked from where the binding is (b's site, @defined, @entry). */
static DwarfBind *dwarf_leaf(Bind *b)
{
	free(b->dw.err);         /* nothing left of an earlier question */
	b->dw.err = NULL;
	b->dw.err_shown = 0;
	b->dw.s = b->s;
	b->dw.site = b->site;
	b->dw.quiet = b->quiet;
	b->dw.in_entry = b->entry;
	return &b->dw;
}

/* The DWARF leaf could not answer: its error reported here (or, when it reported one itself,
 * counted), as berr would have done where it failed. */
static void dwarf_failed(Bind *b)
{
	if (b->dw.err) {
		berr(b, b->dw.err_loc, "%s", b->dw.err);
		free(b->dw.err);
		b->dw.err = NULL;
	} else if (b->dw.err_shown) {
		if (b->quiet)
			b->failed = 1;
		else
			b->errors++;
		b->dw.err_shown = 0;
	}
}

/* ---- accesses in EX_BOUND nodes ---- */

/* Turns e into the EX_BOUND node of a; the chain's computed indexes are already in e->args. */
static void make_dwarf(Expr *e, TgAccess *a)
{
	e->kind = EX_BOUND;
	e->bound = a;
	e->chain.len = 0;
	e->type = a->what == TGA_PRETTY || a->what == TGA_VARS ? TY_STRING : TY_LONG;
}

/* In a .return probe, a target read at the function's entry: e becomes a saved value. */
static void wrap_entry(Bind *b, Expr *e)
{
	Expr *inner = xcalloc(1, sizeof *inner);
	TgAccess *a = tg_access_new(TGA_ENTRY);

	*inner = *e;
	memset(&e->args, 0, sizeof e->args);
	memset(&e->chain, 0, sizeof e->chain);
	e->kind = EX_BOUND;
	e->left = inner;
	e->right = e->cond = NULL;
	e->type = inner->type;
	a->dp = b->dp;
	a->site = b->site;
	a->name = xstrdup(inner->bound ? inner->bound->name : "@entry");
	e->bound = a;
	tg_add_entry_expr(b->s, b->dp, e);
}

static int in_dwarf_probe(Bind *b, Expr *e, const char *what)
{
	if (b->site)
		return 1;
	if (b->nodwarf) {
		(void)what;
		berr(b, e->loc, "'%s' is not available: no DWARF describes probe point '%s' (a probe from the symbol "
		     "table, a .plt or an .absolute one has no target variables)", e->str, b->nodwarf);
		return 0;
	}
	if (!b->probe)
		berr(b, e->loc, "%s can only be used in probes on kernel functions and statements, not in a function",
		     what);
	else
		berr(b, e->loc, "%s can only be used in kernel.function(), module().function(), kernel.statement() "
		     "and kernel.trace() probes", what);
	return 0;
}

static void bind_args(Bind *b, Expr *e, int from)
{
	for (int i = from; i < e->args.len; i++)
		ast_walk_expr(e->args.items[i], &b->v);
}

/* ---- $$vars, $$parms, $$locals, $$return ---- */

/* The BTF a target variable of a BTF-typed site is typed from: its module's or the kernel's. */
static Btf *site_btf(const Bind *b)
{
	return b->site->btf ? b->site->btf : b->s->btf;
}

static int bind_vars(Bind *b, Expr *e)
{
	const char *which = e->str + 2;
	TgAccess *list;

	if (strcmp(which, "vars") && strcmp(which, "parms") && strcmp(which, "locals") && strcmp(which, "return")) {
		berr(b, e->loc, "unknown context variable list '%s': $$vars, $$parms, $$locals or $$return", e->str);
		return -1;
	}
	if (!in_dwarf_probe(b, e, e->str))
		return -1;
	if (!b->site->btf_func && dwarf_bind_scopes(dwarf_leaf(b), e->loc) != 0) {
		dwarf_failed(b);
		return -1;
	}
	list = tg_access_new(TGA_VARS);
	list->name = xstrdup(e->str);
	list->site = b->site;
	if (b->site->mod)
		dwarf_leaf_of(list)->mod = b->site->mod;
	list->pc = b->site->pc;
	for (int i = 0; i < e->chain.len; i++) {
		ChainItem *it = e->chain.items[i];
		if (it->kind != CH_PRETTY) {
			berr(b, it->loc, "'%s' is a string: '->' and '[' cannot be applied to it", e->str);
			return -1;
		}
		list->pretty_full = !strcmp(it->name, "$$") ? 2 : 1;
	}
	if (!strcmp(which, "return") && !b->site->is_return) {
		berr(b, e->loc, "$$return is only available in .return probes");
		return -1;
	}
	if (b->site->btf_func) {
		BtfBind bb = { .btf = site_btf(b), .site = b->site, .kver = b->s->kver };
		if (btf_bind_vars(&bb, which, list) != 0) {
			berr(b, e->loc, "'%s' in a probe typed from BTF is not supported (BTF has no locals): it needs the "
			     "kernel's DWARF (install linux-image-%s-dbg)", e->str, b->s->kver);
			return -1;
		}
	} else {
		dwarf_bind_vars(dwarf_leaf(b), which, list, e);
	}
	make_dwarf(e, list);
	if (b->site->is_return && strcmp(which, "return") && !b->entry)
		wrap_entry(b, e);
	return 0;
}

/* ---- one target expression, to the leaf that types it ---- */

/* A target variable of a probe typed from BTF (no DWARF): btf/btfvars.c types it. */
static int bind_btf(Bind *b, Expr *e, BindMode mode)
{
	BtfBind bb = { .btf = site_btf(b), .site = b->site, .kver = b->s->kver, .in_entry = b->entry };
	int implicit_entry = b->site->is_return && !b->entry && strcmp(e->str, "$return");
	TgAccess *a;

	if (mode == BM_WRITE) {
		berr(b, e->loc, "'%s' cannot be assigned in a probe typed from BTF (the kernel's DWARF is needed: install "
		     "linux-image-%s-dbg)", e->str, b->s->kver);
		return -1;
	}
	if (!(a = btf_bind_target(&bb, e, mode))) {
		berr(b, bb.err_loc, "%s", bb.err);
		free(bb.err);
		return -1;
	}
	make_dwarf(e, a);
	if (implicit_entry)
		wrap_entry(b, e);
	return 0;
}

/* Whether @cast is typed from BTF, and which: the kernel's when its types are asked for ("kernel",
 * "kernel<HEADER>", none outside module probes) and it has no DWARF; a module's when it has none (its split BTF
 * holds the kernel's types too). NULL: DWARF types it (or reports why it cannot). *why: no BTF either. */
static Btf *cast_btf(Bind *b, Expr *e, const char **why)
{
	const char *spec = e->args.len > 2 ? ((Expr *)e->args.items[2])->str : NULL;
	char *module;
	int user;
	Btf *btf = NULL;
	Dwarf_Die type;

	*why = NULL;
	if (!spec && b->site && b->site->btf)
		return b->site->btf;   /* a module's BTF-typed probe: its types, then the kernel's */
	/* a module probe's: its module's DWARF types first, then the kernel's DWARF, or its BTF without that */
	if (!spec && b->site && b->site->mod && !b->site->mod->is_kernel)
		return !dwarf_kernel_quiet(b->s) && dwarf_find_type(b->s, b->site->mod, ((Expr *)e->args.items[1])->str, &type) != 0 ?
		       btf_kernel(b->s, why) : NULL;
	module = dwarf_cast_spec_module(spec ? spec : "kernel", &user);
	if (user) {
		free(module);
		return NULL;   /* a user binary's types: its DWARF */
	}
	if (module) {
		if (!dwarf_module_quiet(b->s, module))
			btf = btf_module(b->s, module, why);
		free(module);
		return btf;
	}
	return dwarf_kernel_quiet(b->s) ? NULL : btf_kernel(b->s, why);
}

static int bind_cast_btf(Bind *b, Expr *e, BindMode mode, Btf *btf)
{
	BtfBind bb = { .btf = btf, .site = b->site, .kver = b->s->kver };
	TgAccess *a;
	Expr *addr = e->args.items[0], *tname = e->args.items[1];

	/* the address stays args[0]; the type and module strings go, computed indexes follow */
	e->args.len = 0;
	vec_push(&e->args, addr);
	if (!(a = btf_bind_cast(&bb, e, tname, mode))) {
		berr(b, bb.err_loc, "%s", bb.err);
		free(bb.err);
		return -1;
	}
	make_dwarf(e, a);
	bind_args(b, e, 0);   /* the address may hold target variables */
	return 0;
}


/* A target variable of a DWARF site, or @cast / @var typed from DWARF: the DWARF leaf binds it. */
static int bind_dwarf(Bind *b, Expr *e, BindMode mode)
{
	TgAccess *a;
	int implicit_entry = 0;

	if (e->kind == EX_TARGET)
		implicit_entry = strcmp(e->str, "$return") && b->site->is_return && !b->entry;
	else if (!strcmp(e->str, "var"))
		/* @var("local") in a .return probe: its value at entry, like $local */
		implicit_entry = b->site && b->site->is_return && !b->entry &&
				 !strchr(((Expr *)e->args.items[0])->str, '@');
	if (!(a = dwarf_bind_target(dwarf_leaf(b), e, mode))) {
		dwarf_failed(b);
		return -1;
	}
	if (implicit_entry && mode == BM_WRITE) {
		berr(b, e->loc, "'%s' cannot be written in a .return probe: it holds the value saved at entry", a->name);
		return -1;
	}
	make_dwarf(e, a);
	/* indexes (and @cast's address) may hold target variables themselves */
	{
		int was = b->entry;
		if (implicit_entry)
			b->entry = 1;
		bind_args(b, e, 0);
		b->entry = was;
	}
	if (implicit_entry)
		wrap_entry(b, e);
	return 0;
}

/* Binds e (EX_TARGET, or EX_AT cast/var) with its chain, rewriting it in place: to the leaf that
 * types it (BTF for a BTF-typed site or @cast of types only BTF has, DWARF otherwise). */
static int bind_target(Bind *b, Expr *e, BindMode mode)
{
	const char *why;
	Btf *btf;

	if (e->kind == EX_TARGET) {
		if (!strncmp(e->str, "$$", 2)) {
			if (mode != BM_VALUE) {
				berr(b, e->loc, "'%s' is a string: it cannot be %s", e->str,
				     mode == BM_ADDRESS ? "addressed" : "assigned");
				return -1;
			}
			return bind_vars(b, e);
		}
		if (!in_dwarf_probe(b, e, "target variables like '$x'"))
			return -1;
		if (b->site->btf_func)
			return bind_btf(b, e, mode);
	} else if (!strcmp(e->str, "cast") && ((btf = cast_btf(b, e, &why)) || why)) {
		if (!btf) {
			berr(b, e->loc, "@cast needs the types of %s: no DWARF (install linux-image-%s-dbg) and %s",
			     e->args.len > 2 ? ((Expr *)e->args.items[2])->str : "the kernel", b->s->kver, why);
			return -1;
		}
		return bind_cast_btf(b, e, mode, btf);
	} else if (b->site && b->site->btf_func && strcmp(e->str, "cast")) {
		berr(b, e->loc, "@%s in a probe typed from BTF is not supported yet: it needs the kernel's DWARF (install "
		     "linux-image-%s-dbg)", e->str, b->s->kver);
		return -1;
	}
	return bind_dwarf(b, e, mode);
}

/* ---- context variables of families without DWARF ($value, $skb ...) ---- */

/* The context variable e names in every probe point of the current probe, when its family has
 * context variables: returns 1 with *out set, 1 with *out NULL after an error, 0 when the
 * probe's family has none (e is then a DWARF target variable, or not available). */
static int find_context_var(Bind *b, Expr *e, const ContextVar **out)
{
	const ContextVar *found = NULL;
	int any = 0;

	*out = NULL;
	if (!b->probe || e->kind != EX_TARGET)
		return 0;
	for (int i = 0; i < b->s->derived.len; i++) {
		DerivedProbe *dp = b->s->derived.items[i];
		const ContextVar *cv;
		if (dp->probe != b->probe)
			continue;
		if (!dp->provider->context_var) {
			if (any) {
				berr(b, e->loc, "context variable '%s' is not available in probe point '%s'", e->str, dp->name);
				return 1;
			}
			return 0;
		}
		any = 1;
		cv = dp->provider->context_var(b->s, dp, e->str);
		if (!cv && !strncmp(e->str, "$$", 2) && !found)
			return 0;   /* $$parms and friends of a family that does not define them */
		if (!cv && dp->site && !found)
			return 0;   /* a site's own variables (DWARF ones, or the error saying it has none) in a
			             * family with context variables elsewhere (.plt's $$name) */
		if (!cv) {
			berr(b, e->loc, "context variable '%s' is not available in probe point '%s'", e->str, dp->name);
			return 1;
		}
		if (found && (found->type != cv->type || strcmp(found->read, cv->read))) {
			berr(b, e->loc, "context variable '%s' differs between the probe's points: write one probe each",
			     e->str);
			return 1;
		}
		found = cv;
	}
	*out = found;
	return any;
}

/* Binds e to a family's context variable; returns 0 when e is not one (see find_context_var). */
static int bind_context(Bind *b, Expr *e, BindMode mode)
{
	const ContextVar *cv;

	if (!find_context_var(b, e, &cv))
		return 0;
	if (!cv)
		return 1;
	if (e->chain.len) {
		ChainItem *it = e->chain.items[0];
		berr(b, it->loc, "'%s' is a %s: '%s' cannot be applied to it", e->str,
		     cv->type == TY_STRING ? "string" : "number",
		     it->kind == CH_MEMBER ? "->" : it->kind == CH_INDEX ? "[" : it->name);
		return 1;
	}
	if (mode == BM_ADDRESS) {
		berr(b, e->loc, "the context variable '%s' has no address", e->str);
		return 1;
	}
	if (mode == BM_WRITE && !cv->write) {
		berr(b, e->loc, "the context variable '%s' cannot be written", e->str);
		return 1;
	}
	if (mode == BM_WRITE && cv->write_needs_guru && !b->s->guru) {
		berr(b, e->loc, "writing to the context variable '%s' needs guru mode (-g)", e->str);
		return 1;
	}
	e->kind = EX_CONTEXT;
	e->ctxvar = cv;
	e->type = cv->type;
	return 1;
}

/* ---- @param: target variables a probe alias declares ---- */

/* `@param("$fd", VALUE, "C type")` in an alias body (the generated syscall aliases) declares the
 * target variable $fd for the rest of the probe: its uses become copies of VALUE (evaluated where
 * they are), `$fd->member` a @cast of VALUE to the type it points to (read from the process's
 * memory when the type says __user), `$$parms`/`$$vars` list them all. For probes with no DWARF of their own
 * (kprobe.function on a syscall wrapper), whose C type the alias knows. */
/* A declared C type as -L shows it: without __user, "long" when none is given. */
static char *param_type_shown(Expr *type)
{
	StrBuf sb;
	char *copy, *save = NULL;

	if (!type || type->kind != EX_STRING)
		return xstrdup("long");
	sb_init(&sb);
	copy = xstrdup(type->str);
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (strcmp(w, "__user"))
			sb_printf(&sb, "%s%s", sb.len && strcmp(w, "*") ? " " : "", w);
	}
	free(copy);
	return sb_steal(&sb);
}

static int declare_param(Bind *b, Stmt *st)
{
	Expr *e = st->expr, *name, *type;

	if (!e || e->kind != EX_AT || strcmp(e->str, "param"))
		return 0;
	name = e->args.items[0];
	type = e->args.len > 2 ? e->args.items[2] : NULL;
	if (name->kind != EX_STRING || name->str[0] != '$' || name->str[1] == '$' || !name->str[1])
		berr(b, name->loc, "@param declares a target variable: its first argument is its name, \"$name\"");
	else if (type && type->kind != EX_STRING)
		berr(b, type->loc, "@param's third argument is the variable's C type, a literal string");
	else if (!b->probe)
		berr(b, e->loc, "@param declares a target variable of a probe: it belongs in a probe alias's body");
	else {
		vec_push(&b->params, e);
		vec_push(&b->probe->params, xasprintf("%s:%s", name->str, param_type_shown(type)));
	}
	st->kind = ST_EMPTY;
	st->expr = NULL;
	return 1;
}

static Expr *find_param(Bind *b, const char *name)
{
	for (int i = b->params.len - 1; i >= 0; i--) {
		Expr *d = b->params.items[i];
		if (!strcmp(((Expr *)d->args.items[0])->str, name))
			return d;
	}
	return NULL;
}

/* "$fd, $buf, $count" (or "none") */
static char *param_names(Bind *b)
{
	StrBuf sb;

	sb_init(&sb);
	for (int i = 0; i < b->params.len; i++) {
		Expr *d = b->params.items[i];
		sb_printf(&sb, "%s%s", i ? ", " : "", ((Expr *)d->args.items[0])->str);
	}
	if (!b->params.len)
		sb_printf(&sb, "none");
	return sb_steal(&sb);
}

/* The type a declared pointer type points to: "const struct stat __user *" -> "struct stat";
 * NULL when it is not a pointer (or points to void). */
static char *param_pointee(Expr *decl)
{
	const char *t = decl->args.len > 2 ? ((Expr *)decl->args.items[2])->str : "";
	StrBuf sb;
	char *copy, *save = NULL, *star = strrchr(t, '*');
	size_t words = 0;

	if (!star)
		return NULL;
	sb_init(&sb);
	copy = xstrndup(t, (size_t)(star - t));
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(w, "const") || !strcmp(w, "volatile") || !strcmp(w, "__user"))
			continue;
		sb_printf(&sb, "%s%s", words++ ? " " : "", w);
	}
	free(copy);
	if (!words || !strcmp(sb.data, "void")) {
		free(sb_steal(&sb));
		return NULL;
	}
	return sb_steal(&sb);
}

static Expr *string_expr(SrcLoc loc, char *s)
{
	Expr *e = expr_new(EX_STRING, loc);
	e->str = s;
	return e;
}

/* $$parms / $$vars of a probe with declared parameters: "fd=0x1 buf=0x7ffd... count=0x5" */
static void bind_param_list(Bind *b, Expr *e)
{
	StrBuf fmt;
	Expr *call = expr_new(EX_CALL, e->loc);

	sb_init(&fmt);
	for (int i = 0; i < e->chain.len; i++) {
		ChainItem *it = e->chain.items[i];
		if (it->kind != CH_PRETTY) {
			berr(b, it->loc, "'%s' is a string: '->' and '[' cannot be applied to it", e->str);
			return;
		}
	}
	call->str = xstrdup("sprintf");
	vec_push(&call->args, NULL);
	for (int i = 0, n = 0; i < b->params.len; i++) {
		Expr *d = b->params.items[i];
		const char *name = ((Expr *)d->args.items[0])->str;
		if (!strcmp(name, "$return"))
			continue;   /* a .return's value is no parameter (as $$parms in DWARF .return probes) */
		sb_printf(&fmt, "%s%s=0x%%x", n++ ? " " : "", name + 1);
		vec_push(&call->args, expr_clone(d->args.items[1]));
	}
	call->args.items[0] = string_expr(e->loc, sb_steal(&fmt));
	*e = *call;
	ast_walk_expr(e, &b->v);
}

/* Binds e to a declared parameter; returns 0 when the probe declares none (or e is not one and the
 * probe has DWARF variables of its own). */
static int bind_param(Bind *b, Expr *e, BindMode mode)
{
	Expr *decl, *value;
	char *pointee;
	SrcLoc loc = e->loc;

	if (!b->params.len || e->kind != EX_TARGET)
		return 0;
	if (!strcmp(e->str, "$$parms") || !strcmp(e->str, "$$vars")) {
		if (mode != BM_VALUE)
			berr(b, e->loc, "'%s' is a string: it cannot be %s", e->str,
			     mode == BM_ADDRESS ? "addressed" : "assigned");
		else
			bind_param_list(b, e);
		return 1;
	}
	decl = find_param(b, e->str);
	if (!decl) {
		if (b->site)
			return 0;
		berr(b, e->loc, "'%s' is not a parameter of this probe (its parameters: %s)", e->str, param_names(b));
		return 1;
	}
	if (mode != BM_VALUE) {
		berr(b, e->loc, "the parameter '%s' cannot be %s", e->str, mode == BM_ADDRESS ? "addressed" : "assigned");
		return 1;
	}
	value = expr_clone(decl->args.items[1]);
	if (!e->chain.len) {
		*e = *value;
		e->loc = loc;
		ast_walk_expr(e, &b->v);
		return 1;
	}
	pointee = param_pointee(decl);
	if (!pointee) {
		ChainItem *it = e->chain.items[0];
		berr(b, it->loc, "'%s' is not a pointer (%s): '%s' cannot be applied to it", e->str,
		     decl->args.len > 2 ? ((Expr *)decl->args.items[2])->str : "no type declared",
		     it->kind == CH_MEMBER ? "->" : it->kind == CH_INDEX ? "[" : it->name);
		return 1;
	}
	{
		PtrVec chain = e->chain;
		e->kind = EX_AT;
		e->str = xstrdup("cast");
		e->args = (PtrVec){ 0 };
		vec_push(&e->args, value);
		vec_push(&e->args, string_expr(loc, pointee));
		e->chain = chain;
	}
	if (bind_target(b, e, mode) == 0 && e->kind == EX_BOUND &&
	    strstr(((Expr *)decl->args.items[2])->str, "__user"))
		e->bound->user_mem = 1;   /* a user pointer: what it points to is in the process's memory */
	return 1;
}

/* ---- @defined, @choose_defined, @entry ---- */

static int script_variable(Expr *e, void *ctx)
{
	Bind *b = ctx;

	if (e->kind == EX_IDENT || e->kind == EX_INDEX) {
		berr(b, e->loc, "@entry cannot use the script variable '%s': it is evaluated when the function is "
		     "entered", e->str);
		return 1;
	}
	if (e->kind == EX_ASSIGN || e->kind == EX_INCDEC) {
		berr(b, e->loc, "@entry cannot assign: it is evaluated when the function is entered");
		return 1;
	}
	return 0;
}

static int bind_at(Bind *b, Expr *e)
{
	if (!strcmp(e->str, "defined")) {
		int q = b->quiet, f = b->failed, defined;
		b->quiet = 1;
		b->failed = 0;
		ast_walk_expr(e->args.items[0], &b->v);
		defined = !b->failed;
		b->quiet = q;
		b->failed = f;
		e->kind = EX_NUMBER;
		e->num = defined;
		e->type = TY_LONG;
		e->args.len = 0;
		e->chain.len = 0;
		return 0;
	}
	if (!strcmp(e->str, "choose_defined")) {
		int q = b->quiet, f = b->failed, defined;
		Expr *first = e->args.items[0], *second = e->args.items[1];
		b->quiet = 1;
		b->failed = 0;
		ast_walk_expr(first, &b->v);
		defined = !b->failed;
		b->quiet = q;
		b->failed = f;
		if (defined) {
			*e = *first;
			return 0;
		}
		*e = *second;
		return ast_walk_expr(e, &b->v) > 0 ? -1 : 0;
	}
	if (!strcmp(e->str, "entry")) {
		Expr *inner = e->args.items[0];
		AstVisitor check = { NULL, script_variable, b };
		TgAccess *a;
		if ((!b->site || !b->site->is_return) && !b->kret) {
			berr(b, e->loc, "@entry is only available in .return probes on kernel functions");
			return -1;
		}
		if (b->entry) {
			/* @entry(@entry(x)) is @entry(x): in a .return alias whose @param values are @entry
			 * ones (syscall.read.return's $fd), the script's @entry($fd) is that value */
			*e = *inner;
			return ast_walk_expr(e, &b->v) > 0 ? -1 : 0;
		}
		if (ast_walk_expr(inner, &check))
			return -1;
		b->entry = 1;
		ast_walk_expr(inner, &b->v);
		b->entry = 0;
		a = tg_access_new(TGA_ENTRY);
		a->dp = b->dp;
		a->site = b->site;
			a->name = xstrdup("@entry");
		e->kind = EX_BOUND;
		e->bound = a;
		e->left = inner;
		e->args.len = 0;
		e->type = TY_UNKNOWN;   /* inferred from the saved expression */
		tg_add_entry_expr(b->s, b->dp, e);
		return 0;
	}
	return 1;   /* not ours */
}

static int is_target(const Expr *e)
{
	return e->kind == EX_TARGET ||
	       (e->kind == EX_AT && (!strcmp(e->str, "cast") || !strcmp(e->str, "var")));
}

static int bind_visit(Expr *e, void *ctx)
{
	Bind *b = ctx;

	if (is_target(e)) {
		if (!bind_param(b, e, BM_VALUE) && !bind_context(b, e, BM_VALUE))
			bind_target(b, e, BM_VALUE);
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_UNARY && e->op == OP_ADDR && is_target(e->left)) {
		Expr *t = e->left;
		if (bind_param(b, t, BM_ADDRESS) || bind_context(b, t, BM_ADDRESS))
			return AST_WALK_SKIP;
		if (bind_target(b, t, BM_ADDRESS) == 0) {
			SrcLoc amp = e->loc;
			*e = *t;
			e->loc = amp;
		}
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_ASSIGN && is_target(e->left) && e->op != OP_AGG_ASSIGN) {
		const char *shown = e->left->kind == EX_TARGET ? e->left->str : "@cast";
		if (bind_param(b, e->left, BM_WRITE)) {
			ast_walk_expr(e->right, &b->v);
			return AST_WALK_SKIP;
		}
		if ((e->op == OP_ASSIGN || e->op == OP_CAT_ASSIGN) && bind_context(b, e->left, BM_WRITE)) {
			if (e->op == OP_CAT_ASSIGN && e->left->kind == EX_CONTEXT && !e->left->ctxvar->append)
				berr(b, e->loc, "only '=' can assign to the context variable '%s'", e->left->str);
			ast_walk_expr(e->right, &b->v);
			return AST_WALK_SKIP;
		}
		if (e->op != OP_ASSIGN)
			berr(b, e->loc, "only '=' can assign to the target variable '%s'", shown);
		else if (!b->s->guru)
			berr(b, e->left->loc, "writing to the target variable '%s' needs guru mode (-g)", shown);
		else
			bind_target(b, e->left, BM_WRITE);
		ast_walk_expr(e->right, &b->v);
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_INCDEC && is_target(e->left)) {
		berr(b, e->loc, "'%s' cannot be applied to a target variable: assign it with '=' (guru mode)",
		     e->op == OP_INC ? "++" : "--");
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_BINARY && (e->op == OP_AND || e->op == OP_OR)) {
		/* "@defined($x) && $x": a left side that decides leaves the right one unbound */
		int64_t val;
		ast_walk_expr(e->left, &b->v);
		if (const_cond(e->left, &val) && (e->op == OP_AND ? !val : val)) {
			SrcLoc loc = e->loc;
			int64_t num = e->op == OP_AND ? 0 : 1;
			memset(e, 0, sizeof(*e));
			e->kind = EX_NUMBER;
			e->loc = loc;
			e->num = num;
			e->type = TY_LONG;
			return AST_WALK_SKIP;
		}
		ast_walk_expr(e->right, &b->v);
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_TERNARY) {
		int64_t val;
		ast_walk_expr(e->cond, &b->v);
		if (!const_cond(e->cond, &val)) {
			ast_walk_expr(e->left, &b->v);
			ast_walk_expr(e->right, &b->v);
		} else {
			*e = *(val ? e->left : e->right);
			ast_walk_expr(e, &b->v);
		}
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_AT) {
		int rc = bind_at(b, e);
		if (rc <= 0)
			return AST_WALK_SKIP;
	}
	return 0;
}

/* ---- branches that @defined rules out ---- */

/* The value of a condition made of numbers (what @defined became), !, && and ||; 0 when it is not
 * such a constant. */
static int const_cond(const Expr *e, int64_t *val)
{
	int64_t l, r;

	if (!e)
		return 0;
	switch (e->kind) {
	case EX_NUMBER:
		*val = e->num;
		return 1;
	case EX_UNARY:
		if (e->op != OP_NOT || !const_cond(e->left, &l))
			return 0;
		*val = !l;
		return 1;
	case EX_BINARY:
		if (e->op != OP_AND && e->op != OP_OR)
			return 0;
		if (!const_cond(e->left, &l))
			return 0;
		if (e->op == OP_AND && !l) {
			*val = 0;
			return 1;
		}
		if (e->op == OP_OR && l) {
			*val = 1;
			return 1;
		}
		if (!const_cond(e->right, &r))
			return 0;
		*val = !!r;
		return 1;
	default:
		return 0;
	}
}

/* "if (@defined($x)) use($x)": once the condition is bound, a branch it rules out is dropped
 * unbound, so the target variables there are no errors (as in SystemTap, where such a branch is
 * elided before its errors count). */
static int bind_stmt(Stmt *st, void *ctx)
{
	Bind *b = ctx;
	int64_t val;

	if (st->kind == ST_EXPR && declare_param(b, st))
		return AST_WALK_SKIP;
	if (st->kind != ST_IF)
		return 0;
	ast_walk_expr(st->expr, &b->v);
	if (!const_cond(st->expr, &val)) {
		ast_walk_stmt(st->then, &b->v);
		ast_walk_stmt(st->els, &b->v);
		return AST_WALK_SKIP;
	}
	if (val) {
		st->els = NULL;
		ast_walk_stmt(st->then, &b->v);
	} else {
		st->then = stmt_new(ST_EMPTY, st->loc);
		ast_walk_stmt(st->els, &b->v);
	}
	return AST_WALK_SKIP;
}

/* ---- driver ---- */

static int program_needs_binding(Expr *e, void *ctx)
{
	(void)ctx;
	return is_target(e) || (e->kind == EX_AT && (!strcmp(e->str, "defined") || !strcmp(e->str, "choose_defined") ||
						     !strcmp(e->str, "entry") || !strcmp(e->str, "param")));
}

static void bind_body(Bind *b, Stmt *body)
{
	AstVisitor need = { NULL, program_needs_binding, NULL };

	if (!ast_walk_stmt(body, &need))
		return;
	ast_walk_stmt(body, &b->v);
}

/* A body whose points are all kprobe.function(...).return (the syscall.*.return aliases): @entry
 * works there too, the first such derived probe holding the entry values for all of them. */
static void kretprobe_body(Session *s, Bind *b)
{
	DerivedProbe *first = NULL;

	for (int j = 0; j < s->derived.len; j++) {
		DerivedProbe *dp = s->derived.items[j];
		if (dp->probe != b->probe)
			continue;
		if (dp->provider != &kprobe_provider || !dp->is_return)
			return;
		if (!first)
			first = dp;
	}
	if (first) {
		b->dp = first;
		b->kret = 1;
	}
}

int targets_bind_program(Session *s)
{
	Program *prog = &s->prog;
	Bind b = { .s = s };

	b.v = (AstVisitor){ bind_stmt, bind_visit, &b };
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		b.probe = p;
		b.dp = NULL;
		b.site = NULL;
		b.kret = 0;
		b.nodwarf = NULL;
		for (int j = 0; j < s->derived.len; j++) {
			DerivedProbe *dp = s->derived.items[j];
			if (dp->probe == p && dp->site && !dp->site->scope && !dp->site->is_tracepoint && !dp->site->btf_func &&
			    !b.nodwarf)
				b.nodwarf = dp->name;
			if (dp->probe == p && dp->site && !b.site) {
				b.dp = dp;
				b.site = dp->site;
			}
		}
		if (b.nodwarf) {
			b.dp = NULL;
			b.site = NULL;
		}
		if (!b.site)
			kretprobe_body(s, &b);
		b.params.len = 0;
		if (p->note)
			diag_set_context(&s->diag, p->note);
		else if (p->chain)
			diag_set_context(&s->diag, p->note = xasprintf("in probe %s (from the script's probe at %s:%d:%d)", p->chain,
							     p->loc.file ? p->loc.file->name : "?", p->loc.line, p->loc.col));
		bind_body(&b, p->body);
		diag_set_context(&s->diag, NULL);
		dwarf_bind_reset(&b.dw);
	}
	b.probe = NULL;
	b.dp = NULL;
	b.site = NULL;
	b.kret = 0;
	b.params.len = 0;
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->body)
			bind_body(&b, f->body);
	}
	free(b.params.items);
	tg_compile_locations(s);
	return b.errors;
}
