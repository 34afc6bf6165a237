/* hot.c - the workload of tests/guest/uprobe-stress.t: hot_fn() called in tight loops (two threads on two CPUs),
 * and runs that exec another program or exit mid-run; every call's result is checked and every call counted. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* calls of hot_fn made by this thread, counted inside it (compared with the caller's own count) */
static __thread unsigned long hot_tls_calls;

__attribute__((noinline)) long hot_fn(long x)
{
	hot_tls_calls++;
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

/* n calls (n < 0: until stop_file exists, looked for every 4096 calls); returns the calls made,
 * *bad = calls whose result was wrong or that hot_fn did not count */
static unsigned long hot_calls(long n, const char *stop_file, unsigned long *bad)
{
	unsigned long i, before = hot_tls_calls;

	*bad = 0;
	for (i = 0; n < 0 || i < (unsigned long)n; i++) {
		if (hot_fn((long)i) != (long)i * 3 + 1)
			(*bad)++;
		if (n < 0 && (i & 4095) == 4095 && access(stop_file, F_OK) == 0) {
			i++;
			break;
		}
	}
	if (hot_tls_calls - before != i)
		(*bad)++;
	return i;
}

struct hot_worker {
	int cpu;
	long n;
	const char *stop_file;
	unsigned long calls, bad;
};

static void *hot_worker_run(void *arg)
{
	struct hot_worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	/* on both CPUs when there are two; one CPU is no error */
	sched_setaffinity(0, sizeof(set), &set);
	w->calls = hot_calls(w->n, w->stop_file, &w->bad);
	return NULL;
}

/* hot loop STOP READY: two threads (CPUs 0 and 1) call hot_fn until STOP exists; READY is
 * created once both run; prints the calls of each and exits 0 when every result was right */
static int hot_loop(const char *stop_file, const char *ready)
{
	struct hot_worker w[2] = { { 0, -1, stop_file, 0, 0 }, { 1, -1, stop_file, 0, 0 } };
	pthread_t th[2];
	FILE *f;
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, hot_worker_run, &w[i])) {
			fprintf(stderr, "hot: pthread_create failed\n");
			return 1;
		}
	f = fopen(ready, "w");
	if (f)
		fclose(f);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("hot loop calls %lu %lu bad %lu\n", w[0].calls, w[1].calls, w[0].bad + w[1].bad);
	return w[0].bad + w[1].bad || !w[0].calls || !w[1].calls;
}

static void *hot_forever(void *arg)
{
	unsigned long bad;

	(void)arg;
	hot_calls(-1, "/nonexistent/hot-never", &bad);
	return NULL;
}

static long hot_arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "hot: bad count '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long calls, bad;
	pthread_t th;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "loop"))
		return hot_loop(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "count")) {
		/* hot count N: N calls in the main thread */
		calls = hot_calls(hot_arg(argv[2]), NULL, &bad);
		printf("hot pid %d ppid %d calls %lu bad %lu\n", getpid(), getppid(), calls, bad);
		return bad != 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "exec")) {
		/* hot exec N PROG ARGS...: N calls, then PROG replaces this program (same pid) */
		calls = hot_calls(hot_arg(argv[2]), NULL, &bad);
		printf("hot exec pid %d calls %lu bad %lu\n", getpid(), calls, bad);
		if (bad)
			return 1;
		execv(argv[3], argv + 3);
		fprintf(stderr, "hot: exec %s: %s\n", argv[3], strerror(errno));
		return 127;
	}
	if (argc == 3 && !strcmp(argv[1], "exitmid")) {
		/* hot exitmid N: a second thread calls hot_fn without end; the main thread makes N
		 * calls and ends the process (exit_group) while the other one is in its loop.  Both
		 * on CPU 0: their hits never contend for a global's lock (a skipped hit would make
		 * the count inexact) */
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
		if (pthread_create(&th, NULL, hot_forever, NULL))
			return 1;
		calls = hot_calls(hot_arg(argv[2]), NULL, &bad);
		printf("hot exitmid pid %d calls %lu bad %lu\n", getpid(), calls, bad);
		exit(bad != 0);
	}
	fprintf(stderr, "usage: hot loop STOP READY | count N | exec N PROG ARGS... | exitmid N\n");
	return 2;
}
