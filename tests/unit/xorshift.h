/* xorshift.h - the unit drivers' pseudo-random numbers (Marsaglia's xorshift64: fixed seeds, so a
 * run is repeatable).  Included by tests/unit/softfloat-driver.c and decimal-driver.c. */
#ifndef TESTS_XORSHIFT_H
#define TESTS_XORSHIFT_H

#include <stdint.h>

/* The next number of the sequence whose state is *s (never 0). */
static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
