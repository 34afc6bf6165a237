/* funcs_helper.c - a process with known ids, arguments, environment and descriptors for
 * tests/guest/tapset-funcs.t: prints them, then makes the getpriority call the script probes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	char line[512], stat[1024], *p;
	long fdsize = -1, start = -1;
	int nfds = 0, i, fd;
	FILE *f;

	setsid();                       /* sid == pgrp == pid */
	for (i = 0; i < 5; i++)         /* 3 + 5 descriptors, and one at 100 */
		if (open("/dev/null", O_RDONLY) < 0)
			return 1;
	dup2(0, 100);
	f = fopen("/proc/self/status", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "FDSize:", 7))
			fdsize = strtol(line + 7, NULL, 10);
	fclose(f);
	fd = open("/proc/self/stat", O_RDONLY);
	if (fd < 0 || read(fd, stat, sizeof(stat) - 1) <= 0)
		return 1;
	close(fd);
	stat[sizeof(stat) - 1] = 0;
	p = strrchr(stat, ')');         /* field 22, starttime: the 20th after the command */
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtol(p + 1, NULL, 10);
	for (i = 0; i < 1024; i++)
		if (fcntl(i, F_GETFD) >= 0)
			nfds++;
	printf("helper %d %d %d %d %ld %ld\n", getpid(), getsid(0), getpgrp(), nfds, fdsize, start);
	fflush(stdout);
	syscall(SYS_getpriority, 77, 0x4242);   /* EINVAL: probed by the script */
	return 0;
}
