/* ulines.h - the DWARF line tables of user-space modules, embedded for usymfileline/usymfile/usymline
 * (ulines.c); used by usyms.c, which embeds the modules. */
#ifndef STAP_ULINES_H
#define STAP_ULINES_H

#include "session.h"
#include "lib/util.h"
#include <gelf.h>
#include <stdint.h>

typedef struct ULine {
	uint64_t addr;
	unsigned int line;          /* 0: the end of a sequence (no line from addr on) */
	unsigned int file;          /* offset of its file's name in ULines.files */
} ULine;

typedef struct ULines {
	ULine *rows;                /* sorted by addr, one per address */
	size_t n, cap;
	StrBuf files;               /* NUL-terminated file names */
} ULines;

int ulines_needed(Session *s);                              /* a used function asks (pragma:ulines) */
void ulines_read(ULines *l, Elf *elf);                      /* the ELF's own DWARF; none: empty */
void ulines_emit(StrBuf *out, const ULines *l, int k);      /* stp_umodK_lines, stp_umodK_lfiles */
void ulines_emit_fields(StrBuf *out, const ULines *l, int k);   /* ", .lines = ..." of stp_umods[k] */
void ulines_free(ULines *l);

#endif
