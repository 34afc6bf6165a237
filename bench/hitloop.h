/* hitloop.h - the measuring loop shared by the per-hit benchmark programs: argument parsing, the clock
 * and the rounds.  Included by bench/hitloop.c (getppid() syscalls) and bench/uhitloop.c (a user function). */
#ifndef BENCH_HITLOOP_H
#define BENCH_HITLOOP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long hitloop_arg(const char *prog, const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "%s: bad %s '%s'\n", prog, what, s);
		exit(2);
	}
	return v;
}

static long long hitloop_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Usage: PROG CALLS ROUNDS.  A warm-up of CALLS/10+1 calls, then one line per round: nanoseconds per
 * call of what (the text of the usage message).  2 after a usage error, else 0 with *sum the sum of
 * what calls returned (for the caller to use, so that nothing is optimised away). */
static int hitloop_run(int argc, char **argv, const char *prog, const char *what, long (*calls)(long n),
		       long *sum)
{
	long n, rounds, r;

	*sum = 0;
	if (argc != 3) {
		fprintf(stderr, "usage: %s CALLS ROUNDS\n"
			"prints one line per round: nanoseconds per %s call\n", prog, what);
		return 2;
	}
	n = hitloop_arg(prog, argv[1], "CALLS");
	rounds = hitloop_arg(prog, argv[2], "ROUNDS");
	*sum += calls(n / 10 + 1);      /* warm up: page faults, caches, the TCG translation cache */
	for (r = 0; r < rounds; r++) {
		long long t0 = hitloop_now_ns();

		*sum += calls(n);
		printf("%.2f\n", (double)(hitloop_now_ns() - t0) / (double)n);
	}
	return 0;
}

#endif
