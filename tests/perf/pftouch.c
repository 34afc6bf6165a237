/* pftouch.c - a program of known page faults for the perf tests: 4096 fresh pages written once each.
 * Used by tests/guest/perf.t and tests/guest/perf-process-path.t (built by their build()). */
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
/* pftouch [FILE]: (once FILE exists) 4096 fresh pages written once each: 4096 page faults */
int main(int argc, char **argv)
{
	struct timespec ms = { 0, 10 * 1000 * 1000 };
	size_t len = 4096UL * 4096;
	char *p;

	while (argc > 1 && access(argv[1], F_OK) != 0)
		nanosleep(&ms, NULL);
	p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	return 0;
}
