/* lines.h - a binary's own DWARF line table, row by row in neutral terms (address, file, line, end of
 * a sequence) for the module's embedded line tables (kmodule/ulines.c); written in dwarf/lines.c. */
#ifndef STAP_DWARF_LINES_H
#define STAP_DWARF_LINES_H

#include <gelf.h>
#include <stdint.h>

/* One row: file is NULL and line 0 at the end of a sequence (no line from addr on). */
typedef void (*DwLineRow)(void *ctx, uint64_t addr, const char *file, int line);

/* Calls row for every row of every CU of elf's DWARF, in table order; none when it has no DWARF. */
void dw_line_rows(Elf *elf, DwLineRow row, void *ctx);

#endif
