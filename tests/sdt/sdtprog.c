/* sdtprog.c - a program with SDT markers (<sys/sdt.h>), with (sdtsem.c) and without semaphores, known arguments.
 * Used by tests/guest/sdt.t: `sdtprog N` runs N rounds, printing whether the semaphore was set in each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/sdt.h>

/* the marker with a semaphore: sdtsem.c */
int sdtprog_counted_enabled(void);
void sdtprog_counted(int i, const char *word);

static volatile long sink;

static void __attribute__((noinline)) round_of(int i, const char *word)
{
	signed char c = (signed char)-i;
	short h = (short)(1000 * i);
	int neg = -100000 * i;
	long long big = 0x100000000LL * i + 7;
	unsigned int u = 4000000000u;

	/* no semaphore: ints of several sizes, negative numbers, a string */
	DTRACE_PROBE6(sdtprog, values, c, h, neg, big, u, word);
	/* a semaphore: the program sees it set only while a probe on it is armed */
	if (sdtprog_counted_enabled()) {
		printf("round %d semaphore set\n", i);
		sdtprog_counted(i, word);
	} else {
		printf("round %d semaphore clear\n", i);
	}
	sink += i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	char word[32];

	for (int i = 1; i <= n; i++) {
		snprintf(word, sizeof word, "word-%d", i);
		round_of(i, word);
	}
	DTRACE_PROBE(sdtprog, done);
	fflush(stdout);
	return 0;
}
