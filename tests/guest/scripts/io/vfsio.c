/* vfsio.c - the workload of tests/guest/tapset-vfs.t: a known sequence of read, write, readv,
 * writev calls (two failing with EBADF) on FILE; prints the buffer and iovec addresses it used. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[8192];

int main(int argc, char **argv)
{
	struct iovec iov[3] = { { buf, 100 }, { buf + 100, 200 }, { buf + 300, 300 } };
	struct iovec wiov[3] = { { buf, 10 }, { buf + 10, 20 }, { buf + 30, 30 } };
	int fd, ro, wo;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDWR);
	ro = open(argv[1], O_RDONLY);
	wo = open(argv[1], O_WRONLY);
	if (fd < 0 || ro < 0 || wo < 0)
		return 1;
	memset(buf, 'x', sizeof(buf));
	printf("buf %lu iov %lu wiov %lu\n", (unsigned long)buf, (unsigned long)iov, (unsigned long)wiov);
	fflush(stdout);
	if (read(fd, buf, 6000) != 6000 || read(fd, buf, 6000) != 4000)	/* 10000-byte file */
		return 1;
	if (lseek(fd, 0, SEEK_SET) != 0 || readv(fd, iov, 3) != 600)
		return 1;
	if (write(fd, buf, 777) != 777 || writev(fd, wiov, 3) != 60)
		return 1;
	if (read(wo, buf, 10) != -1 || write(ro, buf, 10) != -1)
		return 1;
	return 0;
}
