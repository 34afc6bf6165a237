/* regex-oracle.c - glibc's verdict on (pattern, subject) pairs for tests/unit/regex-driver.c: built without the
 * sanitizers and kept running, so that the driver (ASan-built in the asan run) does not fork once a pair. */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAXGROUPS 64

/* Reads exactly n bytes of stdin; 0 at its end. */
static int get(void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(0, (char *)buf + got, n - got);
		if (r <= 0)
			return 0;
		got += (size_t)r;
	}
	return 1;
}

/* Each request: uint32 ngroups, uint32 length, pattern, uint32 length, subject. Each answer: int rc (1 match,
 * 0 none, -1 rejected), size_t nsub, regmatch_t m[ngroups]. A pair taking glibc over 2 s (exponential
 * patterns) ends the oracle by SIGALRM: the driver counts it as too slow and starts another. */
int main(void)
{
	char pattern[4096], subject[4096];
	regmatch_t m[MAXGROUPS];
	uint32_t ngroups, len;
	regex_t re;
	int rc;
	size_t nsub;

	while (get(&ngroups, sizeof ngroups) && ngroups <= MAXGROUPS && get(&len, sizeof len) && len < sizeof pattern &&
	       get(pattern, len)) {
		pattern[len] = 0;
		if (!get(&len, sizeof len) || len >= sizeof subject || !get(subject, len))
			return 1;
		subject[len] = 0;
		memset(m, 0, sizeof m);
		nsub = 0;
		rc = -1;
		alarm(2);
		if (!regcomp(&re, pattern, REG_EXTENDED)) {
			nsub = re.re_nsub + 1;
			rc = !regexec(&re, subject, ngroups, m, 0);
			regfree(&re);
		}
		alarm(0);
		if (write(1, &rc, sizeof rc) != (ssize_t)sizeof rc || write(1, &nsub, sizeof nsub) != (ssize_t)sizeof nsub ||
		    write(1, m, ngroups * sizeof m[0]) != (ssize_t)(ngroups * sizeof m[0]))
			return 1;
	}
	return 0;
}
