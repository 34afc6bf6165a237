/* upoints.c - the user program of the remaining process probe-point forms: statements at known
 * lines, an always-inline function, PLT calls, symbol-table probes.  Built by tests/guest/uprobe-points.t. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/sdt.h>

/* twice: inlined into work() and other(), and called out of line through a pointer from main() */
static inline __attribute__((always_inline)) int twice(int v)
{
	return v * 2;
}

/* work: called COUNT times with 1..COUNT; acc is n * 12 at its return line */
__attribute__((noipa)) int work(int n)
{
	int acc = n * 10;
	acc += twice(n);
	return acc; /* LINE:work-return */
}

/* other: called COUNT times; the second inlined instance of twice */
__attribute__((noipa)) int other(int n)
{
	return twice(n + 1) + 1;
}

/* measure: strlen through the PLT, COUNT times */
__attribute__((noipa)) long measure(const char *s)
{
	return (long)strlen(s);
}

/* finish: called once at the end */
__attribute__((noipa)) void finish(int rounds)
{
	printf("upoints done %d\n", rounds);
	fflush(stdout);
}

int (*volatile twice_ptr)(int) = twice;

/* upoints COUNT [wait]: with "wait", reads one line from stdin first (a process started paused
 * whose pid a test knows); then COUNT rounds of the SDT marker upoints:round(i), work, other,
 * twice (out of line), measure and getpid, then finish */
int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 3, i;
	volatile long sink = 0;
	char word[] = "upoints";
	char line[64];

	if (argc > 2 && !strcmp(argv[2], "wait") && !fgets(line, sizeof line, stdin))
		return 1;
	for (i = 1; i <= count; i++) {
		STAP_PROBE1(upoints, round, i);
		sink += work(i);
		sink += other(i);
		sink += twice_ptr(i);
		sink += measure(word);
		sink += getpid();
	}
	finish(count);
	return sink == 0;
}
