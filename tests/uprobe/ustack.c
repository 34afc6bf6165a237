/* ustack.c - test program of tests/guest/ubacktrace.t: a call chain main -> outer -> middle ->
 * inner, a recursion of known depth ending in leaf(), and a write(2) from inner(); built -O0 and -O2. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noipa))

volatile int sink;

/* the bottom of the chain: writes one line with write(2) (the kernel probe's caller) */
NOINL int inner(int x)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "inner %d\n", x);

	if (write(1, buf, (size_t)n) != n)
		return -1;
	sink += x;
	return x + 1;
}

NOINL int middle(int x)
{
	int r = inner(x * 2);

	sink += r;
	return r + 1;
}

NOINL int outer(int x)
{
	int r = middle(x + 1);

	sink += r;
	return r + 1;
}

NOINL int leaf(int depth)
{
	sink += depth;
	return depth;
}

/* recurse(n) calls itself until n is 0, then leaf(): n + 1 frames of recurse above leaf */
NOINL int recurse(int n)
{
	int r = n ? recurse(n - 1) : leaf(n);

	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1, i, r = 0;

	for (i = 0; i < rounds; i++)
		r += outer(i);
	r += recurse(4);
	printf("ustack done %d\n", r);
	return 0;
}
