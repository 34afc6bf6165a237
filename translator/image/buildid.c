/* buildid.c - GNU build ids as hex: of a notes blob, an ELF file's notes, a notes file (/sys/kernel/notes),
 * a compressed module. Used by dwarf/ (debuginfo checks, debuginfod) and btf/ (the BTF's kernel). */
#include "image/buildid.h"
#include "image/unpack.h"
#include "lib/util.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex_of(const unsigned char *p, size_t n, char *out, size_t size)
{
	size_t i;

	for (i = 0; i < n && 2 * i + 2 < size; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * i] = 0;
}

/* NT_GNU_BUILD_ID in a raw notes blob (/sys/kernel/notes, a .notes section): hex into out. */
int image_build_id_in_notes(const unsigned char *p, size_t len, char *out, size_t size)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_off = off + 12, desc_off = name_off + ((namesz + 3) & ~3u);
		size_t next = desc_off + ((descsz + 3) & ~3u);
		if (next > len || desc_off > len || desc_off + descsz > len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_off, "GNU", 4) && descsz > 0) {
			hex_of(p + desc_off, descsz, out, size);
			return 0;
		}
		off = next;
	}
	return -1;
}

void image_elf_build_id(Elf *elf, char *out, size_t size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	out[0] = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_rawdata(scn, NULL);
		if (d && d->d_buf && image_build_id_in_notes(d->d_buf, d->d_size, out, size) == 0)
			return;
	}
}

/* The running kernel's build id from /sys/kernel/notes; -1 when unreadable. */
int image_file_build_id(const char *path, char *out, size_t size)
{
	size_t len;
	unsigned char *text = (unsigned char *)read_file(path, &len);
	int rc;

	if (!text)
		return -1;
	rc = image_build_id_in_notes(text, len, out, size);
	free(text);
	return rc;
}

static void packed_build_id(Elf *elf, void *arg)
{
	image_elf_build_id(elf, arg, 41);
}

int image_packed_module_build_id(const char *path, char *build_id)
{
	build_id[0] = 0;
	image_with_packed_module(path, packed_build_id, build_id);
	return build_id[0] ? 0 : -1;
}
