/* ulibs.c - process("PATH").library("LIB"): the libraries of the executable that LIB names, found as
 * the dynamic loader finds them (dwarf/userfile.c), each probed as process("LIBPATH"). Used by registry.c. */
#include "providers/ulibs.h"
#include "elaborate/pointmatch.h"
#include "image/elffile.h"
#include "dwarf/userfile.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* The libraries of exe that LIB names (pushed on out, resolved, each once): a path, or a soname or
 * glob matched against the sonames the executable needs and their files' names; a soname it does
 * not need (a library it opens with dlopen) is looked up as the loader would. */
static void ulib_match(const char *exe, const char *lib, PtrVec *out)
{
	PtrVec sonames = { 0 }, paths = { 0 };

	if (strchr(lib, '/')) {
		char *p = realpath(lib, NULL);
		if (p)
			vec_push(out, p);
		return;
	}
	userfile_needed(exe, &sonames, &paths);
	for (int i = 0; i < paths.len; i++) {
		const char *path = paths.items[i], *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		int k;
		if (fnmatch(lib, sonames.items[i], 0) != 0 && fnmatch(lib, base, 0) != 0)
			continue;
		for (k = 0; k < out->len && strcmp(out->items[k], path); k++)
			;
		if (k == out->len)
			vec_push(out, xstrdup(path));
	}
	if (!out->len && !has_wildcard(lib)) {
		char *p = userfile_find_soname(lib);
		if (p)
			vec_push(out, p);
	}
	for (int i = 0; i < paths.len; i++) {
		free(sonames.items[i]);
		free(paths.items[i]);
	}
	free(sonames.items);
	free(paths.items);
}

/* ---- process("PATH").library("LIB") ------------------------------------------------------------- */

/* Whether the file at path has DWARF, its own or separate (userfile_open_dwarf). */
static int ulib_has_dwarf(Session *s, const char *path)
{
	Elf *elf;
	int fd;
	char *why = NULL;
	Dwarf *dw = elffile_open(path, 0, &fd, &elf) == ELFFILE_OK ? userfile_open_dwarf(s, elf, path, &why) : NULL;

	if (dw) {
		Elf *debug = dwarf_getelf(dw);
		dwarf_end(dw);
		if (debug != elf)
			elf_end(debug);   /* (its descriptor stays open until the run ends) */
	}
	free(why);
	elffile_close(elf, fd);
	return dw != NULL;
}

static int ulib_resolve(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *c1 = pp_component(pp, 1), *c2 = pp_component(pp, 2);
	const ProbeProvider *prov;
	PtrVec libs = { 0 };
	char *exe;
	int total = 0;

	if (!c0->arg || c0->arg->kind != EX_STRING) {
		diag_at(&s->diag, c0->loc, "semantic error", ".library(\"LIB\") needs process(\"PATH\") before it");
		return -1;
	}
	if (!c1->arg || c1->arg->kind != EX_STRING || !c1->arg->str[0]) {
		diag_at(&s->diag, c1->loc, "semantic error", "process(\"PATH\").library needs a library path or soname");
		return -1;
	}
	if (!c2 || !c2->name || (strcmp(c2->name, "function") && strcmp(c2->name, "statement") && strcmp(c2->name, "plt") &&
				 strcmp(c2->name, "mark") && strcmp(c2->name, "provider"))) {
		diag_at(&s->diag, c2 ? c2->loc : c1->loc, "semantic error", "expected .function(\"PATTERN\"), .statement(...), .plt(...), "
			".mark(\"NAME\") or .provider(\"P\").mark(\"NAME\") after process(\"PATH\").library(\"LIB\")");
		return -1;
	}
	/* the rest is the process family's: functions, statements and PLT entries, or SDT markers */
	prov = strcmp(c2->name, "mark") && strcmp(c2->name, "provider") ? &uprobe_provider : &sdt_provider;
	exe = process_point_path(s, c0);
	if (!exe)
		return -1;
	ulib_match(exe, c1->arg->str, &libs);
	if (!libs.len) {
		if (has_wildcard(c1->arg->str))
			return 0;
		diag_at(&s->diag, c1->arg->loc, "semantic error", "process(\"%s\").library(\"%s\"): no such library (not needed by the "
			"executable, not in the loader's cache or standard directories)", exe, c1->arg->str);
		return -1;
	}
	for (int i = 0; i < libs.len; i++) {
		/* the same point on the library itself: process("LIBPATH").function(...) */
		ProbePoint lp = *pp;
		ProbePointComponent lc0 = *c0;
		DerivedProbe t = *tmpl;
		int n;
		/* a glob over the libraries: functions only in those with DWARF (markers need none) */
		if (prov == &uprobe_provider && has_wildcard(c1->arg->str) && !ulib_has_dwarf(s, libs.items[i]))
			continue;
		lc0.arg = expr_new(EX_STRING, c1->arg->loc);
		lc0.arg->str = libs.items[i];
		lp.components = (PtrVec){ 0 };
		vec_push(&lp.components, &lc0);
		for (int k = 2; k < pp->components.len; k++)
			vec_push(&lp.components, pp->components.items[k]);
		t.provider = prov;
		/* a glob over the libraries: a library without the function or marker is no error */
		if (has_wildcard(c1->arg->str))
			diag_mute(&s->diag, 1);
		n = prov->resolve_many(s, &lp, &t, out);
		if (has_wildcard(c1->arg->str)) {
			diag_mute(&s->diag, -1);
			n = n < 0 ? 0 : n;
		}
		free(lp.components.items);
		if (n < 0)
			return -1;
		total += n;
	}
	if (!total && has_wildcard(c1->arg->str) && c2->arg && c2->arg->kind == EX_STRING && !has_wildcard(c2->arg->str) &&
	    !pp_component(pp, 3)) {
		diag_at(&s->diag, c2->arg->loc, "semantic error", "no %s '%s' in the libraries of %s matching '%s'",
			prov == &uprobe_provider ? "function" : "SDT marker", c2->arg->str, exe, c1->arg->str);
		return -1;
	}
	return total;
}

static const char *const ulib_forms[] = {
	"process(string).library(string).function(string)",
	"process(string).library(string).function(string).call",
	"process(string).library(string).function(string).return",
	"process(string).library(string).mark(string)",
	"process(string).library(string).provider(string).mark(string)",
	NULL,
};

const ProbeProvider ulib_provider = { .family = "process", .member = "library", .cname = "ulib",
				      .resolve_many = ulib_resolve, .forms = ulib_forms };
