/* dwarfpoint.c - what the DWARF probe families share: FUNC@FILE:LINE patterns, inline instances
 * (scanned once per compile unit), entry addresses, line spans and statement lines.  Used by kernelfn.c and uprobe.c. */
#include "providers/dwarfpoint.h"
#include "elaborate/pointmatch.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int point_parse_pattern(Diag *d, const char *text, SrcLoc loc, Pattern *p)
{
	const char *at = strchr(text, '@');
	const char *file, *sep;

	memset(p, 0, sizeof *p);
	if (!at) {
		if (!*text) {
			diag_at(d, loc, "semantic error", "empty function name in probe point pattern");
			return -1;
		}
		if (strpbrk(text, ":+")) {
			diag_at(d, loc, "semantic error", "'%s': a line number needs a file: write \"FUNCTION@FILE:LINE\"", text);
			return -1;
		}
		p->func = xstrdup(text);
		return 0;
	}
	if (at == text) {
		diag_at(d, loc, "semantic error", "empty function name before '@' in '%s' (\"*@FILE\" means every function)",
			text);
		return -1;
	}
	p->func = xstrndup(text, (size_t)(at - text));
	if (strchr(at + 1, '@')) {
		diag_at(d, loc, "semantic error", "more than one '@' in '%s'", text);
		return -1;
	}
	file = at + 1;
	sep = strpbrk(file, ":+");
	if (sep == file || !*file) {
		diag_at(d, loc, "semantic error", "empty file name after '@' in '%s'", text);
		return -1;
	}
	p->file = xstrndup(file, sep ? (size_t)(sep - file) : strlen(file));
	if (!sep)
		return 0;
	if (*sep == '+') {
		p->lines = LINE_RELATIVE;
		if (parse_number(sep + 1, sep + strlen(sep), &p->first) != 0) {
			diag_at(d, loc, "semantic error", "bad line offset '%s' in '%s': expected +N", sep, text);
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
				diag_at(d, loc, "semantic error", "bad line range '%s' in '%s': expected :FIRST-LAST", spec, text);
				return -1;
			}
			if (p->last < p->first) {
				diag_at(d, loc, "semantic error", "empty line range %d-%d in '%s'", p->first, p->last, text);
				return -1;
			}
			return 0;
		}
		p->lines = LINE_ONE;
		if (parse_number(spec, end, &p->first) != 0 || p->first == 0) {
			diag_at(d, loc, "semantic error", "bad line number '%s' in '%s': expected :LINE, :FIRST-LAST or :*", spec,
				text);
			return -1;
		}
		p->last = p->first;
	}
	return 0;
}

/* ---- per-CU data: inline instances and line tables ----------------------------------------------- */


typedef struct CuData {
	DwarfModule *mod;
	Dwarf_Off cu;
	int scanned;
	Instances *inl;         /* sorted by origin */
	size_t ninl;
} CuData;

static CuData *cu_get(DwarfModule *m, Dwarf_Off cu)
{
	CuData *d;

	for (int i = m->cu_data.len - 1; i >= 0; i--) {
		d = m->cu_data.items[i];
		if (d->cu == cu)
			return d;
	}
	d = xcalloc(1, sizeof *d);
	d->mod = m;
	d->cu = cu;
	vec_push(&m->cu_data, d);
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
Instances *point_inline_instances(DwarfModule *m, Dwarf_Off cu, Dwarf_Off origin)
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
int point_die_entry_pc(Dwarf_Die *die, Dwarf_Addr *pc)
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


/* The line span [lo, hi] of a function's code in its own file (0, 0 when unknown). */
void point_function_span(DwarfModule *m, Dwarf_Die *fn, const char *file, int *lo, int *hi)
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

/* The lines [*first, *last] pat asks for in a function declared at decl_line. */
static void pattern_lines(const Pattern *pat, int decl_line, int *first, int *last)
{
	switch (pat->lines) {
	case LINE_ONE:
	case LINE_RANGE:
		*first = pat->first;
		*last = pat->last;
		break;
	case LINE_RELATIVE:
		*first = *last = decl_line + pat->first;
		break;
	default:
		*first = 1;
		*last = 1 << 30;
		break;
	}
}

static char *no_lines_message(int first, int last, const char *file, const char *func, int below, int above)
{
	StrBuf sb;

	sb_init(&sb);
	if (first == last)
		sb_printf(&sb, "no code for line %d of %s in %s", first, file, func);
	else
		sb_printf(&sb, "no code for lines %d-%d of %s in %s", first, last, file, func);
	if (below || above) {
		sb_puts(&sb, " (nearest lines with code:");
		if (below)
			sb_printf(&sb, " %d", below);
		if (above)
			sb_printf(&sb, "%s %d", below ? "," : "", above);
		sb_putc(&sb, ')');
	}
	return sb_steal(&sb);
}

size_t point_statement_lines_of(DwarfModule *m, const DwarfName *n, const DwarfNameInfo *info, const Pattern *pat,
				PtrVec *nolines, PointLine **out)
{
	char *why;
	size_t nbest = point_statement_lines(m, n->die, n->name, pat, info->decl_line, info->decl_file, out, &why);

	if (why)
		vec_push(nolines, why);
	return nbest;
}

size_t point_statement_lines(DwarfModule *m, Dwarf_Off die, const char *func, const Pattern *pat, int decl_line,
			     const char *want_file, PointLine **out, char **why)
{
	Dwarf_Die fn, cudie;
	Dwarf_Lines *lines;
	size_t nl, nbest = 0;
	int first, last, below = 0, above = 0;
	PointLine *best = NULL;

	*out = NULL;
	*why = NULL;
	if (!dwarf_offdie(m->dw, die, &fn) || !dwarf_diecu(&fn, &cudie, NULL, NULL) ||
	    dwarf_getsrclines(&cudie, &lines, &nl) != 0)
		return 0;
	pattern_lines(pat, decl_line, &first, &last);
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int line;
		bool stmt;
		size_t k;
		if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0 || line <= 0 ||
		    dwarf_linebeginstatement(l, &stmt) != 0 || dwarf_haspc(&fn, addr) <= 0)
			continue;
		if (pat->file ? !point_file_matches(pat->file, dwarf_line_source(m, &cudie, l))
			      : strcmp(dwarf_line_source(m, &cudie, l), want_file))
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
			best[nbest++] = (PointLine){ line, addr, stmt };
		} else if ((stmt && !best[k].stmt) || (stmt == best[k].stmt && addr < best[k].addr)) {
			best[k] = (PointLine){ line, addr, stmt };
		}
	}
	if (!nbest && pat->lines != LINE_ALL)
		*why = no_lines_message(first, last, want_file, func, below, above);
	*out = best;
	return nbest;
}
