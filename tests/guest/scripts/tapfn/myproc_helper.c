/* myproc_helper.c - calls getppid() once, the hit tests/guest/scripts/tapfn/misc.stp reports on
 * (run by tests/guest/tapset-fp.t as root and as nobody). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	return syscall(SYS_getppid) > 0 ? 0 : 1;
}
