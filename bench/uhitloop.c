/* uhitloop.c - calls its function bench_ufunc() N times per round and prints CLOCK_MONOTONIC ns per call.
 * Used by bench/run's uprobes part in the QEMU guest (GUEST_ICOUNT=1): the probed user function of the per-hit cost. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* the probed function: a call that cannot be inlined or dropped */
__attribute__((noinline)) long bench_ufunc(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static long arg(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "uhitloop: bad %s '%s'\n", what, s);
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

static long calls(long n)
{
	long i, s = 0;

	for (i = 0; i < n; i++)
		s += bench_ufunc(i);
	return s;
}

int main(int argc, char **argv)
{
	long n, rounds, r, sum = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: uhitloop CALLS ROUNDS\n"
			"prints one line per round: nanoseconds per bench_ufunc() call\n");
		return 2;
	}
	n = arg(argv[1], "CALLS");
	rounds = arg(argv[2], "ROUNDS");
	sum += calls(n / 10 + 1);      /* warm up: page faults, caches, the TCG translation cache */
	for (r = 0; r < rounds; r++) {
		long long t0 = now_ns();

		sum += calls(n);
		printf("%.2f\n", (double)(now_ns() - t0) / (double)n);
	}
	return sum == 0;        /* uses the results */
}
