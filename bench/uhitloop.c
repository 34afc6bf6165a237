/* uhitloop.c - calls its function bench_ufunc() N times per round and prints CLOCK_MONOTONIC ns per call.
 * Used by bench/run's uprobes part in the QEMU guest (GUEST_ICOUNT=1): the probed user function of the per-hit cost. */
#include "hitloop.h"

/* the probed function: a call that cannot be inlined or dropped */
__attribute__((noinline)) long bench_ufunc(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
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
	long sum;
	int rc = hitloop_run(argc, argv, "uhitloop", "bench_ufunc()", calls, &sum);

	return rc ? rc : sum == 0;        /* uses the results */
}
