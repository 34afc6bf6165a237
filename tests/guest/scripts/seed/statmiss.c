/* statmiss.c - stat(2), lstat(2) and fstat(2) as system calls of their own (glibc's stat() uses
 * newfstatat): two of a missing path, one of an open fd; for the seed script 004 (syscall.*stat). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	static const char missing[] = "/nonexistent/seed-004";
	struct stat st;
	volatile char first;

	/* the path's page is touched first: a probe at the call's entry cannot fault it in */
	first = *(const volatile char *)missing;
	(void)first;
	if (syscall(SYS_stat, missing, &st) == 0 || syscall(SYS_lstat, missing, &st) == 0)
		return 1;
	if (syscall(SYS_fstat, 1, &st) != 0)
		return 1;
	printf("statmiss %d\n", (int)getpid());
	return 0;
}
