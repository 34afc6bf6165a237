/* umods.h - the user-space modules (executables, shared libraries) whose symbols, unwind and line
 * tables the translator embedded (translator/kmodule/usyms.c, ulines.c); read by core/unwind.h and core/ustack.h. */
#ifndef STP_UMODS_H
#define STP_UMODS_H

/* A PT_LOAD segment: file bytes [off, off + filesz) are at ELF address vaddr. */
struct stp_useg {
	unsigned long off, vaddr, filesz;
};

/* A function symbol at ELF address addr; name is an offset into the module's names. */
struct stp_usym {
	unsigned long addr;
	unsigned int size;
	unsigned int name;
};

/* A row of a DWARF line table: from ELF address addr on, source line `line` of the file whose name
 * is at offset file of the module's lfiles; line 0 ends a sequence (no line from addr on). */
struct stp_uline {
	unsigned long addr;
	unsigned int line;
	unsigned int file;
};

struct stp_umod {
	const char *path;                       /* as the translator found it (realpath) */
	const struct stp_useg *segs;
	unsigned int nsegs;
	const struct stp_usym *syms;            /* sorted by addr */
	unsigned int nsyms;
	const char *names;
	const unsigned char *eh;                /* .eh_frame, loaded at ELF address eh_addr */
	unsigned long eh_len, eh_addr;
	const unsigned char *hdr;               /* .eh_frame_hdr (NULL: none), at hdr_addr */
	unsigned long hdr_len, hdr_addr;
	const struct stp_uline *lines;          /* sorted by addr (NULL: none embedded) */
	unsigned int nlines;
	const char *lfiles;
	/* filled at session start (stp_umods_start): the file the path names */
	unsigned long ino;
	dev_t dev;
	bool found;
};

#endif
