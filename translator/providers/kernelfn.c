/* kernelfn.c - the "kernel" and "module" families: kernel.function("PATTERN"), module("M").function(...),
 * their .call/.return/.inline/.exported/.label("NAME"), and .statement(...), resolved to DWARF sites (pass 2). */
#include "providers/provider.h"
#include "btf/btf.h"
#include "kernel.h"
#include "dwarf/dwarf.h"
#include "elaborate/pointmatch.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "providers/dwarfpoint.h"
#include "providers/labels.h"
/* ---- resolution ---------------------------------------------------------------------------------- */

enum { WANT_CALL = 1, WANT_INLINE = 2 };

typedef struct Query {
	Session *s;
	DwarfModule *mod;
	const ProbePoint *pp;
	const DerivedProbe *tmpl;
	PtrVec *out;
	Pattern pat;
	int want;               /* WANT_* */
	int is_return, exported, statement;
	const char *label;      /* .label("PATTERN"): the function's labels matching it */
	const char *site_label; /* the label add_site is placing, for its canonical name */
	int64_t maxactive;
	const char *family;     /* "kernel" or module("...") text */
	char *suffix;           /* the components after function(...)/statement(...) as written */
	int matched_name;       /* names matching, before file/line filters */
	int labelled;           /* .label: functions with a matching label */
	int matched_file;
	int with_code, inlined;     /* of those: with out-of-line code, inlined somewhere */
	PtrVec skipped;         /* char*: why locations were left out */
	uint64_t (*seen)[2];    /* (scope DIE, address) of each site made: a hash set (pc 0 = empty slot) */
	size_t nseen, capseen;
	PtrVec nolines;         /* char*: "func" with no code at the line, for the error */
	int errors;
} Query;

/* The same DIE at the same address (one site found twice) gets one probe; different DIEs at one
 * address (a function and an inline instance at its start) get one each. */
static int seen_before(Query *q, Dwarf_Off scope, Dwarf_Addr pc)
{
	size_t i;

	if ((q->nseen + 1) * 2 > q->capseen) {
		uint64_t (*old)[2] = q->seen;
		size_t oldcap = q->capseen;
		q->capseen = oldcap ? oldcap * 2 : 256;
		q->seen = xcalloc(q->capseen, sizeof *q->seen);
		q->nseen = 0;
		for (size_t k = 0; k < oldcap; k++)
			if (old[k][1])
				seen_before(q, old[k][0], old[k][1]);
		free(old);
	}
	for (i = (size_t)(((pc ^ scope * 0x100000001b3ULL) * 0x9e3779b97f4a7c15ULL) >> 20) & (q->capseen - 1);
	     q->seen[i][1]; i = (i + 1) & (q->capseen - 1))
		if (q->seen[i][0] == scope && q->seen[i][1] == pc)
			return 1;
	q->seen[i][0] = scope;
	q->seen[i][1] = pc;
	q->nseen++;
	return 0;
}

static char *canonical(Query *q, const char *func, const char *file, int line, const char *what)
{
	StrBuf sb;

	sb_init(&sb);
	sb_printf(&sb, "%s.%s(\"%s", q->family, what, func);
	if (file && *file) {
		sb_printf(&sb, "@%s", file);
		if (line > 0)
			sb_printf(&sb, ":%d", line);
	}
	sb_printf(&sb, "\")%s", q->suffix);
	if (q->site_label)
		sb_printf(&sb, ".label(\"%s\")", q->site_label);
	return sb_steal(&sb);
}

static void skip(Query *q, const char *pp_text, Dwarf_Addr pc, const char *why)
{
	vec_push(&q->skipped, xasprintf("%s at 0x%" PRIx64 ": %s", pp_text, (uint64_t)pc, why));
}

static void add_site(Query *q, Dwarf_Off cu, Dwarf_Off scope, Dwarf_Addr pc, const char *func, const char *file,
		     int line, int is_inline, int is_statement)
{
	const char *why;
	char *name = canonical(q, func, file, line, is_statement && !q->site_label ? "statement" : "function");
	uint64_t offset = 0;
	char *anchor;
	TgSite *site;
	DerivedProbe *dp;

	if (seen_before(q, scope, pc)) {
		free(name);
		return;
	}
	why = dwarf_unprobeable(q->mod, pc);
	if (why) {
		skip(q, name, pc, why);
		free(name);
		return;
	}
	anchor = dwarf_anchor(q->mod, pc, &offset);
	if (!anchor) {
		skip(q, name, pc, "no symbol kprobes can resolve it from");
		free(name);
		return;
	}
	site = xcalloc(1, sizeof *site);
	site->mod = q->mod;
	site->cu = cu;
	site->scope = scope;
	site->pc = pc;
	site->function = xstrdup(func);
	site->decl_file = xstrdup(file ? file : "");
	site->decl_line = line;
	site->anchor = anchor;
	site->offset = offset;
	site->is_return = q->is_return;
	site->is_inline = is_inline;
	site->is_statement = is_statement;
	dp = provider_derive(q->tmpl, name, site, q->out);
	dp->is_return = q->is_return;
	dp->number = q->maxactive;
}

/* kernel.statement("FUNC@FILE:LINE"): a site per line asked (dwarfpoint.c chooses the addresses). */
static void statement_sites(Query *q, const DwarfName *n, const DwarfNameInfo *info)
{
	PointLine *best;
	size_t nbest = point_statement_lines_of(q->mod, n, info, &q->pat, &q->nolines, &best);

	for (size_t k = 0; k < nbest; k++)
		add_site(q, n->cu, n->die, best[k].addr, n->name, info->decl_file, best[k].line, 0, 1);
	free(best);
}

/* function("F").label("PATTERN"): a site at each matching label of F's out-of-line code, placed as a
 * statement (a kprobe at the label's address, the function's variables in scope there) */
static void label_sites(Query *q, const DwarfName *n, const DwarfNameInfo *info)
{
	PointLabel *labels;
	size_t nl = point_labels_of(q->mod, n->die, q->label, &labels);

	q->labelled += nl > 0;
	for (size_t k = 0; k < nl; k++) {
		q->site_label = labels[k].name;
		add_site(q, n->cu, n->die, labels[k].pc, n->name, info->decl_file, info->decl_line, 0, 1);
	}
	q->site_label = NULL;
	point_labels_free(labels, nl);
}

static int on_name(const DwarfName *n, void *arg)
{
	Query *q = arg;
	DwarfNameInfo info;
	Dwarf_Die die;

	if (n->tag != DW_TAG_subprogram)
		return 0;
	q->matched_name++;
	dwarf_name_info(q->mod, n, &info);
	if (q->pat.file && !point_file_matches(q->pat.file, info.decl_file))
		return 0;
	if (!q->statement && (q->pat.lines == LINE_ONE || q->pat.lines == LINE_RANGE)) {
		/* function("F@FILE:N"): the functions whose code spans line N (or meets the range) */
		int lo = info.decl_line, hi = info.decl_line;
		if ((n->flags & DWARF_NAME_HAS_PC) && dwarf_offdie(q->mod->dw, n->die, &die)) {
			point_function_span(q->mod, &die, info.decl_file, &lo, &hi);
			if (info.decl_line && info.decl_line < lo)
				lo = info.decl_line;
		}
		if (hi < q->pat.first || lo > q->pat.last)
			return 0;
	}
	q->matched_file++;
	if (n->flags & DWARF_NAME_HAS_PC)
		q->with_code++;
	if (n->flags & DWARF_NAME_INLINE)
		q->inlined++;
	if (q->statement) {
		if (n->flags & DWARF_NAME_HAS_PC)
			statement_sites(q, n, &info);
		return 0;
	}
	if (q->label) {
		if (n->flags & DWARF_NAME_HAS_PC)
			label_sites(q, n, &info);
		return 0;
	}
	if (q->exported && (!(n->flags & DWARF_NAME_EXTERNAL) || !dwarf_exported(q->mod, n->name)))
		return 0;
	if ((q->want & WANT_CALL) && (n->flags & DWARF_NAME_HAS_PC)) {
		Dwarf_Addr pc = info.pc;
		if (!pc && dwarf_offdie(q->mod->dw, n->die, &die))
			point_die_entry_pc(&die, &pc);
		if (pc)
			add_site(q, n->cu, n->die, pc, n->name, info.decl_file, info.decl_line, 0, 0);
		else
			skip(q, n->name, 0, "no entry address");
	}
	if ((q->want & WANT_INLINE) && (n->flags & DWARF_NAME_INLINE)) {
		Instances *inst = point_inline_instances(q->mod, n->cu, n->die);
		for (int i = 0; inst && i < inst->dies.len; i++) {
			Dwarf_Off off = (Dwarf_Off)(uintptr_t)inst->dies.items[i];
			Dwarf_Addr pc;
			if (!dwarf_offdie(q->mod->dw, off, &die) || point_die_entry_pc(&die, &pc) != 0)
				continue;
			add_site(q, n->cu, off, pc, n->name, info.decl_file, info.decl_line, 1, 0);
		}
	}
	return 0;
}

/* Forgets what a lookup found (none of it made a site), for another lookup of the same point. */
static void query_reset(Query *q)
{
	PtrVec *lists[] = { &q->skipped, &q->nolines };

	for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
		for (int i = 0; i < lists[k]->len; i++)
			free(lists[k]->items[i]);
		lists[k]->len = 0;
	}
	free(q->seen);
	q->seen = NULL;
	q->nseen = q->capseen = 0;
	q->matched_name = q->matched_file = q->with_code = q->inlined = 0;
}

/* -v: what was left out (kprobes would refuse it), one line each; many only with -vv. */
static void report_skipped(Query *q, const char *written)
{
	int n = q->skipped.len;

	if (!n || !q->s->verbose)
		return;
	if (n <= 10 || q->s->verbose >= 2) {
		for (int i = 0; i < n; i++)
			fprintf(stderr, "Skipping %s\n", (char *)q->skipped.items[i]);
	} else {
		fprintf(stderr, "%s: skipping %d locations kprobes refuse (-vv lists them), e.g. %s\n", written, n,
			(char *)q->skipped.items[0]);
	}
}

/* ---- the point's components ---------------------------------------------------------------------- */

static int bad_component(Session *s, const ProbePointComponent *c, const char *after)
{
	diag_at(&s->diag, c->loc, "semantic error", "unknown probe point component '%s' after %s", c->name ? c->name : "{...}",
		after);
	return -1;
}

static int resolve_absolute(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out, const char *family,
			    const ProbePointComponent *stmt)
{
	TgSite *site;

	if (strcmp(family, "kernel")) {
		diag_at(&s->diag, stmt->loc, "semantic error", ".statement(ADDRESS).absolute is only for kernel.statement");
		return -1;
	}
	if (!s->guru) {
		diag_at(&s->diag, pp_component(pp, 2)->loc, "semantic error",
			"kernel.statement(ADDRESS).absolute probes any address: it needs guru mode (-g)");
		return -1;
	}
	if (pp->components.len > 3)
		return bad_component(s, pp_component(pp, 3), "kernel.statement(ADDRESS).absolute");
	site = xcalloc(1, sizeof *site);
	site->pc = (Dwarf_Addr)stmt->arg->num;
	site->function = xstrdup("");
	site->decl_file = xstrdup("");
	site->is_statement = 1;
	provider_derive(tmpl, xasprintf("kernel.statement(0x%" PRIx64 ").absolute", (uint64_t)site->pc), site, out);
	return 1;
}

/* ---- no kernel DWARF: function entries and returns typed from the kernel's BTF ------------------ */

static void btf_site(Query *q, Btf *btf, uint32_t id, int unchecked)
{
	TgSite *site = xcalloc(1, sizeof *site);
	DerivedProbe *dp;
	const char *func = btf_name(btf, id);

	site->function = xstrdup(func);
	site->decl_file = xstrdup("");
	/* kprobes resolve the name ("MOD:name" in a module); they refuse what they cannot probe */
	site->anchor = btf->module ? xasprintf("%s:%s", btf->module, func) : xstrdup(func);
	site->is_return = q->is_return;
	site->btf_func = id;
	site->btf = btf->module ? btf : NULL;
	site->unchecked = unchecked;
	dp = provider_derive(q->tmpl, canonical(q, func, NULL, 0, "function"), site, q->out);
	dp->is_return = q->is_return;
	dp->number = q->maxactive;
}

/* No DWARF for the kernel (module NULL) or the module: sites typed from its BTF. */
static int resolve_btf(Query *q, const ProbePointComponent *what, int have_inline, const ProbePointComponent *c0,
		       const char *module)
{
	Session *s = q->s;
	const char *why = NULL, *needs = NULL, *pat = q->pat.func;
	int before = q->out->len, wild = has_wildcard(pat);
	const char *twice = NULL;   /* a name the module defines more than once */
	char stmt[200];
	Btf *btf;

	snprintf(stmt, sizeof stmt, "%s.statement probes", q->family);
	if (q->statement)
		needs = stmt;
	else if (have_inline)
		needs = ".inline probes";
	else if (q->exported)
		needs = ".exported probes";
	else if (q->pat.file || q->pat.lines != LINE_NONE)
		needs = "function(\"NAME@FILE\") patterns";
	if (needs) {
		diag_at(&q->s->diag, what->loc, "semantic error", "%s need %s DWARF (install linux-image-%s-dbg): its BTF describes "
			"functions' entries and returns only", needs, module ? "the module's" : "the kernel's", s->kver);
		return -1;
	}
	if (!(btf = module ? btf_module(s, module, &why) : btf_kernel_functions(s, &why))) {
		/* the DWARF error, naming the package */
		if (module)
			dwarf_module(s, module, c0->arg->loc);
		else
			dwarf_kernel(s, c0->loc);
		diag_at(&q->s->diag, what->arg->loc, "note", "%s", why);
		return -1;
	}
	/* a module's own functions only: its split BTF holds the kernel's first */
	for (uint32_t id = btf->first_own; id <= btf->ntypes; id++) {
		const char *name = btf_name(btf, id);
		if (name[0] == pat[0] || wild)
			if (btf_kind(btf, id) == BTF_K_FUNC && (wild ? fnmatch(pat, name, 0) == 0 : !strcmp(pat, name))) {
				if (btf_function_twice(btf, name)) {
					twice = name;   /* "[MOD:]NAME" would find either */
				} else
					btf_site(q, btf, id, wild);
				if (!wild)
					break;
			}
	}
	if (twice && (!wild || s->verbose)) {
		char *owner = module ? xasprintf("module %s", module) : xstrdup("the kernel");
		diag_at(&q->s->diag, what->arg->loc, wild ? "note" : "semantic error", "%s defines more than one function '%s' "
			"(static functions of one name): without %s DWARF (linux-image-%s-dbg) nothing tells them "
			"apart%s", owner, twice, module ? "the module's" : "the kernel's", s->kver, wild ? "; not probed" : "");
		free(owner);
	}
	if (twice && !wild)
		return -1;
	if (q->out->len == before && !wild) {
		char *owner = module ? xasprintf("module %s's", module) : xstrdup("the kernel's");
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "no function '%s' in %s BTF (%s); without %s DWARF "
			"(linux-image-%s-dbg) only functions BTF describes can be probed", pat, owner, btf->origin,
			module ? "the module's" : "the kernel's", s->kver);
		free(owner);
		return -1;
	}
	if (s->verbose && q->out->len > before)
		fprintf(stderr, "%s.%s(\"%s\"): %d site%s typed from BTF (%s)\n", q->family, what->name,
			what->arg->str, q->out->len - before, q->out->len - before > 1 ? "s" : "", btf->origin);
	return q->out->len - before;
}

/* The components after .function("...") or .statement("..."): .call .inline .exported .return .maxactive(N),
 * each once and where it makes sense; q->suffix gets them as written.  -1 after the error. */
static int parse_suffixes(Query *q, const ProbePoint *pp, const ProbePointComponent *what, int *have_call,
			  int *have_inline)
{
	StrBuf suffix;

	sb_init(&suffix);
	for (int i = 2; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp_component(pp, i);
		if (!c->name || q->statement || (c->arg && strcmp(c->name, "maxactive") && strcmp(c->name, "label")))
			goto unknown;
		if (!strcmp(c->name, "label") && i == 2 && pp->components.len == 3) {
			if (!c->arg || c->arg->kind != EX_STRING || !c->arg->str[0]) {
				diag_at(&q->s->diag, c->loc, "semantic error", ".label needs a label name or pattern: .label(\"NAME\")");
				goto fail;
			}
			q->label = c->arg->str;
			continue;   /* the site's own label goes into its name */
		} else if (!strcmp(c->name, "call") && !*have_call && !*have_inline && !q->is_return) {
			*have_call = 1;
		} else if (!strcmp(c->name, "inline") && !*have_call && !*have_inline && !q->is_return && !q->exported) {
			*have_inline = 1;
		} else if (!strcmp(c->name, "exported") && !q->exported && !*have_inline && !q->is_return) {
			q->exported = 1;
		} else if (!strcmp(c->name, "return") && !q->is_return) {
			if (*have_inline) {
				diag_at(&q->s->diag, c->loc, "semantic error", ".inline probes have no .return: inline instances have no "
					"return point kprobes can find");
				goto fail;
			}
			q->is_return = 1;
		} else if (!strcmp(c->name, "maxactive") && q->is_return && !q->maxactive) {
			if (!c->arg || c->arg->kind != EX_NUMBER || c->arg->num <= 0 || c->arg->num > 100000) {
				diag_at(&q->s->diag, c->loc, "semantic error", ".maxactive needs a number from 1 to 100000");
				goto fail;
			}
			q->maxactive = c->arg->num;
		} else
			goto unknown;
		sb_printf(&suffix, ".%s", c->name);
		if (c->arg)
			sb_printf(&suffix, "(%lld)", (long long)c->arg->num);
		continue;
unknown:;
		char *after = xasprintf("%s.%s(...)", q->family, what->name);
		bad_component(q->s, c, after);
		free(after);
		goto fail;
	}
	q->suffix = suffix.data ? suffix.data : xstrdup("");
	return 0;
fail:
	sb_free(&suffix);
	return -1;
}

/* A pattern that found no site: why (-1 after the error), or 0 when a wildcard simply matched nothing. */
static int explain_no_site(const Query *q, const ProbePointComponent *c0, const ProbePointComponent *what)
{
	const char *where = !strcmp(c0->name, "kernel") ? "the kernel" : q->mod->name;

	if (q->skipped.len) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "%s.%s(\"%s\"): no location kprobes can probe: %s%s", q->family,
			what->name, what->arg->str, (char *)q->skipped.items[0],
			q->skipped.len > 1 ? " (and more: -v lists them)" : "");
		return -1;
	}
	if (has_wildcard(q->pat.func) || (q->pat.file && has_wildcard(q->pat.file)) || (q->label && has_wildcard(q->label)))
		return 0;
	if (!q->matched_name) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "no function '%s' in the debuginfo of %s (%s)", q->pat.func,
			where, q->mod->path);
		return -1;
	}
	if (!q->matched_file) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "function '%s' is not in a file matching '%s'%s", q->pat.func,
			q->pat.file, q->pat.lines != LINE_NONE ? " at that line" : "");
		return -1;
	}
	if (q->label && q->matched_file && !q->labelled) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' has no label '%s' with code in the debuginfo", q->pat.func,
			q->label);
		return -1;
	}
	if (q->nolines.len) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "%s", (char *)q->nolines.items[0]);
		return -1;
	}
	if (q->exported && q->with_code) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' is not exported (EXPORT_SYMBOL)", q->pat.func);
		return -1;
	}
	if (!q->with_code && !q->inlined) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' has no code in the debuginfo (declared only, or its "
			"code was dropped)", q->pat.func);
		return -1;
	}
	if (!q->with_code) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' has no out-of-line code (it is always inlined%s)",
			q->pat.func, q->is_return ? "; .return needs a call" : ": use .inline");
		return -1;
	}
	diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' is never inlined: drop .inline", q->pat.func);
	return -1;
}

static int resolve_dwarf(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *what = pp_component(pp, 1);
	Query q = { .s = s, .pp = pp, .tmpl = tmpl, .out = out };
	char *family;
	int before = out->len, have_call = 0, have_inline = 0;

	if (!strcmp(c0->name, "kernel")) {
		if (c0->arg) {
			diag_at(&s->diag, c0->loc, "semantic error", "'kernel' takes no argument (modules are module(\"NAME\"))");
			return -1;
		}
		family = xstrdup("kernel");
	} else {
		if (!c0->arg || c0->arg->kind != EX_STRING || !c0->arg->str[0]) {
			diag_at(&s->diag, c0->loc, "semantic error", "module probes are written module(\"NAME\").function(\"PATTERN\")");
			return -1;
		}
		if (has_wildcard(c0->arg->str)) {
			diag_at(&s->diag, c0->arg->loc, "semantic error", "module(\"%s\"): module name patterns are not supported; name "
				"one module or its .ko file", c0->arg->str);
			return -1;
		}
		family = xasprintf("module(\"%s\")", c0->arg->str);
	}
	q.family = family;
	if (!what || !what->name || (strcmp(what->name, "function") && strcmp(what->name, "statement"))) {
		diag_at(&s->diag, what ? what->loc : pp->loc, "semantic error",
			"%s probes are written %s.function(\"PATTERN\") or %s.statement(\"PATTERN\")", family, family, family);
		return -1;
	}
	q.statement = !strcmp(what->name, "statement");
	if (!what->arg || (what->arg->kind != EX_STRING && !(q.statement && what->arg->kind == EX_NUMBER))) {
		diag_at(&s->diag, what->loc, "semantic error", "%s.%s needs a string pattern%s", family, what->name,
			q.statement ? " or an address" : "");
		return -1;
	}
	if (q.statement && what->arg->kind == EX_NUMBER) {
		const ProbePointComponent *abs = pp_component(pp, 2);
		if (!abs || strcmp(abs->name, "absolute") || abs->arg) {
			diag_at(&s->diag, abs ? abs->loc : what->loc, "semantic error",
				"%s.statement(ADDRESS) is written %s.statement(ADDRESS).absolute (guru mode)", family, family);
			return -1;
		}
		return resolve_absolute(s, pp, tmpl, out, c0->name, what);
	}
	if (parse_suffixes(&q, pp, what, &have_call, &have_inline) != 0)
		return -1;
	q.want = have_call || q.is_return || q.exported ? WANT_CALL : have_inline ? WANT_INLINE : WANT_CALL | WANT_INLINE;
	if (point_parse_pattern(&s->diag, what->arg->str, what->arg->loc, &q.pat) != 0)
		return -1;
	if (!q.statement && q.pat.lines == LINE_ALL) {
		diag_at(&s->diag, what->arg->loc, "semantic error", "\":*\" (every line) is for .statement probes");
		return -1;
	}
	if (q.statement && q.pat.lines == LINE_NONE) {
		diag_at(&s->diag, what->arg->loc, "semantic error", "%s.statement(\"%s\") needs a line: \"FUNCTION@FILE:LINE\" (or "
			"+OFFSET, :FIRST-LAST, :*)", family, what->arg->str);
		return -1;
	}
	if (q.label && ((!strcmp(c0->name, "kernel") && !dwarf_kernel_quiet(s)) ||
			(strcmp(c0->name, "kernel") && !dwarf_module_quiet(s, c0->arg->str)))) {
		diag_at(&s->diag, pp_component(pp, 2)->loc, "semantic error", "%s.function(\"%s\").label(...) needs the DWARF "
			"(labels are not in BTF)", family, what->arg->str);
		return -1;
	}
	if (!strcmp(c0->name, "kernel") && !dwarf_kernel_quiet(s))
		return resolve_btf(&q, what, have_inline, c0, NULL);
	if (strcmp(c0->name, "kernel") && !dwarf_module_quiet(s, c0->arg->str))
		return resolve_btf(&q, what, have_inline, c0, c0->arg->str);
	q.mod = !strcmp(c0->name, "kernel") ? dwarf_kernel(s, c0->loc) : dwarf_module(s, c0->arg->str, c0->arg->loc);
	if (!q.mod)
		return -1;
	dwarf_index_each_function(q.mod, q.pat.func, on_name, &q);
	if (out->len == before && !q.mod->index && dwarf_index_open(s, q.mod) == 0) {
		/* nothing found without the index (dwarf_exact_each): the index says why, as it would
		 * have on its own (its other units may hold declarations of the name) */
		query_reset(&q);
		dwarf_index_each(q.mod, q.pat.func, on_name, &q);
	}
	report_skipped(&q, what->arg->str);
	if (out->len > before) {
		if (s->verbose)
			fprintf(stderr, "%s.%s(\"%s\"): %d site%s typed from DWARF (%s)\n", family, what->name,
				what->arg->str, out->len - before, out->len - before > 1 ? "s" : "", q.mod->path);
		return out->len - before;
	}
	return explain_no_site(&q, c0, what);
}

/* ---- pass 3 -------------------------------------------------------------------------------------- */

/* A site's trampoline kind for sharing: 0 a kprobe, 1 a kretprobe, -1 one of its own (a .return
 * with @entry values: the entry half is the site's) */
static int dwarf_trampoline_kind(const DerivedProbe *dp, Session *s)
{
	(void)s;
	const TgSite *site = dp->site;

	if (site->is_return && site->entry_size > 0)
		return -1;
	return site->is_return;
}

/* A kernel function's entry, which the runtime may arm through ftrace (runtime/probes/fentry.h): not a return,
 * statement or inline site, and at its own symbol. */
static int fentry_site(const TgSite *site)
{
	return !site->is_return && !site->is_statement && !site->is_inline && !site->is_tracepoint && site->anchor &&
	       site->offset == 0 &&
	       ((site->mod && site->mod->is_kernel && site->pc) || (!site->mod && site->btf_func && !site->btf));
}

/* Where fentry.h finds such an entry (0: it stays a kprobe), and in *names every name kallsyms may give that
 * address when it has aliases (else NULL): its link-time address from the kernel's DWARF, or, typed from
 * BTF, the running kernel's address from /proc/kallsyms, another release's from its System.map when it has a
 * real one (its image has no symbols: kernel_symbol_address). */
static uint64_t fentry_addr(Session *s, const TgSite *site, char **names)
{
	uint64_t addr = 0;

	*names = NULL;
	if (!fentry_site(site))
		return 0;
	if (site->mod)
		*names = dwarf_functions_at(site->mod, site->pc);
	else if (kernel_symbol_address(s, site->anchor, &addr) == 1)
		*names = kernel_symbols_at(s, addr);
	else
		return 0;
	if (!strchr(*names, ' ')) {
		free(*names);
		*names = NULL;
	}
	return site->mod ? site->pc : addr;
}

/* For fentry.h: the address of a kernel symbol the module links against (register_kprobe), from which the
 * runtime measures the KASLR offset, in the same terms as the sites' (link-time, or this boot's: the offset
 * between them is the same); nothing when no site can use it or the symbol table lacks it.  The family's
 * settings: written before probes/dwarf.c is included. */
static void emit_fentry_ref(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	for (int i = 0; i < n; i++) {
		const TgSite *site = dps[i]->site;
		char *names;
		Dwarf_Addr addr;
		uint64_t ref;
		int type, bind;
		if (!fentry_addr(s, site, &names))
			continue;
		free(names);
		if (site->mod && dwarf_symbol_named(site->mod, "register_kprobe", &addr, &type, &bind) == 1 &&
		    type == STT_FUNC)
			sb_printf(out, "#define STP_FENTRY_REF_ADDR 0x%" PRIx64 "UL\n", (uint64_t)addr);
		else if (!site->mod && kernel_symbol_address(s, "register_kprobe", &ref) == 1)
			sb_printf(out, "#define STP_FENTRY_REF_ADDR 0x%" PRIx64 "UL\n", ref);
		return;
	}
}

static void emit_dwarf(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	int *shared = xcalloc((size_t)n + 1, sizeof *shared);

	for (int i = 0; i < n; i++) {
		TgSite *site = dps[i]->site;
		shared[i] = provider_shared_site(dps, n, i, dwarf_trampoline_kind, s);
		if (shared[i] >= 0) {
			if (shared[i] == dps[i]->index)
				sb_printf(out, "STP_DWARF_%sPROBE_SHARED(%d)\n", site->is_return ? "KRET" : "K", shared[i]);
		} else if (!site->is_return)
			sb_printf(out, "STP_DWARF_KPROBE(%d)\n", dps[i]->index);
		else if (site->entry_size > 0)
			sb_printf(out, "STP_DWARF_KRETPROBE_ENTRY(%d)\n", dps[i]->index);
		else
			sb_printf(out, "STP_DWARF_KRETPROBE(%d)\n", dps[i]->index);
	}
	sb_puts(out, "static struct stp_dwarf_probe stp_dwarf_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *dp = dps[i];
		const TgSite *site = dp->site;
		int k = dp->index;
		sb_printf(out, "\t{ .desc = &stp_descs[%d], ", k);
		if (site->anchor) {
			sb_puts(out, ".symbol = ");
			emit_c_string(out, site->anchor);
			sb_printf(out, ", .offset = 0x%" PRIx64 "UL", site->offset);
			char *names;
			uint64_t fentry = fentry_addr(s, site, &names);
			if (fentry) {
				/* and, when it has aliases, every name kallsyms may give that address */
				sb_printf(out, ", .fentry = 0x%" PRIx64 "UL", fentry);
				if (names) {
					sb_puts(out, ", .fentry_names = ");
					emit_c_string(out, names);
				}
				free(names);
			}
		} else {
			sb_printf(out, ".addr = 0x%" PRIx64 "UL", (uint64_t)site->pc);
		}
		if ((site->mod && !site->mod->is_kernel) || site->btf) {
			sb_puts(out, ", .module = ");
			emit_c_string(out, site->mod ? site->mod->name : site->btf->module);
		}
		if (shared[i] >= 0)
			sb_printf(out, ", .%s = stp_dwarf_%s_shared_%d", site->is_return ? "ret" : "entry",
				  site->is_return ? "ret" : "hit", shared[i]);
		else if (!site->is_return)
			sb_printf(out, ", .entry = stp_dwarf_hit_%d", k);
		else
			sb_printf(out, ", .ret = stp_dwarf_ret_%d", k);
		if (site->is_return && site->entry_size > 0)
			sb_printf(out, ", .ret_entry = stp_dwarf_ret_entry_%d, .entry_size = %d", k, site->entry_size);
		if (dp->is_return && dp->number > 0)
			sb_printf(out, ", .maxactive = %lld", (long long)dp->number);
		if (dp->optional)
			sb_puts(out, ", .optional = 1");
		else if (site->unchecked)
			sb_puts(out, ", .unchecked = 1");
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_DWARF_FAMILY(stp_dwarf_probes)\n\n");
	free(shared);
}

static const char *const dwarf_forms[] = {
	"kernel.function(string)",
	"kernel.function(string).call",
	"kernel.function(string).exported",
	"kernel.function(string).inline",
	"kernel.function(string).label(string)",
	"kernel.function(string).return",
	"kernel.function(string).return.maxactive(number)",
	"kernel.statement(number).absolute",
	"kernel.statement(string)",
	"module(string).function(string)",
	"module(string).function(string).call",
	"module(string).function(string).exported",
	"module(string).function(string).inline",
	"module(string).function(string).label(string)",
	"module(string).function(string).return",
	"module(string).function(string).return.maxactive(number)",
	"module(string).statement(string)",
	NULL,
};

/* a function's entry or return, or a statement, at a symbol kprobes resolve */
static int dwarf_place(const DerivedProbe *dp, ProbePlace *at)
{
	const TgSite *site = dp->site;

	if (!site || !site->anchor || site->is_tracepoint)
		return 0;
	*at = (ProbePlace){ .symbol = site->anchor, .offset = site->offset, .is_return = site->is_return,
			    .trampoline = !site->is_statement && !site->is_inline && site->offset == 0 &&
					  !strchr(site->anchor, ':') && (site->mod ? site->mod->is_kernel : !site->btf) };
	return 1;
}

const ProbeProvider dwarf_provider = { .family = "kernel", .resolve_many = resolve_dwarf, .runtime = "probes/dwarf.c",
				       .settings = emit_fentry_ref, .emit = emit_dwarf, .forms = dwarf_forms,
				       .place = dwarf_place };
