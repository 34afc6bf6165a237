/* nfsmap.c - creates a 3-page sparse file on NFS, then fcntl F_SETFL/F_SETLK, lseek, and a read fault on page 1 of a MADV_RANDOM mapping.
 * Used by tests/guest/tapset-nfs.t (nfs.fop.check_flags, lock, llseek, mmap and nfs.aop.read_folio). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 4096 };
	volatile char *p;
	char c;
	int fd;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 3 * 4096) != 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	/* a fresh open: the sparse pages are not in the page cache */
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fcntl(fd, F_SETFL, O_APPEND) != 0 || fcntl(fd, F_SETLK, &fl) != 0 ||
	    lseek(fd, 4096, SEEK_SET) != 4096) {
		perror("fcntl/lseek");
		return 1;
	}
	p = mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || madvise((void *)p, 3 * 4096, MADV_RANDOM) != 0) {
		perror("mmap");
		return 1;
	}
	c = p[4096];
	munmap((void *)p, 3 * 4096);
	close(fd);
	return c;
}
