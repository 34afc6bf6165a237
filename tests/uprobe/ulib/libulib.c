/* libulib.c - the shared library of tests/guest/uprobe-library.t: a global struct, a static counter, an
 * array and functions with locals, called a known number of times by ulibmain.c. */
#include "ulib.h"

struct ulib_state ulib_state = { 0, 0, "ulib-state" };
int ulib_table[8];
static int ulib_counter;               /* file-static: $ulib_counter in this file's functions */

ulib_state_t *ulib_self(void)
{
	return &ulib_state;
}

/* Called with k = 1..N: records k*k in the table, counts the call. */
int ulib_step(int k)
{
	int square = k * k;
	int slot = k % 8;

	ulib_counter++;
	ulib_state.calls++;
	ulib_state.total += square;
	ulib_table[slot] = square;
	return square + ulib_counter;
}

/* 100 + the first n table entries + the calls, through a pointer to the state (@cast); built -O2,
 * its locals have location lists: at the entry sum is 100, i 0. */
long ulib_sum(const ulib_state_t *s, int n)
{
	long sum = 100;
	int i;

	for (i = 0; i < n && i < 8; i++)
		sum += ulib_table[i];
	return sum + s->calls;
}

/* Called last with the number of steps: a probe reads every global here. */
int ulib_done(int steps)
{
	return steps + ulib_counter;
}
