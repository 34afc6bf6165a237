/* elffile.c - opening and closing ELF files with libelf (elffile.h), for every reader of binaries,
 * debuginfo and kernel modules in the translator. */
#include "image/elffile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int elffile_open(const char *path, unsigned flags, int *fd, Elf **elf)
{
	*elf = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return ELFFILE_NOFILE;
	elf_version(EV_CURRENT);
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF ||
	    ((flags & ELFFILE_CLASS64) && gelf_getclass(*elf) != ELFCLASS64)) {
		elffile_close(*elf, *fd);
		*elf = NULL;
		*fd = -1;
		return ELFFILE_NOTELF;
	}
	return ELFFILE_OK;
}

void elffile_close(Elf *elf, int fd)
{
	int saved = errno;

	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	errno = saved;
}
