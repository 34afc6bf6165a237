/* pubprog.c - a workload with known system calls for the published-kind scripts: 1000 getppid, a failing
 * open, 50 reads of 64 bytes from /dev/zero, one read of /etc/hostname, a child waited for 300 ms. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	static const char missing[] = "/nonexistent/errsnoop-probe";
	char buf[64];
	int i, fd, st = 0;
	pid_t child;
	volatile char first;

	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	/* the path's page is touched first: a probe at the call's entry cannot fault it in */
	first = *(const volatile char *)missing;
	(void)first;
	if (open(missing, O_RDONLY) >= 0)
		return 1;
	fd = open("/dev/zero", O_RDONLY);
	for (i = 0; i < 50; i++)
		if (read(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			return 1;
	close(fd);
	fd = open("/etc/hostname", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof buf) < 0)
			return 1;
		close(fd);
	}
	child = fork();
	if (child == 0) {
		usleep(300000);
		_exit(7);
	}
	if (wait4(child, &st, 0, NULL) != child)
		return 1;
	printf("pubprog %d child %d status %d\n", (int)getpid(), (int)child, WEXITSTATUS(st));
	return 0;
}
