/* uprog.c - the user program process("PATH") probes are tested on: known functions, arguments and
 * return values, called a known number of times.  Built with -g by tests/guest/uprobe.t. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct point {
	int x;
	int y;
};

/* add: called COUNT times with (i, 100 * i), returns their sum */
__attribute__((noipa)) int add(int a, int b)
{
	return a + b;
}

/* scale: a long and a negative result */
__attribute__((noipa)) long scale(long x, int k)
{
	long r = x * k;
	return r;
}

/* greet: a string argument; returns its length plus n */
__attribute__((noipa)) int greet(const char *name, int n)
{
	return (int)strlen(name) + n;
}

/* norm1: a struct through a pointer */
__attribute__((noipa)) int norm1(const struct point *p)
{
	return abs(p->x) + abs(p->y);
}

/* finish: called once at the end, where a test script may call exit() */
__attribute__((noipa)) void finish(int calls)
{
	printf("uprog done %d\n", calls);
	fflush(stdout);
}

/* uprog COUNT [WAITFILE [DONEFILE]]: waits until WAITFILE exists (if given and not "-"), makes
 * COUNT rounds of calls, then creates DONEFILE (if given).  A negative COUNT makes rounds until
 * DONEFILE exists instead (a program kept busy while probes come and go). */
int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 3, i;
	volatile long sink = 0;
	/* on the stack: a probe cannot fault in a page the process has not touched yet (a string
	 * literal's page of .rodata would be), so the string lives where the process has been */
	char name[] = "hello-uprobe";

	if (argc > 2 && strcmp(argv[2], "-"))
		while (access(argv[2], F_OK) != 0)
			usleep(20000);
	if (count < 0) {
		long rounds = 0;
		while (argc > 3 && access(argv[3], F_OK) != 0) {
			for (i = 1; i <= 100; i++)
				sink += add(i, 100 * i);
			rounds++;
		}
		printf("uprog rounds %ld\n", rounds);
		return sink == 0;
	}
	for (i = 1; i <= count; i++) {
		struct point pt = { i, -2 * i };
		sink += add(i, 100 * i);
		sink += scale(i, -3);
		sink += greet(name, i);
		sink += norm1(&pt);
	}
	finish(count);
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");
		if (f)
			fclose(f);
	}
	return sink == 0;
}
