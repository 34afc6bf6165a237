/* decimal-driver.c - checks runtime/output/decimal.h, built for userspace, against glibc's "%lld" and
 * "%llu": the edges of every digit count, INT64_MIN and MAX, random values of every length, and runs of
 * timestamps through a context's kept leading digits (stp_put_sdec_lead_at). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __maybe_unused __attribute__((unused))
#define unlikely(x) __builtin_expect(!!(x), 0)
struct stp_dec_lead {   /* as runtime/core/context.h */
	uint64_t q;
	unsigned int n;
	char digits[8];
};
#include "../../runtime/output/decimal.h"
#include "xorshift.h"

static long failures, checks;

static struct stp_dec_lead lead;

/* v through stp_put_sdec_at, stp_put_sdec_lead_at (with the lead kept from the calls before) and
 * stp_put_udec_at, against glibc; the bytes after the end must not matter, so the buffer starts as
 * garbage */
static void check(int64_t v)
{
	char got[STP_DEC_MAX + 8], want[32];
	char *end;

	memset(got, 'x', sizeof(got));
	end = stp_put_sdec_at(got, v);
	snprintf(want, sizeof(want), "%" PRId64, v);
	checks++;
	if ((size_t)(end - got) != strlen(want) || memcmp(got, want, strlen(want))) {
		if (failures++ < 20)
			printf("%%d %" PRId64 ": got \"%.*s\"\n", v, (int)(end - got), got);
	}
	memset(got, 'x', sizeof(got));
	end = stp_put_sdec_lead_at(&lead, got, v);
	checks++;
	if ((size_t)(end - got) != strlen(want) || memcmp(got, want, strlen(want))) {
		if (failures++ < 20)
			printf("%%d with the lead of %" PRIu64 ": %" PRId64 ": got \"%.*s\"\n", lead.q, v, (int)(end - got), got);
	}
	memset(got, 'x', sizeof(got));
	end = stp_put_udec_at(got, v);
	snprintf(want, sizeof(want), "%" PRIu64, (uint64_t)v);
	checks++;
	if ((size_t)(end - got) != strlen(want) || memcmp(got, want, strlen(want))) {
		if (failures++ < 20)
			printf("%%u %" PRIu64 ": got \"%.*s\"\n", (uint64_t)v, (int)(end - got), got);
	}
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
	return xorshift64(&rng);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000000;
	uint64_t p = 1;

	/* each power of ten and its neighbours, both signs */
	for (int d = 0; d < 20; d++, p *= 10) {
		for (int64_t k = -2; k <= 2; k++) {
			int64_t v = (int64_t)(p + (uint64_t)k);
			check(v);
			check(-v);
		}
	}
	check(INT64_MIN);
	check(INT64_MAX);
	/* random values of every length, both signs */
	for (long i = 0; i < rounds; i++) {
		int64_t v = (int64_t)(next() >> (next() % 64));
		check((next() & 1) ? -v : v);
		/* a timestamp's run: the same leading digits, the next lead, one of 13 digits, back */
		int64_t t = 1764136800000000LL + (int64_t)(next() % 400000000ULL);
		check(t);
		check(t + 1);
		check(t + 100000000LL);
		check(t / 1000);
		check(t);
	}
	printf("%ld checks, %ld failures\n", checks, failures);
	return failures != 0;
}
