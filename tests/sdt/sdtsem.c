/* sdtsem.c - the marker of tests/sdt/sdtprog.c that has a semaphore (sdt.h gives semaphores to every marker of
 * a unit built with _SDT_HAS_SEMAPHORES), in a unit of its own. Used by tests/guest/sdt.t. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

__extension__ unsigned short sdtprog_counted_semaphore __attribute__((unused)) __attribute__((section(".probes")));

int sdtprog_counted_enabled(void);
void sdtprog_counted(int i, const char *word);

int sdtprog_counted_enabled(void)
{
	return __builtin_expect(sdtprog_counted_semaphore, 0) != 0;
}

void sdtprog_counted(int i, const char *word)
{
	DTRACE_PROBE2(sdtprog, counted, i, word);
}
