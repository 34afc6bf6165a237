/* modinfo.c - reads the .modinfo strings of a kernel module file (ELF64) from an open fd, bounds-checking everything.
 * Used by staprun/verify.c; when staprun is setuid root the file may be crafted by an unprivileged user. */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "staprun.h"

/* Generous bounds: a stap module has a few dozen sections and a few KiB of
 * section names and modinfo strings. */
#define MAX_SECTIONS    65536
#define MAX_TABLE_BYTES (4u << 20)

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#elif defined(__s390x__)
#define HOST_MACHINE EM_S390
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_MACHINE EM_RISCV
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif

/* Reads exactly len bytes at off; -1 on error or end of file. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n;

		if (off > (uint64_t)INT64_MAX)
			return -1;
		n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* [off, off+len) lies within a file of size bytes (no overflow). */
static int in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Reads [off, off+len) into a new buffer with a NUL after it. */
static char *read_table(int fd, uint64_t off, uint64_t len, uint64_t size)
{
	char *buf;

	if (len > MAX_TABLE_BYTES || !in_file(off, len, size))
		return NULL;
	buf = malloc((size_t)len + 1);
	if (!buf)
		return NULL;
	if (read_at(fd, buf, (size_t)len, off) < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static int check_header(const Elf64_Ehdr *eh, const char **why)
{
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
		*why = "not an ELF file";
		return -1;
	}
	if (eh->e_ident[EI_CLASS] != ELFCLASS64) {
		*why = "not a 64-bit ELF file";
		return -1;
	}
	if (eh->e_ident[EI_DATA] != HOST_DATA) {
		*why = "ELF file of the other byte order (built for another architecture)";
		return -1;
	}
	if (eh->e_type != ET_REL) {
		*why = "not a kernel module (not a relocatable ELF object)";
		return -1;
	}
#ifdef HOST_MACHINE
	if (eh->e_machine != HOST_MACHINE) {
		*why = "built for another architecture (ELF machine type)";
		return -1;
	}
#endif
	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr)) {
		*why = "malformed ELF file (section header table)";
		return -1;
	}
	return 0;
}

/* The section count and the index of the section names, with ELF's
 * extended numbering (stored in section 0) resolved. */
static int section_counts(int fd, const Elf64_Ehdr *eh, uint64_t size,
			  uint64_t *shnum, uint64_t *shstrndx)
{
	Elf64_Shdr first;

	*shnum = eh->e_shnum;
	*shstrndx = eh->e_shstrndx;
	if (*shnum != 0 && *shstrndx != SHN_XINDEX)
		return 0;
	if (!in_file(eh->e_shoff, sizeof(first), size) ||
	    read_at(fd, &first, sizeof(first), eh->e_shoff) < 0)
		return -1;
	if (*shnum == 0)
		*shnum = first.sh_size;
	if (*shstrndx == SHN_XINDEX)
		*shstrndx = first.sh_link;
	return 0;
}

/* Does section sh carry this name?  names is NUL-terminated at names_len. */
static int section_named(const Elf64_Shdr *sh, const char *names, uint64_t names_len,
			 const char *name)
{
	return sh->sh_name < names_len && !strcmp(names + sh->sh_name, name);
}

int modinfo_read(int fd, struct modinfo *mi, const char **why)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL, *strsh;
	struct stat st;
	uint64_t size, shnum, shstrndx, i, found = 0;
	char *names = NULL;
	int rc = -1;

	mi->data = NULL;
	mi->size = 0;
	*why = "truncated or malformed ELF file";
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
		*why = "not a regular file";
		return -1;
	}
	size = (uint64_t)st.st_size;
	if (size < sizeof(eh) || read_at(fd, &eh, sizeof(eh), 0) < 0) {
		*why = size < SELFMAG ? "not an ELF file" : "truncated ELF file";
		return -1;
	}
	if (check_header(&eh, why) < 0)
		return -1;
	if (section_counts(fd, &eh, size, &shnum, &shstrndx) < 0 ||
	    shnum == 0 || shnum > MAX_SECTIONS || shstrndx >= shnum ||
	    !in_file(eh.e_shoff, shnum * sizeof(*sh), size)) {
		*why = "truncated or malformed ELF file (section headers)";
		return -1;
	}
	sh = malloc((size_t)shnum * sizeof(*sh));
	if (!sh) {
		*why = "out of memory";
		return -1;
	}
	if (read_at(fd, sh, (size_t)shnum * sizeof(*sh), eh.e_shoff) < 0)
		goto out;
	strsh = &sh[shstrndx];
	if (strsh->sh_type != SHT_STRTAB ||
	    !(names = read_table(fd, strsh->sh_offset, strsh->sh_size, size))) {
		*why = "truncated or malformed ELF file (section names)";
		goto out;
	}
	/* The kernel takes the first allocated section of that name, from 1 on:
	 * look at that same one, and refuse files with several. */
	for (i = 1; i < shnum; i++) {
		if (!section_named(&sh[i], names, strsh->sh_size, ".modinfo"))
			continue;
		if (found || !(sh[i].sh_flags & SHF_ALLOC) || sh[i].sh_type == SHT_NOBITS) {
			*why = "malformed kernel module (.modinfo section)";
			goto out;
		}
		found = i;
	}
	if (!found) {
		*why = "not a kernel module (no .modinfo section)";
		goto out;
	}
	mi->data = read_table(fd, sh[found].sh_offset, sh[found].sh_size, size);
	if (!mi->data) {
		*why = "truncated or malformed ELF file (.modinfo section)";
		goto out;
	}
	mi->size = (size_t)sh[found].sh_size;
	rc = 0;
out:
	free(names);
	free(sh);
	return rc;
}

/* The value of the first "key=value" string, like the kernel's lookup. */
const char *modinfo_get(const struct modinfo *mi, const char *key)
{
	size_t klen = strlen(key), pos = 0;

	while (pos < mi->size) {
		const char *s = mi->data + pos;
		size_t len = strlen(s);    /* data[size] is a NUL */

		if (len > klen && !strncmp(s, key, klen) && s[klen] == '=')
			return s + klen + 1;
		pos += len + 1;
	}
	return NULL;
}

void modinfo_free(struct modinfo *mi)
{
	free(mi->data);
	mi->data = NULL;
	mi->size = 0;
}
