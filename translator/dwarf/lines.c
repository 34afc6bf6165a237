/* lines.c - a binary's DWARF line table read with libdw, each row handed on in neutral terms
 * (dwarf/lines.h); used by kmodule/ulines.c for usymfileline/usymfile/usymline. */
#include "dwarf/lines.h"

#include <elfutils/libdw.h>
#include <stdbool.h>

void dw_line_rows(Elf *elf, DwLineRow row, void *ctx)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!dw)
		return;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &nl) == 0) {
			for (size_t i = 0; i < nl; i++) {
				Dwarf_Line *ln = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				int lineno;
				bool end = false;
				const char *src;

				if (!ln || dwarf_lineaddr(ln, &a) || dwarf_lineno(ln, &lineno) ||
				    dwarf_lineendsequence(ln, &end))
					continue;
				if (end)
					row(ctx, a, NULL, 0);
				else if ((src = dwarf_linesrc(ln, NULL, NULL)) && lineno > 0)
					row(ctx, a, src, lineno);
			}
		}
		off = next;
	}
	dwarf_end(dw);
}
