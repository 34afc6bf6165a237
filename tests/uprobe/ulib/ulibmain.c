/* ulibmain.c - the program of tests/guest/uprobe-library.t: `ulibmain N` calls ulib_step(1..N) in
 * libulib.so (each after note_round(i)), ulib_sum once, mallocs 70000+i bytes N times, then ulib_done(N). */
#include <stdio.h>
#include <stdlib.h>
#include "ulib.h"

static int main_rounds;                /* a static of the PIE executable */

/* Called with i = 1..N before each step. */
static int note_round(int i)
{
	main_rounds++;
	return main_rounds + i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, i;
	long acc = 0;

	for (i = 1; i <= n; i++) {
		void *p;
		acc += note_round(i);
		acc += ulib_step(i);
		p = malloc(70000 + (size_t)i);
		if (p)
			((volatile char *)p)[0] = (char)i;
		free(p);
	}
	acc += ulib_sum(ulib_self(), 8);
	acc += ulib_done(n);
	printf("ulibmain done %ld\n", acc);
	return 0;
}
