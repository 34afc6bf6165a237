/* myprog.c - a program with one SDT marker, myprog:input__val(int), fired once per integer read (the
 * shape of seed 071's ./myprog). Used by tests/guest/seed-user.t: `myprog < numbers` prints each doubled. */
#include <stdio.h>

#include <sys/sdt.h>

int main(void)
{
	int v;

	while (scanf("%d", &v) == 1) {
		DTRACE_PROBE1(myprog, input__val, v);
		printf("%lld\n", 2LL * v);
	}
	return 0;
}
