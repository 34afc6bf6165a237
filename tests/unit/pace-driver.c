/* pace-driver.c - runs stapio/pace.c on the rounds given on stdin ("NOW MOST": a round started at
 * NOW ms read at most MOST bytes from one file), printing the wait after each.  For tests/unit/pace.t. */
#include <stdio.h>
#include <stdlib.h>

#include "stapio.h"

int main(int argc, char **argv)
{
	struct pace p;
	long now;
	size_t most;

	pace_init(&p, argc > 1 ? strtoul(argv[1], NULL, 0) : 0);
	printf("due %ld\n", pace_due_in(&p, 0));
	while (scanf("%ld %zu", &now, &most) == 2) {
		pace_round(&p, now, most);
		printf("wait %ld due %ld\n", p.wait_ms, pace_due_in(&p, now));
	}
	return 0;
}
