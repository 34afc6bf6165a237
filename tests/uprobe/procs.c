/* procs.c - the workload of tests/guest/process-lifecycle.t: starts two threads, then forks a child
 * that execs a given program, and writes the pids and tids it made to a report file. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t tids[2];

static void *worker(void *arg)
{
	volatile unsigned long spin = 0;

	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	for (int i = 0; i < 100000; i++)
		spin += (unsigned long)i;
	return NULL;
}

/* procs EXEC REPORT [GO]: with GO, waits until that file exists before doing anything */
int main(int argc, char **argv)
{
	pthread_t th[2];
	pid_t child;
	int status;
	FILE *rep;

	if (argc < 3) {
		fprintf(stderr, "usage: procs EXEC REPORT [GO]\n");
		return 2;
	}
	if (argc > 3)
		while (access(argv[3], F_OK) != 0)
			usleep(20000);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, worker, &tids[i]) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	child = fork();
	if (child == 0) {
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	rep = fopen(argv[2], "w");
	if (!rep)
		return 1;
	fprintf(rep, "procs %d\nthread %d\nthread %d\nchild %d\n", (int)getpid(), (int)tids[0], (int)tids[1],
		(int)child);
	return fclose(rep) != 0;
}
