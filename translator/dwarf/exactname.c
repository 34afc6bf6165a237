/* exactname.c - an exact function name of the kernel looked up without the DWARF index: its ELF
 * symbol, the compile unit .debug_aranges gives for that address, that unit's DIEs. Used by index.c. */
#include "dwarf/dwarf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why the index could answer otherwise than the symbol's unit, or NULL. The index lists every
 * non-declaration subprogram named name in every unit. A global function symbol that is the only
 * symbol of its name has its definition in one unit, where any inline copies of it are too
 * (no LTO: a global function is only inlined in its own unit); a static function may have copies
 * in several units (a header's static inline), out of line or inlined only, so it is left to the
 * index, as are names with no symbol (inlined everywhere) or several.  What this cannot see, on
 * 6.1 (bench/README.md, 2026-11-23): a __weak default overridden elsewhere keeps its DWARF in its
 * own unit (102 names: one more location, which kprobes refuse, so only -v differs; 485 names: a
 * subprogram without code, which makes no site), and 4 names are also static functions of other
 * units, inlined only (alloc_pgtable_page, free_pgtable_page, cleanup_slots,
 * translation_pre_enabled): their copies there are not found. */
static const char *exact_refusal(DwarfModule *m, const char *name, Dwarf_Die *cudie, Dwarf_Addr *addr)
{
	/* the functions include/linux/fortify-string.h (6.1 to 6.12) defines again as extern inline
	 * (gnu_inline): with CONFIG_FORTIFY_SOURCE, every unit may hold inlined copies of them, beside
	 * the global definition of lib/string.c or mm/util.c */
	static const char *const fortified[] = {
		"kmemdup", "kmemdup_noprof", "memchr", "memchr_inv", "memcmp", "memcpy", "memmove", "memscan",
		"memset", "sized_strscpy", "strcat", "strcpy", "strlcat", "strlcpy", "strlen", "strncat",
		"strncpy", "strnlen", "strscpy",
	};
	int type, bind;

	for (size_t i = 0; i < sizeof fortified / sizeof fortified[0]; i++)
		if (!strcmp(name, fortified[i]))
			return "a string function fortify-string.h may inline in any unit";
	switch (dwarf_symbol_named(m, name, addr, &type, &bind)) {
	case 0: return "no symbol of that name";
	case 1: break;
	default: return "several symbols of that name";
	}
	if (type != STT_FUNC || bind != STB_GLOBAL)
		return "its symbol is not a global function";
	if (!dwarf_addrdie(m->dw, *addr, cudie))
		return "no compile unit covers its address in .debug_aranges";
	return NULL;
}

int dwarf_exact_wanted(DwarfModule *m)
{
	const char *env = getenv("STAP_DWARF_FASTPATH");

	return m->is_kernel && !(env && !strcmp(env, "0"));
}

/* The unit's entries for name include the global function at addr (external, with code there). */
static int exact_has_definition(const PtrVec *found, size_t from, Dwarf_Addr addr)
{
	for (size_t i = from; i < (size_t)found->len; i++) {
		const DwarfExact *x = found->items[i];
		if ((x->n.flags & DWARF_NAME_HAS_PC) && (x->n.flags & DWARF_NAME_EXTERNAL) && x->info.pc == addr)
			return 1;
	}
	return 0;
}

int dwarf_exact_each(DwarfModule *m, const char *name, int (*fn)(const DwarfName *n, void *arg), void *arg)
{
	Session *s = m->session;
	double t0 = now_ms();
	Dwarf_Die cudie;
	Dwarf_Addr addr = 0;
	size_t base = (size_t)m->exact.len;
	const char *why = exact_refusal(m, name, &cudie, &addr);
	int calls = 0;

	if (!why && (dwarf_index_cu_functions(m, &cudie, name, &m->exact) == 0 ||
		     !exact_has_definition(&m->exact, base, addr)))
		why = "its compile unit does not define it at the symbol's address";
	if (why) {
		/* the entries read stay (names in the list are never freed while m is open) */
		if (s && s->verbose >= 2)
			fprintf(stderr, "DWARF: '%s' looked up in the index: %s\n", name, why);
		return -1;
	}
	if (s && s->verbose >= 2)
		fprintf(stderr, "DWARF: '%s' found without the index: symbol at 0x%llx, compile unit %s (%d entries) "
			"in %.1f ms\n", name, (unsigned long long)addr,
			((DwarfExact *)m->exact.items[base])->info.cu_name, m->exact.len - (int)base, now_ms() - t0);
	for (size_t i = base; i < (size_t)m->exact.len; i++) {
		DwarfName n = ((DwarfExact *)m->exact.items[i])->n;
		n.idx = DWARF_NAME_IDX_EXACT | (uint32_t)i;
		calls++;
		if (fn(&n, arg))
			break;
	}
	return calls;
}
