/* hitloop.c - calls getppid() through syscall(2) N times per round and prints CLOCK_MONOTONIC ns per call.
 * Used by bench/run in the QEMU guest (GUEST_ICOUNT=1, where 1 guest ns = 1 instruction). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "hitloop: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void calls(long n)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

int main(int argc, char **argv)
{
	long n, rounds, r;

	if (argc != 3) {
		fprintf(stderr, "usage: hitloop CALLS ROUNDS\n"
			"prints one line per round: nanoseconds per getppid() call\n");
		return 2;
	}
	n = arg(argv[1], "CALLS");
	rounds = arg(argv[2], "ROUNDS");
	calls(n / 10 + 1);      /* warm up: page faults, caches, the TCG translation cache */
	for (r = 0; r < rounds; r++) {
		long long t0 = now_ns();

		calls(n);
		printf("%.2f\n", (double)(now_ns() - t0) / (double)n);
	}
	return 0;
}
