/* entry-locs.c - where a module's function parameters (and locals at a line) live, read from its DWARF.
 * Used by tests/guest/testmod.t (build): stap_testmod's values must be readable where probes look. */

/*
 * entry-locs KO PREFIX
 *     Every function of KO whose name starts with PREFIX: out-of-line
 *     definitions and inlined instances (named by their origin), in entry pc
 *     order. Per function a line "PC FUNC SYM+0xOFF" (where its entry pc is,
 *     as a kprobe would name it: the enclosing out-of-line function and the
 *     offset), then per formal parameter "FUNC PARAM KIND". Inlined instances
 *     are FUNC@inline#1, #2... in entry pc order.
 * entry-locs --at LINE KO FUNC
 *     The lowest address of source line LINE inside FUNC: "PC FUNC+0xOFF
 *     (N addresses)", then "FUNC VAR KIND" for its parameters and locals
 *     (lexical blocks included, inlined instances not).
 * KIND is the first operation of the location expression that covers the pc
 * (reg5, breg9+0, fbreg-48, addr, entry_value...), "const" for
 * DW_AT_const_value, or MISSING. Exit status 1 if any is MISSING, 2 on
 * errors. A .ko is an ET_REL file: libdwfl lays its sections out and applies
 * the relocations of the DWARF sections, so addresses are consistent.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int missing;

static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void op_name(const Dwarf_Op *op, char *buf, size_t len)
{
	unsigned int a = op->atom;

	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		snprintf(buf, len, "reg%u", a - DW_OP_reg0);
	else if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		snprintf(buf, len, "breg%u%+" PRId64, a - DW_OP_breg0, (int64_t)op->number);
	else if (a == DW_OP_fbreg)
		snprintf(buf, len, "fbreg%+" PRId64, (int64_t)op->number);
	else if (a == DW_OP_addr)
		snprintf(buf, len, "addr");
	else if (a == DW_OP_entry_value || a == DW_OP_GNU_entry_value)
		snprintf(buf, len, "entry_value");
	else if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		snprintf(buf, len, "lit%u", a - DW_OP_lit0);
	else
		snprintf(buf, len, "op0x%x", a);
}

/* one variable or parameter: where it is at pc */
static void var(const char *func, Dwarf_Die *v, Dwarf_Addr pc)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;
	char kind[48] = "MISSING";
	const char *name = dwarf_diename(v);

	if (dwarf_attr_integrate(v, DW_AT_const_value, &attr))
		snprintf(kind, sizeof(kind), "const");
	else if (dwarf_attr(v, DW_AT_location, &attr) &&
		 dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) == 1 && len > 0)
		op_name(&expr[0], kind, sizeof(kind));
	if (strcmp(kind, "MISSING") == 0)
		missing = 1;
	printf("%s %s %s\n", func, name ? name : "?", kind);
}

/* the parameters (and with locals, the variables, lexical blocks included) of die at pc */
static void vars(const char *func, Dwarf_Die *die, Dwarf_Addr pc, int locals)
{
	Dwarf_Die child;
	int tag;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_formal_parameter || (locals && tag == DW_TAG_variable))
			var(func, &child, pc);
		else if (locals && tag == DW_TAG_lexical_block)
			vars(func, &child, pc, locals);
	} while (dwarf_siblingof(&child, &child) == 0);
}

struct fn {
	Dwarf_Die die;
	Dwarf_Addr pc;		/* entry pc */
	Dwarf_Addr outer_pc;	/* low pc of the enclosing out-of-line function */
	const char *name;
	const char *outer;	/* its name */
	int inlined;
};
static struct fn fns[1024];
static int nfns;

/* collects the functions named PREFIX*; outer: the enclosing subprogram, if any */
static void walk(Dwarf_Die *die, const char *prefix, struct fn *outer)
{
	Dwarf_Die child;
	struct fn f, *in = outer;
	int tag = dwarf_tag(die);

	if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
		memset(&f, 0, sizeof(f));
		f.die = *die;
		f.name = dwarf_diename(die);
		f.inlined = tag == DW_TAG_inlined_subroutine;
		if (dwarf_entrypc(die, &f.pc) == 0 && f.name) {
			if (!f.inlined) {
				f.outer = f.name;
				f.outer_pc = f.pc;
				if (dwarf_lowpc(die, &f.outer_pc) != 0)
					f.outer_pc = f.pc;
			} else if (outer) {
				f.outer = outer->outer;
				f.outer_pc = outer->outer_pc;
			}
			if (f.outer && strncmp(f.name, prefix, strlen(prefix)) == 0 &&
			    nfns < (int)(sizeof(fns) / sizeof(fns[0])))
				fns[nfns++] = f;
			if (!f.inlined)
				in = &f;
		}
	}
	if (dwarf_child(die, &child) != 0)
		return;
	do {
		walk(&child, prefix, in);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int by_pc(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* all the functions named PREFIX*, with their parameters at entry */
static void entry_mode(Dwarf *dw, const char *prefix)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	char func[256];
	int i, j, k;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			walk(&cu, prefix, NULL);
		off = next;
	}
	qsort(fns, nfns, sizeof(fns[0]), by_pc);
	for (i = 0; i < nfns; i++) {
		if (fns[i].inlined) {
			for (j = k = 0; j < i; j++)
				k += fns[j].inlined && strcmp(fns[j].name, fns[i].name) == 0;
			snprintf(func, sizeof(func), "%s@inline#%d", fns[i].name, k + 1);
		} else {
			snprintf(func, sizeof(func), "%s", fns[i].name);
		}
		printf("PC %s %s+0x%" PRIx64 "\n", func, fns[i].outer,
		       (uint64_t)(fns[i].pc - fns[i].outer_pc));
		vars(func, &fns[i].die, fns[i].pc, 0);
	}
}

/* the variables of FUNC at the lowest address of LINE */
static int at_mode(Dwarf *dw, int line, const char *func)
{
	Dwarf_Off off = 0, next;
	size_t hsize, nlines, i;
	int n, found = 0;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		Dwarf_Addr low, high, best = 0, a;

		if (!dwarf_offdie(dw, off + hsize, &cu))
			break;
		off = next;
		nfns = 0;
		walk(&cu, func, NULL);
		for (n = 0; n < nfns; n++) {
			if (fns[n].inlined || strcmp(fns[n].name, func) != 0)
				continue;
			if (dwarf_lowpc(&fns[n].die, &low) != 0 ||
			    dwarf_highpc(&fns[n].die, &high) != 0 ||
			    dwarf_getsrclines(&cu, &lines, &nlines) != 0)
				continue;
			found = 0;
			for (i = 0; i < nlines; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				int ln;
				bool stmt;

				if (dwarf_lineno(l, &ln) || ln != line || dwarf_lineaddr(l, &a) ||
				    dwarf_linebeginstatement(l, &stmt) || !stmt || a < low || a >= high)
					continue;
				if (!found || a < best)
					best = a;
				found++;
			}
			if (!found) {
				fprintf(stderr, "entry-locs: no address of line %d in %s\n", line, func);
				return 2;
			}
			printf("PC %s+0x%" PRIx64 " (%d addresses)\n", func, (uint64_t)(best - low), found);
			vars(func, &fns[n].die, best, 1);
			return missing;
		}
	}
	fprintf(stderr, "entry-locs: no function %s\n", func);
	return 2;
}

int main(int argc, char **argv)
{
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	const char *ko;
	int at = argc == 5 && strcmp(argv[1], "--at") == 0, rc;

	if (argc != 3 && !at) {
		fprintf(stderr, "usage: entry-locs KO PREFIX | entry-locs --at LINE KO FUNC\n");
		return 2;
	}
	ko = at ? argv[3] : argv[1];
	dwfl = dwfl_begin(&callbacks);
	if (!dwfl)
		return 2;
	mod = dwfl_report_offline(dwfl, "", ko, -1);
	if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		fprintf(stderr, "entry-locs: %s: %s\n", ko, dwfl_errmsg(-1));
		return 2;
	}
	dw = dwfl_module_getdwarf(mod, &bias);
	if (!dw) {
		fprintf(stderr, "entry-locs: %s: no DWARF: %s\n", ko, dwfl_errmsg(-1));
		return 2;
	}
	if (at) {
		rc = at_mode(dw, atoi(argv[2]), argv[4]);
	} else {
		entry_mode(dw, argv[2]);
		rc = missing;
	}
	dwfl_end(dwfl);
	return rc;
}
