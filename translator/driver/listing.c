/* listing.c - what pass 2 shows a user: the resolved program (stap -p2), the
 * probe points matching a pattern (-l, -L) and the library (--dump-*). */
#include "driver/listing.h"
#include "elaborate/elaborate.h"
#include "elaborate/expand.h"
#include "providers/provider.h"
#include "elaborate/tapsets.h"
#include "btf/btfvars.h"
#include "dwarf/dwarf.h"

#include <dwarf.h>

#include <stdio.h>
#include <string.h>

static void print_type(const Symbol *sym, StrBuf *out)
{
	sb_printf(out, "%s:%s", sym->name, type_name(sym->type));
	if (sym->is_array == 1) {
		sb_puts(out, " [");
		for (int k = 0; k < sym->nkeys; k++)
			sb_printf(out, "%s%s", k ? ", " : "", type_name(sym->keytypes[k]));
		sb_putc(out, ']');
	}
}

static void print_locals(PtrVec *syms, StrBuf *out)
{
	if (!syms->len)
		return;
	sb_puts(out, "  # locals\n");
	for (int i = 0; i < syms->len; i++) {
		sb_puts(out, "  ");
		print_type(syms->items[i], out);
		sb_putc(out, '\n');
	}
}

static void print_signature(const Function *f, StrBuf *out)
{
	sb_printf(out, "%s:%s (", f->name, f->ret == TY_UNKNOWN ? "unknown" : type_name(f->ret));
	for (int j = 0; j < f->params.len; j++) {
		if (j)
			sb_puts(out, ", ");
		print_type(f->params.items[j], out);
	}
	sb_putc(out, ')');
}

void print_resolved(Session *s, StrBuf *out)
{
	Program *prog = &s->prog;

	sb_puts(out, "# globals\n");
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		print_type(g, out);
		if (g->loc.file && g->loc.file->is_tapset)
			sb_printf(out, " /* from %s */", g->loc.file->name);
		sb_putc(out, '\n');
	}
	sb_puts(out, "# functions\n");
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		print_signature(f, out);
		if (f->embedded)
			sb_puts(out, " /* embedded C */");
		if (f->recursive)
			sb_puts(out, " /* recursive */");
		if (f->loc.file && f->loc.file->is_tapset)
			sb_printf(out, " /* from %s */", f->loc.file->name);
		sb_putc(out, '\n');
		print_locals(&f->locals, out);
	}
	sb_puts(out, "# probes\n");
	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		const char *from = dp->probe->chain;
		char *written = NULL;
		if (!from) {
			written = pp_text(dp->point);
			from = written;
		}
		sb_printf(out, "%s /* <- %s */\n", dp->name, from);
		print_locals(&dp->probe->locals, out);
		free(written);
	}
	if (prog->recursive)
		sb_printf(out, "# calls: recursive (bounded by MAXNESTING at run time, %d by default)\n",
			  prog->call_depth + 10);
	else
		sb_printf(out, "# calls: at most %d deep\n", prog->call_depth);
}

/* ---- stap -l / -L ---- */

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* print_sorted: the listing's lines (strings) sorted, one a line on stdout */
static void print_sorted(PtrVec *lines)
{
	if (lines->len)
		qsort(lines->items, (size_t)lines->len, sizeof(char *), compare_strings);
	for (int i = 0; i < lines->len; i++)
		printf("%s\n", (char *)lines->items[i]);
}

static Symbol *find_local(Probe *p, const char *name)
{
	for (int i = 0; i < p->locals.len; i++) {
		Symbol *sym = p->locals.items[i];
		if (!strcmp(sym->name, name))
			return sym;
	}
	return NULL;
}

/* -L for a DWARF site: " $name:type" for each variable there, parameters then locals ($return
 * first for .return probes), as SystemTap lists them. */
static void add_var(StrBuf *sb, StrMap *seen, Dwarf_Die *var)
{
	const char *name = dwarf_diename(var);
	Dwarf_Attribute a;
	Dwarf_Die type;
	char *tname;

	if (!name || strmap_get(seen, name))
		return;
	strmap_put(seen, name, (void *)1);
	if (dwarf_formref_die(dwarf_attr_integrate(var, DW_AT_type, &a), &type))
		tname = dwarf_type_name(&type);
	else
		tname = xstrdup("void");
	sb_printf(sb, " $%s:%s", name, tname);
	free(tname);
}

static void add_vars(StrBuf *sb, StrMap *seen, Dwarf_Die *scope, Dwarf_Addr pc, int tag, int depth)
{
	Dwarf_Die child;

	if (depth > 32 || dwarf_child(scope, &child) != 0)
		return;
	do {
		int t = dwarf_tag(&child);
		if (t == tag)
			add_var(sb, seen, &child);
		else if (tag == DW_TAG_variable && t == DW_TAG_lexical_block && dwarf_haspc(&child, pc) > 0)
			add_vars(sb, seen, &child, pc, tag, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void site_vars(const TgSite *site, StrBuf *sb)
{
	Dwarf_Die scope, type;
	Dwarf_Attribute a;
	StrMap seen = { 0 };

	if (!site->mod || !site->mod->dw || !site->scope || !dwarf_offdie(site->mod->dw, site->scope, &scope))
		return;
	if (site->is_tracepoint) {
		/* the prototype's parameters after the probe data */
		Dwarf_Die child;
		int first = 1;
		if (dwarf_child(&scope, &child) == 0) {
			do {
				if (dwarf_tag(&child) != DW_TAG_formal_parameter)
					continue;
				if (!first)
					add_var(sb, &seen, &child);
				first = 0;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		free(seen.keys);
		free(seen.values);
		return;
	}
	if (site->is_return) {
		if (dwarf_formref_die(dwarf_attr_integrate(&scope, DW_AT_type, &a), &type)) {
			char *tname = dwarf_type_name(&type);
			sb_printf(sb, " $return:%s", tname);
			free(tname);
		}
	}
	if (site->is_inline) {
		/* the abstract function lists its parameters in declaration order; its instances may not */
		Dwarf_Die origin;
		if (dwarf_formref_die(dwarf_attr(&scope, DW_AT_abstract_origin, &a), &origin))
			add_vars(sb, &seen, &origin, site->pc, DW_TAG_formal_parameter, 0);
	}
	add_vars(sb, &seen, &scope, site->pc, DW_TAG_formal_parameter, 0);
	if (!site->is_return)
		add_vars(sb, &seen, &scope, site->pc, DW_TAG_variable, 0);
	free(seen.keys);
	free(seen.values);
}

/* -L for a family's context variables without DWARF ($value of procfs probes): " $name:type". */
static void context_vars(Session *s, const DerivedProbe *dp, StrBuf *sb)
{
	const char *const *names = dp->provider->context_vars;

	for (; names && *names && dp->provider->context_var; names++) {
		const ContextVar *cv = dp->provider->context_var(s, dp, *names);
		if (cv)
			sb_printf(sb, " %s:%s", cv->name, cv->type == TY_STRING ? "string" : "long");
	}
}

/* One line per probe point the pattern stands for: the alias name it matched,
 * else the provider's point; with -L, the variables an alias sets. */
int run_listing(Session *s)
{
	PtrVec lines = { 0 };
	StrMap seen = { 0 };
	int errors;

	s->unoptimized = 1;   /* keep every alias variable for -L */
	errors = elaborate(s);
	if (errors)
		return errors;
	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		Probe *p = dp->probe;
		StrBuf sb;
		sb_init(&sb);
		sb_puts(&sb, p->alias_name ? p->alias_name : dp->name);
		if (s->list_vars && dp->site && !p->alias_name)
			dp->site->btf_func ? btf_site_vars(dp->site->btf ? dp->site->btf : s->btf, dp->site, &sb) : site_vars(dp->site, &sb);
		if (s->list_vars && !p->alias_name)
			context_vars(s, dp, &sb);
		if (s->list_vars) {
			for (int j = 0; j < p->alias_locals.len; j++) {
				const char *name = p->alias_locals.items[j];
				Symbol *sym = find_local(p, name);
				if (!sym || !strncmp(name, "__", 2))
					continue;
				sb_putc(&sb, ' ');
				print_type(sym, &sb);
			}
			for (int j = 0; j < p->params.len; j++)
				sb_printf(&sb, " %s", (const char *)p->params.items[j]);
		}
		if (!strmap_get(&seen, sb.data)) {
			strmap_put(&seen, sb.data, (void *)1);
			vec_push(&lines, sb.data);
		}
	}
	print_sorted(&lines);
	return 0;
}

/* ---- --dump-* ---- */

static int dump_functions(Session *s)
{
	PtrVec lines = { 0 };
	int errors = tapsets_load_all(s);

	if (!errors)
		errors = elaborate_library(s);
	if (errors)
		return errors;
	for (int i = 0; i < s->prog.functions.len; i++) {
		Function *f = s->prog.functions.items[i];
		StrBuf sb;
		if (f->is_private || !strncmp(f->name, "_", 1))
			continue;
		sb_init(&sb);
		print_signature(f, &sb);
		vec_push(&lines, sb.data);
	}
	print_sorted(&lines);
	return 0;
}

int run_dump(Session *s)
{
	if (!strcmp(s->dump, "functions"))
		return dump_functions(s);
	if (!strcmp(s->dump, "probe-aliases")) {
		PtrVec lines = { 0 };
		int errors = tapsets_load_all(s);
		if (errors)
			return errors;
		for (int i = 0; i < s->prog.probes.len; i++) {
			Probe *p = s->prog.probes.items[i];
			StrBuf sb;
			if (p->alias == ALIAS_NONE)
				continue;
			sb_init(&sb);
			for (int j = 0; j < p->alias_names.len; j++)
				sb_printf(&sb, "%s%s", j ? ", " : "", pp_text(p->alias_names.items[j]));
			sb_puts(&sb, p->alias == ALIAS_PROLOGUE ? " = " : " += ");
			for (int j = 0; j < p->points.len; j++)
				sb_printf(&sb, "%s%s", j ? ", " : "", pp_text(p->points.items[j]));
			vec_push(&lines, sb.data);
		}
		print_sorted(&lines);
		return 0;
	}
	{
		PtrVec forms = { 0 };
		for (int i = 0; provider_at(i); i++) {
			const ProbeProvider *p = provider_at(i);
			for (int j = 0; p->forms && p->forms[j]; j++)
				vec_push(&forms, (void *)p->forms[j]);
		}
		if (forms.len)
			qsort(forms.items, (size_t)forms.len, sizeof(char *), compare_strings);
		for (int i = 0; i < forms.len; i++)
			printf("%s\n", (char *)forms.items[i]);
		free(forms.items);
	}
	return 0;
}
