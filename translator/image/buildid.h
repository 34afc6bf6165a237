/* buildid.h - build ids (hex, at most 40 digits and a NUL) of what the translator reads: notes, ELF files,
 * compressed modules (buildid.c). Used by dwarf/ and btf/, which check and record them. */
#ifndef STAP_IMAGE_BUILDID_H
#define STAP_IMAGE_BUILDID_H

#include <gelf.h>
#include <stddef.h>

/* NT_GNU_BUILD_ID in a raw notes blob (/sys/kernel/notes, a .notes section): hex into out; 0, -1 when none. */
int image_build_id_in_notes(const unsigned char *notes, size_t len, char *out, size_t size);
/* Of an ELF file's SHT_NOTE sections ("" when none). */
void image_elf_build_id(Elf *elf, char *out, size_t size);
/* Of a notes file (/sys/kernel/notes); -1 when unreadable or none. */
int image_file_build_id(const char *path, char *out, size_t size);
/* The build id (hex, 41 bytes) of a compressed module file (.ko.xz, .ko.gz, .ko.zst), decompressed whole:
 * 0, or -1 with "" (dwarf/debuginfo.c asks debuginfod for its DWARF by it). */
int image_packed_module_build_id(const char *path, char *build_id);

#endif
