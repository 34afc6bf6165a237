/* dwarf.c - the "kernel" and "module" families: kernel.function("PATTERN"), module("M").function(...),
 * their .call/.return/.inline/.exported, and .statement(...), resolved to DWARF sites (pass 2). */
#include "provider.h"
#include "../dwarf/dwarf.h"
#include "../pointmatch.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- the pattern: FUNC[@FILE[:LINE | :FIRST-LAST | :* | +OFFSET]] -------------------------------- */

typedef enum { LINE_NONE, LINE_ONE, LINE_RANGE, LINE_ALL, LINE_RELATIVE } LineKind;

typedef struct Pattern {
	char *func;             /* glob */
	char *file;             /* glob, NULL when none */
	LineKind lines;
	int first, last;        /* LINE_ONE: first == last; LINE_RELATIVE: first = offset */
} Pattern;

static int parse_number(const char *s, const char *end, int *out)
{
	long v = 0;

	if (s == end)
		return -1;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > 100000000)
			return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_pattern(const char *text, SrcLoc loc, Pattern *p)
{
	const char *at = strchr(text, '@');
	const char *file, *sep;

	memset(p, 0, sizeof *p);
	if (!at) {
		if (!*text) {
			diag_at(loc, "semantic error", "empty function name in probe point pattern");
			return -1;
		}
		if (strpbrk(text, ":+")) {
			diag_at(loc, "semantic error", "'%s': a line number needs a file: write \"FUNCTION@FILE:LINE\"", text);
			return -1;
		}
		p->func = xstrdup(text);
		return 0;
	}
	if (at == text) {
		diag_at(loc, "semantic error", "empty function name before '@' in '%s' (\"*@FILE\" means every function)",
			text);
		return -1;
	}
	p->func = xstrndup(text, (size_t)(at - text));
	if (strchr(at + 1, '@')) {
		diag_at(loc, "semantic error", "more than one '@' in '%s'", text);
		return -1;
	}
	file = at + 1;
	sep = strpbrk(file, ":+");
	if (sep == file || !*file) {
		diag_at(loc, "semantic error", "empty file name after '@' in '%s'", text);
		return -1;
	}
	p->file = xstrndup(file, sep ? (size_t)(sep - file) : strlen(file));
	if (!sep)
		return 0;
	if (*sep == '+') {
		p->lines = LINE_RELATIVE;
		if (parse_number(sep + 1, sep + strlen(sep), &p->first) != 0) {
			diag_at(loc, "semantic error", "bad line offset '%s' in '%s': expected +N", sep, text);
			return -1;
		}
		return 0;
	}
	{
		const char *spec = sep + 1, *end = spec + strlen(spec), *dash = strchr(spec, '-');
		if (!strcmp(spec, "*")) {
			p->lines = LINE_ALL;
			return 0;
		}
		if (dash) {
			p->lines = LINE_RANGE;
			if (parse_number(spec, dash, &p->first) != 0 || parse_number(dash + 1, end, &p->last) != 0) {
				diag_at(loc, "semantic error", "bad line range '%s' in '%s': expected :FIRST-LAST", spec, text);
				return -1;
			}
			if (p->last < p->first) {
				diag_at(loc, "semantic error", "empty line range %d-%d in '%s'", p->first, p->last, text);
				return -1;
			}
			return 0;
		}
		p->lines = LINE_ONE;
		if (parse_number(spec, end, &p->first) != 0 || p->first == 0) {
			diag_at(loc, "semantic error", "bad line number '%s' in '%s': expected :LINE, :FIRST-LAST or :*", spec,
				text);
			return -1;
		}
		p->last = p->first;
	}
	return 0;
}

/* ---- per-CU data: inline instances and line tables ----------------------------------------------- */

typedef struct Instances {
	Dwarf_Off origin;
	PtrVec dies;            /* (void*)(uintptr_t) offsets of DW_TAG_inlined_subroutine DIEs */
} Instances;

typedef struct CuData {
	DwarfModule *mod;
	Dwarf_Off cu;
	int scanned;
	Instances *inl;         /* sorted by origin */
	size_t ninl;
} CuData;

static PtrVec cu_data;      /* CuData* */

static CuData *cu_get(DwarfModule *m, Dwarf_Off cu)
{
	CuData *d;

	for (int i = cu_data.len - 1; i >= 0; i--) {
		d = cu_data.items[i];
		if (d->mod == m && d->cu == cu)
			return d;
	}
	d = xcalloc(1, sizeof *d);
	d->mod = m;
	d->cu = cu;
	vec_push(&cu_data, d);
	return d;
}

typedef struct InlPair {
	Dwarf_Off origin, die;
} InlPair;

/* An inline instance inside an out-of-line instance of the same function, "called" from the
 * function's own declaration line, is GCC's copy of the whole body (seen in nfs_readpage_done on
 * 6.1): every call through the out-of-line entry also enters it, so probing both would fire twice
 * per call. It is not collected. A recursive call inlined into itself sits on a line of the body;
 * a macro-made function inlined into a sibling (SYSCALL_DEFINE) sits in another function. */
static int dwarf_inline_is_own_body(Dwarf_Die *origin, Dwarf_Die *inst, Dwarf_Off enclosing)
{
	Dwarf_Attribute a;
	Dwarf_Word decl_file, decl_line, call_file, call_line;

	if (enclosing != dwarf_dieoffset(origin) ||
	    dwarf_formudata(dwarf_attr_integrate(origin, DW_AT_decl_file, &a), &decl_file) != 0 ||
	    dwarf_formudata(dwarf_attr_integrate(origin, DW_AT_decl_line, &a), &decl_line) != 0 ||
	    dwarf_formudata(dwarf_attr(inst, DW_AT_call_file, &a), &call_file) != 0 ||
	    dwarf_formudata(dwarf_attr(inst, DW_AT_call_line, &a), &call_line) != 0)
		return 0;
	return decl_file == call_file && decl_line == call_line;
}

/* enclosing: the abstract origin (or the DIE itself) of the out-of-line function around parent. */
static void collect_inlined(Dwarf_Die *parent, InlPair **v, size_t *n, size_t *cap, int depth, Dwarf_Off enclosing)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Off inner = enclosing;
		if (tag == DW_TAG_subprogram) {
			Dwarf_Attribute a;
			Dwarf_Die origin;
			inner = dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &a), &origin)
				? dwarf_dieoffset(&origin) : dwarf_dieoffset(&child);
		}
		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute a;
			Dwarf_Die origin;
			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &a), &origin) &&
			    !dwarf_inline_is_own_body(&origin, &child, enclosing)) {
				if (*n == *cap) {
					*cap = *cap ? *cap * 2 : 256;
					*v = xrealloc(*v, *cap * sizeof **v);
				}
				(*v)[(*n)++] = (InlPair){ dwarf_dieoffset(&origin), dwarf_dieoffset(&child) };
			}
		}
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_compile_unit)
			collect_inlined(&child, v, n, cap, depth + 1, inner);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_pair(const void *a, const void *b)
{
	const InlPair *x = a, *y = b;
	if (x->origin != y->origin)
		return x->origin < y->origin ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

/* The inlined instances of the abstract subprogram at origin (same CU), scanning the CU once. */
static Instances *instances_of(DwarfModule *m, Dwarf_Off cu, Dwarf_Off origin)
{
	CuData *d = cu_get(m, cu);

	if (!d->scanned) {
		Dwarf_Die cudie;
		InlPair *v = NULL;
		size_t n = 0, cap = 0;
		d->scanned = 1;
		if (dwarf_offdie(m->dw, cu, &cudie))
			collect_inlined(&cudie, &v, &n, &cap, 0, 0);
		if (n)
			qsort(v, n, sizeof *v, cmp_pair);
		for (size_t i = 0; i < n; i++) {
			if (!d->ninl || d->inl[d->ninl - 1].origin != v[i].origin) {
				d->inl = xrealloc(d->inl, (d->ninl + 1) * sizeof *d->inl);
				memset(&d->inl[d->ninl], 0, sizeof d->inl[0]);
				d->inl[d->ninl++].origin = v[i].origin;
			}
			vec_push(&d->inl[d->ninl - 1].dies, (void *)(uintptr_t)v[i].die);
		}
		free(v);
	}
	for (size_t lo = 0, hi = d->ninl; lo < hi;) {
		size_t mid = (lo + hi) / 2;
		if (d->inl[mid].origin == origin)
			return &d->inl[mid];
		if (d->inl[mid].origin < origin)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Entry address of an inlined instance or a subprogram: DW_AT_entry_pc (an address, or in DWARF 5 an
 * offset from the low address), else low_pc, else the first range. */
static int die_entry_pc(Dwarf_Die *die, Dwarf_Addr *pc)
{
	Dwarf_Attribute a;
	Dwarf_Addr low = 0, base, end;
	int have_low = 0;

	if (dwarf_lowpc(die, &low) == 0) {
		have_low = 1;
	} else if (dwarf_ranges(die, 0, &base, &low, &end) > 0) {
		have_low = 1;
	}
	if (dwarf_attr(die, DW_AT_entry_pc, &a)) {
		Dwarf_Word off;
		if (dwarf_formaddr(&a, pc) == 0)
			return 0;
		if (have_low && dwarf_formudata(&a, &off) == 0) {
			*pc = low + off;
			return 0;
		}
	}
	if (!have_low)
		return -1;
	*pc = low;
	return 0;
}

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
	int64_t maxactive;
	const char *family;     /* "kernel" or module("...") text */
	char *suffix;           /* the components after function(...)/statement(...) as written */
	int matched_name;       /* names matching, before file/line filters */
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
	char *name = canonical(q, func, file, line, is_statement ? "statement" : "function");
	uint64_t offset = 0;
	char *anchor;
	DwarfSite *site;
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
	dp = xcalloc(1, sizeof *dp);
	*dp = *q->tmpl;
	dp->name = name;
	dp->site = site;
	dp->is_return = q->is_return;
	dp->number = q->maxactive;
	vec_push(q->out, dp);
}

/* The line span [lo, hi] of a function's code in its own file (0, 0 when unknown). */
static void function_span(DwarfModule *m, Dwarf_Die *fn, const char *file, int *lo, int *hi)
{
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	size_t n;

	*lo = *hi = 0;
	if (!dwarf_diecu(fn, &cudie, NULL, NULL) || dwarf_getsrclines(&cudie, &lines, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int line;
		if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0 || line <= 0 ||
		    dwarf_haspc(fn, addr) <= 0 || strcmp(dwarf_line_source(m, &cudie, l), file))
			continue;
		if (!*lo || line < *lo)
			*lo = line;
		if (line > *hi)
			*hi = line;
	}
}

/* kernel.statement("FUNC@FILE:LINE"): for each line asked, the lowest address of that line within
 * the function's code, among the rows that begin a statement when there are some (GCC marks some lines
 * only with view rows that do not). */
static void statement_sites(Query *q, const DwarfName *n, const DwarfNameInfo *info)
{
	Dwarf_Die fn, cudie;
	Dwarf_Lines *lines;
	size_t nl;
	int first, last, below = 0, above = 0;
	const char *want_file = info->decl_file;
	typedef struct { int line; Dwarf_Addr addr; int stmt; } Best;
	Best *best = NULL;
	size_t nbest = 0;

	if (!dwarf_offdie(q->mod->dw, n->die, &fn) || !dwarf_diecu(&fn, &cudie, NULL, NULL) ||
	    dwarf_getsrclines(&cudie, &lines, &nl) != 0)
		return;
	switch (q->pat.lines) {
	case LINE_ONE:
	case LINE_RANGE:
		first = q->pat.first;
		last = q->pat.last;
		break;
	case LINE_RELATIVE:
		first = last = info->decl_line + q->pat.first;
		break;
	default:
		first = 1;
		last = 1 << 30;
		break;
	}
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int line;
		bool stmt;
		size_t k;
		if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0 || line <= 0 ||
		    dwarf_linebeginstatement(l, &stmt) != 0 || dwarf_haspc(&fn, addr) <= 0)
			continue;
		if (q->pat.file ? !point_file_matches(q->pat.file, dwarf_line_source(q->mod, &cudie, l))
				: strcmp(dwarf_line_source(q->mod, &cudie, l), want_file))
			continue;
		if (line < first || line > last) {
			if (line < first && line > below)
				below = line;
			if (line > last && (!above || line < above))
				above = line;
			continue;
		}
		for (k = 0; k < nbest && best[k].line != line; k++)
			;
		if (k == nbest) {
			best = xrealloc(best, (nbest + 1) * sizeof *best);
			best[nbest++] = (Best){ line, addr, stmt };
		} else if ((stmt && !best[k].stmt) || (stmt == best[k].stmt && addr < best[k].addr)) {
			best[k] = (Best){ line, addr, stmt };
		}
	}
	if (!nbest && q->pat.lines != LINE_ALL) {
		StrBuf sb;
		sb_init(&sb);
		if (first == last)
			sb_printf(&sb, "no code for line %d of %s in %s", first, want_file, n->name);
		else
			sb_printf(&sb, "no code for lines %d-%d of %s in %s", first, last, want_file, n->name);
		if (below || above) {
			sb_puts(&sb, " (nearest lines with code:");
			if (below)
				sb_printf(&sb, " %d", below);
			if (above)
				sb_printf(&sb, "%s %d", below ? "," : "", above);
			sb_putc(&sb, ')');
		}
		vec_push(&q->nolines, sb_steal(&sb));
	}
	for (size_t k = 0; k < nbest; k++)
		add_site(q, n->cu, n->die, best[k].addr, n->name, want_file, best[k].line, 0, 1);
	free(best);
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
			function_span(q->mod, &die, info.decl_file, &lo, &hi);
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
	if (q->exported && (!(n->flags & DWARF_NAME_EXTERNAL) || !dwarf_exported(q->mod, n->name)))
		return 0;
	if ((q->want & WANT_CALL) && (n->flags & DWARF_NAME_HAS_PC)) {
		Dwarf_Addr pc = info.pc;
		if (!pc && dwarf_offdie(q->mod->dw, n->die, &die))
			die_entry_pc(&die, &pc);
		if (pc)
			add_site(q, n->cu, n->die, pc, n->name, info.decl_file, info.decl_line, 0, 0);
		else
			skip(q, n->name, 0, "no entry address");
	}
	if ((q->want & WANT_INLINE) && (n->flags & DWARF_NAME_INLINE)) {
		Instances *inst = instances_of(q->mod, n->cu, n->die);
		for (int i = 0; inst && i < inst->dies.len; i++) {
			Dwarf_Off off = (Dwarf_Off)(uintptr_t)inst->dies.items[i];
			Dwarf_Addr pc;
			if (!dwarf_offdie(q->mod->dw, off, &die) || die_entry_pc(&die, &pc) != 0)
				continue;
			add_site(q, n->cu, off, pc, n->name, info.decl_file, info.decl_line, 1, 0);
		}
	}
	return 0;
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

static int bad_component(const ProbePointComponent *c, const char *after)
{
	diag_at(c->loc, "semantic error", "unknown probe point component '%s' after %s", c->name ? c->name : "{...}",
		after);
	return -1;
}

static int resolve_absolute(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out, const char *family,
			    const ProbePointComponent *stmt)
{
	DerivedProbe *dp;
	DwarfSite *site;

	if (strcmp(family, "kernel")) {
		diag_at(stmt->loc, "semantic error", ".statement(ADDRESS).absolute is only for kernel.statement");
		return -1;
	}
	if (!s->guru) {
		diag_at(pp_component(pp, 2)->loc, "semantic error",
			"kernel.statement(ADDRESS).absolute probes any address: it needs guru mode (-g)");
		return -1;
	}
	if (pp->components.len > 3)
		return bad_component(pp_component(pp, 3), "kernel.statement(ADDRESS).absolute");
	site = xcalloc(1, sizeof *site);
	site->pc = (Dwarf_Addr)stmt->arg->num;
	site->function = xstrdup("");
	site->decl_file = xstrdup("");
	site->is_statement = 1;
	dp = xcalloc(1, sizeof *dp);
	*dp = *tmpl;
	dp->name = xasprintf("kernel.statement(0x%" PRIx64 ").absolute", (uint64_t)site->pc);
	dp->site = site;
	vec_push(out, dp);
	return 1;
}

static int resolve_dwarf(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *what = pp_component(pp, 1);
	Query q = { .s = s, .pp = pp, .tmpl = tmpl, .out = out };
	char *family;
	int i, wild, before = out->len;
	StrBuf suffix;
	int have_call = 0, have_inline = 0;

	if (!strcmp(c0->name, "kernel")) {
		if (c0->arg) {
			diag_at(c0->loc, "semantic error", "'kernel' takes no argument (modules are module(\"NAME\"))");
			return -1;
		}
		family = xstrdup("kernel");
	} else {
		if (!c0->arg || c0->arg->kind != EX_STRING || !c0->arg->str[0]) {
			diag_at(c0->loc, "semantic error", "module probes are written module(\"NAME\").function(\"PATTERN\")");
			return -1;
		}
		if (has_wildcard(c0->arg->str)) {
			diag_at(c0->arg->loc, "semantic error", "module(\"%s\"): module name patterns are not supported; name "
				"one module or its .ko file", c0->arg->str);
			return -1;
		}
		family = xasprintf("module(\"%s\")", c0->arg->str);
	}
	q.family = family;
	if (!what || !what->name || (strcmp(what->name, "function") && strcmp(what->name, "statement"))) {
		diag_at(what ? what->loc : pp->loc, "semantic error",
			"%s probes are written %s.function(\"PATTERN\") or %s.statement(\"PATTERN\")", family, family, family);
		return -1;
	}
	q.statement = !strcmp(what->name, "statement");
	if (!what->arg || (what->arg->kind != EX_STRING && !(q.statement && what->arg->kind == EX_NUMBER))) {
		diag_at(what->loc, "semantic error", "%s.%s needs a string pattern%s", family, what->name,
			q.statement ? " or an address" : "");
		return -1;
	}
	if (q.statement && what->arg->kind == EX_NUMBER) {
		const ProbePointComponent *abs = pp_component(pp, 2);
		if (!abs || strcmp(abs->name, "absolute") || abs->arg) {
			diag_at(abs ? abs->loc : what->loc, "semantic error",
				"%s.statement(ADDRESS) is written %s.statement(ADDRESS).absolute (guru mode)", family, family);
			return -1;
		}
		return resolve_absolute(s, pp, tmpl, out, c0->name, what);
	}
	/* suffixes */
	sb_init(&suffix);
	for (i = 2; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp_component(pp, i);
		char *after = xasprintf("%s.%s(...)", family, what->name);
		if (!c->name || q.statement || (c->arg && strcmp(c->name, "maxactive"))) {
			int r = bad_component(c, after);
			free(after);
			return r;
		}
		free(after);
		if (!strcmp(c->name, "call") && !have_call && !have_inline && !q.is_return) {
			have_call = 1;
		} else if (!strcmp(c->name, "inline") && !have_call && !have_inline && !q.is_return && !q.exported) {
			have_inline = 1;
		} else if (!strcmp(c->name, "exported") && !q.exported && !have_inline && !q.is_return) {
			q.exported = 1;
		} else if (!strcmp(c->name, "return") && !q.is_return) {
			if (have_inline) {
				diag_at(c->loc, "semantic error", ".inline probes have no .return: inline instances have no "
					"return point kprobes can find");
				return -1;
			}
			q.is_return = 1;
		} else if (!strcmp(c->name, "maxactive") && q.is_return && !q.maxactive) {
			if (!c->arg || c->arg->kind != EX_NUMBER || c->arg->num <= 0 || c->arg->num > 100000) {
				diag_at(c->loc, "semantic error", ".maxactive needs a number from 1 to 100000");
				return -1;
			}
			q.maxactive = c->arg->num;
		} else {
			char *after2 = xasprintf("%s.%s(...)", family, what->name);
			int r = bad_component(c, after2);
			free(after2);
			return r;
		}
		sb_printf(&suffix, ".%s", c->name);
		if (c->arg)
			sb_printf(&suffix, "(%lld)", (long long)c->arg->num);
	}
	q.suffix = suffix.data ? suffix.data : xstrdup("");
	q.want = have_call || q.is_return || q.exported ? WANT_CALL : have_inline ? WANT_INLINE : WANT_CALL | WANT_INLINE;
	if (parse_pattern(what->arg->str, what->arg->loc, &q.pat) != 0)
		return -1;
	if (!q.statement && q.pat.lines == LINE_ALL) {
		diag_at(what->arg->loc, "semantic error", "\":*\" (every line) is for .statement probes");
		return -1;
	}
	if (q.statement && q.pat.lines == LINE_NONE) {
		diag_at(what->arg->loc, "semantic error", "%s.statement(\"%s\") needs a line: \"FUNCTION@FILE:LINE\" (or "
			"+OFFSET, :FIRST-LAST, :*)", family, what->arg->str);
		return -1;
	}
	q.mod = !strcmp(c0->name, "kernel") ? dwarf_kernel(s, c0->loc) : dwarf_module(s, c0->arg->str, c0->arg->loc);
	if (!q.mod)
		return -1;
	dwarf_index_each(q.mod, q.pat.func, on_name, &q);
	wild = has_wildcard(q.pat.func) || (q.pat.file && has_wildcard(q.pat.file));
	report_skipped(&q, what->arg->str);
	if (out->len > before)
		return out->len - before;
	/* nothing: say why, unless a wildcard simply matched nothing */
	{
		const char *where = !strcmp(c0->name, "kernel") ? "the kernel" : q.mod->name;
		if (q.skipped.len) {
			diag_at(what->arg->loc, "semantic error", "%s.%s(\"%s\"): no location kprobes can probe: %s%s", family,
				what->name, what->arg->str, (char *)q.skipped.items[0],
				q.skipped.len > 1 ? " (and more: -v lists them)" : "");
			return -1;
		}
		if (wild)
			return 0;
		if (!q.matched_name) {
			diag_at(what->arg->loc, "semantic error", "no function '%s' in the debuginfo of %s (%s)", q.pat.func,
				where, q.mod->path);
			return -1;
		}
		if (!q.matched_file) {
			diag_at(what->arg->loc, "semantic error", "function '%s' is not in a file matching '%s'%s", q.pat.func,
				q.pat.file, q.pat.lines != LINE_NONE ? " at that line" : "");
			return -1;
		}
		if (q.nolines.len) {
			diag_at(what->arg->loc, "semantic error", "%s", (char *)q.nolines.items[0]);
			return -1;
		}
		if (q.exported && q.with_code) {
			diag_at(what->arg->loc, "semantic error", "'%s' is not exported (EXPORT_SYMBOL)", q.pat.func);
			return -1;
		}
		if (!q.with_code && !q.inlined) {
			diag_at(what->arg->loc, "semantic error", "'%s' has no code in the debuginfo (declared only, or its "
				"code was dropped)", q.pat.func);
			return -1;
		}
		if (!q.with_code) {
			diag_at(what->arg->loc, "semantic error", "'%s' has no out-of-line code (it is always inlined%s)",
				q.pat.func, q.is_return ? "; .return needs a call" : ": use .inline");
			return -1;
		}
		diag_at(what->arg->loc, "semantic error", "'%s' is never inlined: drop .inline", q.pat.func);
		return -1;
	}
}

/* ---- pass 3 -------------------------------------------------------------------------------------- */

static void emit_dwarf(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	sb_puts(out, "#include \"probes/dwarf.c\"\n");
	for (int i = 0; i < n; i++) {
		DwarfSite *site = dps[i]->site;
		if (!site->is_return)
			sb_printf(out, "STP_DWARF_KPROBE(%d)\n", dps[i]->index);
		else if (site->entry_size > 0)
			sb_printf(out, "STP_DWARF_KRETPROBE_ENTRY(%d)\n", dps[i]->index);
		else
			sb_printf(out, "STP_DWARF_KRETPROBE(%d)\n", dps[i]->index);
	}
	sb_puts(out, "static struct stp_dwarf_probe stp_dwarf_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *dp = dps[i];
		const DwarfSite *site = dp->site;
		int k = dp->index;
		sb_printf(out, "\t{ .desc = &stp_descs[%d], ", k);
		if (site->anchor) {
			sb_puts(out, ".symbol = ");
			emit_c_string(out, site->anchor);
			sb_printf(out, ", .offset = 0x%" PRIx64 "UL", site->offset);
		} else {
			sb_printf(out, ".addr = 0x%" PRIx64 "UL", (uint64_t)site->pc);
		}
		if (site->mod && !site->mod->is_kernel) {
			sb_puts(out, ", .module = ");
			emit_c_string(out, site->mod->name);
		}
		if (!site->is_return)
			sb_printf(out, ", .entry = stp_dwarf_hit_%d", k);
		else
			sb_printf(out, ", .ret = stp_dwarf_ret_%d", k);
		if (site->is_return && site->entry_size > 0)
			sb_printf(out, ", .ret_entry = stp_dwarf_ret_entry_%d, .entry_size = %d", k, site->entry_size);
		if (dp->is_return && dp->number > 0)
			sb_printf(out, ", .maxactive = %lld", (long long)dp->number);
		if (dp->optional)
			sb_puts(out, ", .optional = 1");
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_DWARF_FAMILY(stp_dwarf_probes)\n\n");
}

static const char *const dwarf_forms[] = {
	"kernel.function(string)",
	"kernel.function(string).call",
	"kernel.function(string).exported",
	"kernel.function(string).inline",
	"kernel.function(string).return",
	"kernel.function(string).return.maxactive(number)",
	"kernel.statement(number).absolute",
	"kernel.statement(string)",
	"module(string).function(string)",
	"module(string).function(string).call",
	"module(string).function(string).exported",
	"module(string).function(string).inline",
	"module(string).function(string).return",
	"module(string).function(string).return.maxactive(number)",
	"module(string).statement(string)",
	NULL,
};

const ProbeProvider dwarf_provider = { .family = "kernel", .resolve_many = resolve_dwarf, .emit = emit_dwarf,
				       .forms = dwarf_forms };
