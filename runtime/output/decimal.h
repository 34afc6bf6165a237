/* decimal.h - printf's plain %d and %u at a pointer: straight-line decimal conversion (two digits
 * per multiplication), for the compiled printf (output.c) and tests/unit/decimal-driver.c. */
#ifndef STP_DECIMAL_H
#define STP_DECIMAL_H

/* "00" "01" ... "99": two decimal digits per division by 100 */
static const char stp_dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t stp_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
	10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
};

/* The number of decimal digits of u (1 to 20), without a division: the bit length times log10(2)
 * (1233 / 4096) is the digit count or one more, which one comparison settles.  u | 1 has as many
 * digits as u (a power of ten is even) and a bit length of at least 1. */
static __always_inline unsigned int stp_dec_len(uint64_t u)
{
	uint64_t v = u | 1;
	unsigned int t = ((64 - __builtin_clzll(v)) * 1233) >> 12;

	return t + 1 - (v < stp_pow10[t]);
}

/* Two digits of r (< 100) at p. */
static __always_inline void stp_put_pair(char *p, unsigned int r)
{
	memcpy(p, stp_dec_pairs + 2 * r, 2);
}

/* The 4 digits of x (< 10^4), leading zeros included, at p: x / 100 as (x * 5243) >> 19, exact
 * below 43699. */
static __always_inline void stp_put_dec4(char *p, uint32_t x)
{
	uint32_t hi = (x * 5243) >> 19;

	stp_put_pair(p, hi);
	stp_put_pair(p + 2, x - hi * 100);
}

/* The 8 digits of x (< 10^8), leading zeros included, at p. */
static __always_inline void stp_put_dec8(char *p, uint32_t x)
{
	uint32_t hi = x / 10000;

	stp_put_dec4(p, hi);
	stp_put_dec4(p + 4, x - hi * 10000);
}

/* The n (1 to 4) digits of x (< 10^n) at p. */
static __always_inline void stp_put_lead(char *p, uint32_t x, unsigned int n)
{
	uint32_t hi;

	switch (n) {
	case 1:
		*p = '0' + x;
		break;
	case 2:
		stp_put_pair(p, x);
		break;
	case 3:
		hi = (x * 5243) >> 19;
		*p = '0' + hi;
		stp_put_pair(p + 1, x - hi * 100);
		break;
	default:
		stp_put_dec4(p, x);
		break;
	}
}

/* The n (1 to 8) digits of x (< 10^n) at p: the leading 1 to 4, then 4 when there are more. */
static __always_inline void stp_put_dec_upto8(char *p, unsigned int n, uint32_t x)
{
	uint32_t hi;

	if (n <= 4) {
		stp_put_lead(p, x, n);
		return;
	}
	hi = x / 10000;
	stp_put_lead(p, hi, n - 4);
	stp_put_dec4(p + n - 4, x - hi * 10000);
}

/* The n decimal digits of u at p, straight-line by its length (no loop, no division but by
 * constants: a multiplication each): groups of 4 digits from the end, two pairs a group, the
 * leading 1 to 4 digits first. */
static __always_inline void stp_put_dec(char *p, unsigned int n, uint64_t u)
{
	uint64_t q;

	if (n <= 8) {
		stp_put_dec_upto8(p, n, (uint32_t)u);
		return;
	}
	q = u / 100000000ULL;
	stp_put_dec8(p + n - 8, (uint32_t)(u - q * 100000000ULL));
	if (n <= 16) {
		stp_put_dec_upto8(p, n - 8, (uint32_t)q);
		return;
	}
	/* 17 to 20 digits: q has 9 to 12 */
	u = q;
	q = u / 100000000ULL;
	stp_put_dec8(p + n - 16, (uint32_t)(u - q * 100000000ULL));
	stp_put_lead(p, (uint32_t)q, n - 16);
}

/* The longest plain %d or %u: 20 characters ("-9223372036854775808", "18446744073709551615"). */
#define STP_DEC_MAX 20

/* printf's plain %d (and %i) of v at p, room for STP_DEC_MAX known; returns the end. */
static __maybe_unused char *stp_put_sdec_at(char *p, int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	unsigned int digits = stp_dec_len(u);

	if (v < 0)
		*p++ = '-';
	stp_put_dec(p, digits, u);
	return p + digits;
}

/* printf's plain %d of v >= 10^8 at p, room for STP_DEC_MAX known, in a context (its kept lead l):
 * one of up to 16 digits has its leading ones (v / 10^8) copied from l when they are those of the
 * last such number l saw (8 bytes at once: a shorter lead's extra bytes are overwritten by the last
 * 8 digits), and only its last 8 converted.  Returns the end. */
static __maybe_unused char *stp_put_sdec_long_at(struct stp_dec_lead *l, char *p, int64_t v)
{
	uint64_t u = (uint64_t)v, q = u / 100000000ULL;

	if (unlikely(u >= 10000000000000000ULL))
		return stp_put_sdec_at(p, v);
	if (unlikely(q != l->q)) {
		l->n = stp_dec_len(q);
		stp_put_dec_upto8(l->digits, l->n, (uint32_t)q);
		l->q = q;
	}
	memcpy(p, l->digits, 8);
	p += l->n;
	stp_put_dec8(p, (uint32_t)(u - q * 100000000ULL));
	return p + 8;
}

/* printf's plain %d of v at p, room for STP_DEC_MAX known, in a context (its kept lead l): as
 * stp_put_sdec_at, a number of 9 digits or more by stp_put_sdec_long_at (a timestamp:
 * gettimeofday_us() has 16 digits, the leading 8 the same for 100 s); one comparison inline. */
static __always_inline char *stp_put_sdec_lead_at(struct stp_dec_lead *l, char *p, int64_t v)
{
	if (v >= 100000000LL)
		return stp_put_sdec_long_at(l, p, v);
	return stp_put_sdec_at(p, v);
}

/* printf's plain %u of v (unsigned 64 bits) at p, room known; returns the end. */
static __maybe_unused char *stp_put_udec_at(char *p, int64_t v)
{
	unsigned int digits = stp_dec_len((uint64_t)v);

	stp_put_dec(p, digits, (uint64_t)v);
	return p + digits;
}

#endif
