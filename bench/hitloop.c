/* hitloop.c - calls getppid() through syscall(2) N times per round and prints CLOCK_MONOTONIC ns per call.
 * Used by bench/run in the QEMU guest (GUEST_ICOUNT=1, where 1 guest ns = 1 instruction). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>

#include "hitloop.h"

static long calls(long n)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}

int main(int argc, char **argv)
{
	long sum;

	return hitloop_run(argc, argv, "hitloop", "getppid()", calls, &sum);
}
