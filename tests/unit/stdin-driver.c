/* stdin-driver.c - runs stapio/stdin.c's stdin_forward() ROUNDS times on a directory holding the
 * module's two input files as plain files, with -v on: stdin at EOF from the start. Used by stdin.t. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "stapio.h"

const char log_program[] = "stapio";
int stdin_forward(const char *dir);

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 2)
		return 2;
	verbose = 1;
	for (int i = 0; i < rounds; i++)
		if (stdin_forward(argv[1]) != 1)
			return 1;
	usleep(200000);   /* the last threads' end of input */
	return 0;
}
