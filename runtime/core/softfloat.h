/* softfloat.h - IEEE-754 binary64 arithmetic in integers (no FPU in the kernel): the doubles of
 * tapset/floatingpoint.stp (fp_*), and of tests/unit/softfloat-driver.c, which checks it against the host FPU. */
#ifndef STP_SOFTFLOAT_H
#define STP_SOFTFLOAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#define STP_SF_UNUSED __maybe_unused
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#define STP_SF_UNUSED __attribute__((unused))
#endif

/*
 * A double is its 64 bits in a uint64_t.  Inside, a finite nonzero value is unpacked as
 * (sig, e): value = sig * 2^(e - 1084), sig normalized with its leading 1 at bit 62 and 10
 * rounding bits below the 53 that are kept; e is then the biased exponent minus 1, so that
 * packing is (e << 52) + (sig >> 10), the leading 1 adding the missing 1.  Results round to
 * nearest, ties to even; NaNs follow x86 SSE: an operation returns its first NaN operand
 * (else the second) made quiet, and an invalid one the default NaN (negative, quiet).
 */
#define SF64_SIGN	 0x8000000000000000ULL
#define SF64_QUIET	 0x0008000000000000ULL
#define SF64_FRAC	 0x000FFFFFFFFFFFFFULL
#define SF64_INF	 0x7FF0000000000000ULL
#define SF64_DEFAULT_NAN 0xFFF8000000000000ULL
#define SF64_LEAD	 0x4000000000000000ULL	/* bit 62 */

/* The rounding modes of sf64_to_i64 (SystemTap's fp_to_long numbering) */
enum sf_round {
	SF_ROUND_NEAR_EVEN = 0,
	SF_ROUND_MIN_MAG = 1,
	SF_ROUND_MIN = 2,
	SF_ROUND_MAX = 3,
	SF_ROUND_NEAR_MAX_MAG = 4,
	SF_ROUND_ODD = 6,
};

/* What a NaN or an out-of-range value converts to (x86's "integer indefinite") */
#define SF_I64_INVALID ((int64_t)0x8000000000000000ULL)

static inline int sf64_biased_exp(uint64_t a) { return (int)((a >> 52) & 0x7FF); }
static inline bool sf64_is_nan(uint64_t a) { return (a & ~SF64_SIGN) > SF64_INF; }
static inline bool sf64_is_inf(uint64_t a) { return (a & ~SF64_SIGN) == SF64_INF; }
static inline bool sf64_is_zero(uint64_t a) { return !(a & ~SF64_SIGN); }

static inline int sf_clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }

/* x >> n, any bit shifted out or-ed into bit 0 (so a result is never taken for exact) */
static inline uint64_t sf_shift_right_jam(uint64_t x, int n)
{
	if (n <= 0)
		return x;
	if (n >= 64)
		return x != 0;
	return (x >> n) | ((x & ((1ULL << n) - 1)) != 0);
}

static inline uint64_t sf64_propagate_nan(uint64_t a, uint64_t b)
{
	return (sf64_is_nan(a) ? a : b) | SF64_QUIET;
}

/* A finite nonzero a as (sig, e), subnormals normalized (e then below 0). */
static inline void sf64_unpack(uint64_t a, uint64_t *sig, int *e)
{
	int be = sf64_biased_exp(a);
	uint64_t frac = a & SF64_FRAC;

	if (be) {
		*sig = (frac | (SF64_FRAC + 1)) << 10;
		*e = be - 1;
	} else {
		int s = sf_clz64(frac) - 1;

		*sig = frac << s;
		*e = 10 - s;
	}
}

/* sign | sig * 2^(e - 1084) rounded to nearest even; sig has its leading 1 at bit 62 (or is 0). */
static STP_SF_UNUSED uint64_t sf64_round_pack(uint64_t sign, int e, uint64_t sig)
{
	uint64_t round_bits;

	if (e < 0) {
		sig = sf_shift_right_jam(sig, -e);
		e = 0;
	} else if (e > 0x7FD) {
		return sign | SF64_INF;
	}
	round_bits = sig & 0x3FF;
	sig = (sig + 0x200) >> 10;
	if (round_bits == 0x200)
		sig &= ~1ULL;
	if (!sig)
		return sign;
	/* a carry out of bit 52 (or into it, for a subnormal) raises the exponent; 0x7FD + 2 is Inf */
	return sign | (((uint64_t)e << 52) + sig);
}

/* sign | sig * 2^(e - 1084) for any nonzero sig (not normalized) */
static inline uint64_t sf64_norm_round_pack(uint64_t sign, int e, uint64_t sig)
{
	int s = sf_clz64(sig) - 1;

	if (s < 0)
		return sf64_round_pack(sign, e + 1, sf_shift_right_jam(sig, 1));
	return sf64_round_pack(sign, e - s, sig << s);
}

/* |a| + |b| with a's sign; both finite nonzero */
static uint64_t sf64_add_mags(uint64_t a, uint64_t b, uint64_t sign)
{
	uint64_t sa, sb, sum;
	int ea, eb;

	sf64_unpack(a, &sa, &ea);
	sf64_unpack(b, &sb, &eb);
	if (ea < eb) {
		uint64_t ts = sa;
		int te = ea;

		sa = sb, ea = eb, sb = ts, eb = te;
	}
	sb = sf_shift_right_jam(sb, ea - eb);
	sum = sa + sb;
	if (sum & 0x8000000000000000ULL) {
		sum = sf_shift_right_jam(sum, 1);
		ea++;
	}
	return sf64_round_pack(sign, ea, sum);
}

/* |a| - |b| with a's sign (the other sign when |b| is larger); both finite nonzero */
static uint64_t sf64_sub_mags(uint64_t a, uint64_t b, uint64_t sign)
{
	uint64_t sa, sb, diff;
	int ea, eb;

	sf64_unpack(a, &sa, &ea);
	sf64_unpack(b, &sb, &eb);
	if (ea < eb || (ea == eb && sa < sb)) {
		uint64_t ts = sa;
		int te = ea;

		sa = sb, ea = eb, sb = ts, eb = te;
		sign ^= SF64_SIGN;
	}
	if (ea == eb && sa == sb)
		return 0;	/* exact cancellation: +0 when rounding to nearest */
	sb = sf_shift_right_jam(sb, ea - eb);
	diff = sa - sb;
	return sf64_norm_round_pack(sign, ea, diff);
}

static STP_SF_UNUSED uint64_t sf64_add(uint64_t a, uint64_t b)
{
	uint64_t sign_a = a & SF64_SIGN, sign_b = b & SF64_SIGN;

	if (sf64_is_nan(a) || sf64_is_nan(b))
		return sf64_propagate_nan(a, b);
	if (sf64_is_inf(a))
		return sf64_is_inf(b) && sign_a != sign_b ? SF64_DEFAULT_NAN : a;
	if (sf64_is_inf(b))
		return b;
	if (sf64_is_zero(a))
		return sf64_is_zero(b) ? (a & b) : b;	/* -0 + -0 is -0, else +0 */
	if (sf64_is_zero(b))
		return a;
	return sign_a == sign_b ? sf64_add_mags(a, b, sign_a) : sf64_sub_mags(a, b, sign_a);
}

static STP_SF_UNUSED uint64_t sf64_sub(uint64_t a, uint64_t b)
{
	if (sf64_is_nan(a) || sf64_is_nan(b))
		return sf64_propagate_nan(a, b);
	return sf64_add(a, b ^ SF64_SIGN);
}

static STP_SF_UNUSED uint64_t sf64_mul(uint64_t a, uint64_t b)
{
	uint64_t sign = (a ^ b) & SF64_SIGN, sa, sb, hi, lo;
	unsigned __int128 p;
	int ea, eb, e;

	if (sf64_is_nan(a) || sf64_is_nan(b))
		return sf64_propagate_nan(a, b);
	if (sf64_is_inf(a) || sf64_is_inf(b))
		return sf64_is_zero(a) || sf64_is_zero(b) ? SF64_DEFAULT_NAN : sign | SF64_INF;
	if (sf64_is_zero(a) || sf64_is_zero(b))
		return sign;
	sf64_unpack(a, &sa, &ea);
	sf64_unpack(b, &sb, &eb);
	p = (unsigned __int128)sa * (sb << 1);	/* in [2^125, 2^127) */
	e = ea + eb - 1021;
	if (!(p >> 126)) {
		p <<= 1;
		e--;
	}
	hi = (uint64_t)(p >> 64);
	lo = (uint64_t)p;
	return sf64_round_pack(sign, e, hi | (lo != 0));
}

static STP_SF_UNUSED uint64_t sf64_div(uint64_t a, uint64_t b)
{
	uint64_t sign = (a ^ b) & SF64_SIGN, sa, sb, q = 0;
	int ea, eb, e, i;

	if (sf64_is_nan(a) || sf64_is_nan(b))
		return sf64_propagate_nan(a, b);
	if (sf64_is_inf(a))
		return sf64_is_inf(b) ? SF64_DEFAULT_NAN : sign | SF64_INF;
	if (sf64_is_inf(b))
		return sign;
	if (sf64_is_zero(b))
		return sf64_is_zero(a) ? SF64_DEFAULT_NAN : sign | SF64_INF;
	if (sf64_is_zero(a))
		return sign;
	sf64_unpack(a, &sa, &ea);
	sf64_unpack(b, &sb, &eb);
	e = ea - eb + 1022;
	if (sa < sb) {
		sa <<= 1;	/* now sb <= sa < 2 sb: the quotient's first bit is 1 */
		e--;
	}
	for (i = 0; i < 63; i++) {	/* restoring division, one quotient bit a step */
		q <<= 1;
		if (sa >= sb) {
			sa -= sb;
			q |= 1;
		}
		sa <<= 1;
	}
	return sf64_round_pack(sign, e, q | (sa != 0));
}

static STP_SF_UNUSED uint64_t sf64_sqrt(uint64_t a)
{
	unsigned __int128 op, res = 0, one = (unsigned __int128)1 << 126;
	uint64_t sa;
	int ea, k;

	if (sf64_is_nan(a))
		return a | SF64_QUIET;
	if (sf64_is_zero(a))
		return a;
	if (a & SF64_SIGN)
		return SF64_DEFAULT_NAN;
	if (sf64_is_inf(a))
		return a;
	sf64_unpack(a, &sa, &ea);
	k = ea - 1022;		/* a = (sa / 2^62) * 2^k */
	op = (unsigned __int128)sa << 62;
	if (k & 1) {
		op <<= 1;
		k--;
	}
	/* the integer square root of op (< 2^126), a bit a step: res = sqrt(a's m) * 2^62 */
	while (one > op)
		one >>= 2;
	while (one) {
		if (op >= res + one) {
			op -= res + one;
			res = (res >> 1) + one;
		} else {
			res >>= 1;
		}
		one >>= 2;
	}
	return sf64_round_pack(0, k / 2 + 1022, (uint64_t)res | (op != 0));
}

/* a finite nonzero value as an integer significand m in [2^52, 2^53) and the exponent of its last bit */
static inline void sf64_unpack_int(uint64_t a, uint64_t *m, int *lsb_exp)
{
	uint64_t sig;
	int e;

	sf64_unpack(a, &sig, &e);
	*m = sig >> 10;
	*lsb_exp = e - 1074;
}

/*
 * The IEEE remainder: a - n*b, n the integer nearest a/b (ties to even), as C's remainder();
 * always exact.  The quotient's bits are found 10 at a time (at most about 210 steps).
 */
static STP_SF_UNUSED uint64_t sf64_rem(uint64_t a, uint64_t b)
{
	uint64_t sign = a & SF64_SIGN, ma, mb, r, q_last;
	int xa, xb, d, step;

	if (sf64_is_nan(a) || sf64_is_nan(b))
		return sf64_propagate_nan(a, b);
	if (sf64_is_inf(a) || sf64_is_zero(b))
		return SF64_DEFAULT_NAN;
	if (sf64_is_inf(b) || sf64_is_zero(a))
		return a;
	sf64_unpack_int(a, &ma, &xa);
	sf64_unpack_int(b, &mb, &xb);
	d = xa - xb;
	if (d < -1)
		return a;	/* |a| < |b| / 2 */
	if (d == -1) {		/* |a| < |b|: n is 1 when |a| > |b| / 2 */
		if (ma <= mb)
			return a;
		r = 2 * mb - ma;	/* |a| - |b| in units of 2^xa */
		return sf64_norm_round_pack(sign ^ SF64_SIGN, xa + 1084, r);
	}
	q_last = ma / mb;
	r = ma % mb;
	while (d > 0) {
		step = d < 10 ? d : 10;
		r <<= step;
		q_last = r / mb;
		r %= mb;
		d -= step;
	}
	/* a = (q * mb + r) * 2^xb with q's last bit in q_last: round q to nearest even */
	if (2 * r > mb || (2 * r == mb && (q_last & 1))) {
		r = mb - r;
		sign ^= SF64_SIGN;
	}
	if (!r)
		return a & SF64_SIGN;
	return sf64_norm_round_pack(sign, xb + 1084, r);
}

/* Comparisons: a NaN compares false; -0 equals +0 */
static STP_SF_UNUSED bool sf64_eq(uint64_t a, uint64_t b)
{
	if (sf64_is_nan(a) || sf64_is_nan(b))
		return false;
	return a == b || sf64_is_zero(a | b);
}

static STP_SF_UNUSED bool sf64_lt(uint64_t a, uint64_t b)
{
	bool neg_a = a >> 63, neg_b = b >> 63;

	if (sf64_is_nan(a) || sf64_is_nan(b))
		return false;
	if (neg_a != neg_b)
		return neg_a && !sf64_is_zero(a | b);
	return a != b && (neg_a ? a > b : a < b);
}

static STP_SF_UNUSED bool sf64_le(uint64_t a, uint64_t b)
{
	if (sf64_is_nan(a) || sf64_is_nan(b))
		return false;
	return sf64_eq(a, b) || sf64_lt(a, b);
}

static STP_SF_UNUSED uint64_t sf64_from_i64(int64_t v)
{
	uint64_t sign = v < 0 ? SF64_SIGN : 0;
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	if (!mag)
		return 0;
	return sf64_norm_round_pack(sign, 1084, mag);
}

/* the 32-bit float whose bits are the low 32 of f as a double (exact) */
static STP_SF_UNUSED uint64_t sf64_from_f32(uint32_t f)
{
	uint64_t sign = (uint64_t)(f >> 31) << 63;
	int be = (f >> 23) & 0xFF;
	uint64_t frac = f & 0x7FFFFF;

	if (be == 0xFF)
		return frac ? sign | SF64_INF | SF64_QUIET | (frac << 29) : sign | SF64_INF;
	if (!be) {
		if (!frac)
			return sign;
		return sf64_norm_round_pack(sign, 1084 - 149, frac);	/* frac * 2^-149 */
	}
	return sign | ((uint64_t)(be - 127 + 1023) << 52) | (frac << 29);
}

/* a rounded to an integer by mode; NaN, out-of-range values and unknown modes give SF_I64_INVALID */
static STP_SF_UNUSED int64_t sf64_to_i64(uint64_t a, enum sf_round mode)
{
	bool neg = a >> 63, inexact, up = false;
	int be = sf64_biased_exp(a), k;
	uint64_t m, ip, rem, half;
	int cmp;	/* the dropped fraction against one half: -1, 0, 1 */

	if (mode > SF_ROUND_ODD || (int)mode < 0 || (int)mode == 5 || sf64_is_nan(a) || be >= 1023 + 63)
		return SF_I64_INVALID;	/* |a| >= 2^63 (-2^63 itself is this value too) */
	if (sf64_is_zero(a))
		return 0;
	m = (a & SF64_FRAC) | (be ? SF64_FRAC + 1 : 0);
	k = 1075 - (be ? be : 1);	/* a = m / 2^k */
	if (k <= 0)
		return neg ? -(int64_t)(m << -k) : (int64_t)(m << -k);
	if (k >= 64) {
		ip = 0;
		cmp = -1;	/* m < 2^53 <= 2^(k-1) */
		inexact = true;
	} else {
		ip = m >> k;
		rem = m & ((1ULL << k) - 1);
		half = 1ULL << (k - 1);
		cmp = rem > half ? 1 : rem == half ? 0 : -1;
		inexact = rem != 0;
	}
	switch (mode) {
	case SF_ROUND_NEAR_EVEN:
		up = cmp > 0 || (cmp == 0 && (ip & 1));
		break;
	case SF_ROUND_NEAR_MAX_MAG:
		up = cmp >= 0;
		break;
	case SF_ROUND_MIN_MAG:
		break;
	case SF_ROUND_MIN:
		up = neg && inexact;
		break;
	case SF_ROUND_MAX:
		up = !neg && inexact;
		break;
	case SF_ROUND_ODD:
		if (inexact)
			ip |= 1;
		break;
	default:
		return SF_I64_INVALID;
	}
	ip += up;
	return neg ? -(int64_t)ip : (int64_t)ip;
}

/*
 * Decimal text of a double: printf's "%.*f" (every digit exact, the last rounded to nearest,
 * ties to even; "inf", "-inf", "nan", "-nan"), written to out[cap] and cut to cap - 1 bytes
 * as snprintf does.  Big numbers in 32-bit limbs: a double's integer part has at most 1024
 * bits, its fraction at most 1074 (and 4 more while a digit is taken out).
 */
#define SF_BIG_LIMBS 36

struct sf_text {
	char *out;
	size_t cap, len;	/* len counts every character, written or cut */
};

static inline void sf_text_put(struct sf_text *t, char c)
{
	if (t->len + 1 < t->cap)
		t->out[t->len] = c;
	t->len++;
}

static void sf_text_puts(struct sf_text *t, const char *s)
{
	while (*s)
		sf_text_put(t, *s++);
}

/* big /= 10^9 in place, the remainder returned; n limbs */
static uint32_t sf_big_div_1e9(uint32_t *big, int n)
{
	uint64_t r = 0;
	int i;

	for (i = n - 1; i >= 0; i--) {
		uint64_t cur = (r << 32) | big[i];

		big[i] = (uint32_t)(cur / 1000000000u);
		r = cur % 1000000000u;
	}
	return (uint32_t)r;
}

/* The decimal digits of m * 2^p (p >= 0) into digits[], most significant first; returns their count. */
static int sf_int_digits(uint64_t m, int p, char *digits, int room)
{
	uint32_t big[SF_BIG_LIMBS] = { 0 };
	int n = p / 32 + 3, nd = 0, i, j, s = p % 32;
	unsigned __int128 wide = (unsigned __int128)m << s;

	big[p / 32] = (uint32_t)wide;
	big[p / 32 + 1] = (uint32_t)(wide >> 32);
	big[p / 32 + 2] = (uint32_t)(wide >> 64);
	/* 10^9 chunks, least significant first, reversed at the end */
	for (;;) {
		uint32_t chunk;
		bool rest = false;

		while (n > 0 && !big[n - 1])
			n--;
		chunk = sf_big_div_1e9(big, n);
		for (i = 0; i < n; i++)
			rest |= big[i] != 0;
		for (j = 0; j < 9 && (rest || chunk) && nd < room; j++) {
			digits[nd++] = (char)('0' + chunk % 10);
			chunk /= 10;
		}
		if (!rest)
			break;
	}
	if (!nd)
		digits[nd++] = '0';
	for (i = 0, j = nd - 1; i < j; i++, j--) {
		char c = digits[i];

		digits[i] = digits[j];
		digits[j] = c;
	}
	return nd;
}

/* One decimal digit of the fraction f / 2^q (f < 2^q): f *= 10, the digit is what passes 2^q. */
static int sf_frac_next_digit(uint32_t *f, int q)
{
	int n = q / 32 + 2, i, digit;
	uint64_t carry = 0, top;

	for (i = 0; i < n; i++) {
		uint64_t cur = (uint64_t)f[i] * 10 + carry;

		f[i] = (uint32_t)cur;
		carry = cur >> 32;
	}
	top = f[q / 32] | ((uint64_t)f[q / 32 + 1] << 32);
	digit = (int)(top >> (q % 32));
	f[q / 32] &= (uint32_t)((1ULL << (q % 32)) - 1);
	f[q / 32 + 1] = 0;
	return digit;
}

/* f / 2^q against one half: -1, 0, 1 */
static int sf_frac_cmp_half(const uint32_t *f, int q)
{
	int top = (q - 1) / 32, i;
	uint32_t half = 1u << ((q - 1) % 32);

	if (f[top] != half)
		return f[top] > half ? 1 : -1;
	for (i = top - 1; i >= 0; i--)
		if (f[i])
			return 1;
	return 0;
}

static STP_SF_UNUSED size_t sf64_to_text(uint64_t a, int precision, char *out, size_t cap)
{
	struct sf_text t = { out, cap, 0 };
	uint32_t frac[SF_BIG_LIMBS] = { 0 };
	char idig[320];
	int nint, i, q = 0, last_non9 = -1, last_digit, be = sf64_biased_exp(a);
	uint64_t m = (a & SF64_FRAC) | (be ? SF64_FRAC + 1 : 0);
	int p = (be ? be : 1) - 1075;	/* |a| = m * 2^p */
	size_t int_start;
	bool up = false, fraction_left = false;

	if (a >> 63)
		sf_text_put(&t, '-');
	if (sf64_is_nan(a) || sf64_is_inf(a)) {
		sf_text_puts(&t, sf64_is_nan(a) ? "nan" : "inf");
		goto done;
	}
	if (precision < 0)
		precision = 0;
	if (p >= 0) {
		nint = sf_int_digits(m, p, idig, (int)sizeof(idig));
	} else {
		q = -p;
		nint = sf_int_digits(q >= 64 ? 0 : m >> q, 0, idig, (int)sizeof(idig));
		if (q < 64)
			m &= (1ULL << q) - 1;
		frac[0] = (uint32_t)m;
		frac[1] = (uint32_t)(m >> 32);
		fraction_left = m != 0;
	}
	last_digit = idig[nint - 1] - '0';
	int_start = t.len;
	for (i = 0; i < nint; i++) {
		sf_text_put(&t, idig[i]);
		if (idig[i] != '9')
			last_non9 = (int)t.len - 1;
	}
	if (precision)
		sf_text_put(&t, '.');
	for (i = 0; i < precision; i++) {
		int digit = fraction_left ? sf_frac_next_digit(frac, q) : 0;

		sf_text_put(&t, (char)('0' + digit));
		last_digit = digit;
		if (digit != 9)
			last_non9 = (int)t.len - 1;
		if (fraction_left && i + 1 < precision) {
			int k;

			fraction_left = false;
			for (k = 0; k <= q / 32; k++)
				fraction_left |= frac[k] != 0;
		}
	}
	if (fraction_left) {
		int c = sf_frac_cmp_half(frac, q);

		up = c > 0 || (c == 0 && (last_digit & 1));
	}
	if (up) {
		size_t j;

		if (last_non9 < 0) {	/* all nines: one more integer digit */
			t.len = int_start;
			sf_text_put(&t, '1');
			for (i = 0; i < nint; i++)
				sf_text_put(&t, '0');
			if (precision)
				sf_text_put(&t, '.');
			for (i = 0; i < precision; i++)
				sf_text_put(&t, '0');
			goto done;
		}
		if ((size_t)last_non9 + 1 < t.cap)
			t.out[last_non9]++;
		for (j = (size_t)last_non9 + 1; j < t.len && j + 1 < t.cap; j++)
			if (t.out[j] == '9')
				t.out[j] = '0';
	}
done:
	if (t.cap)
		t.out[t.len < t.cap ? t.len : t.cap - 1] = 0;
	return t.len;
}

/*
 * Decimal text to double, correctly rounded (to nearest, ties to even) like strtod:
 * [spaces][+|-](DIGITS[.DIGITS] | .DIGITS)[(e|E)[+|-]DIGITS][spaces], or inf, infinity, nan
 * (any case).  The first SF_DEC_MAX_DIGITS significant digits are kept exactly, any nonzero
 * digit after them counts as a little more (enough: a double's halfway points have at most 767).
 * value = D * 10^E is num / den in big integers, num and den shifted so that the quotient has
 * 63 or 64 bits, found by restoring division, the remainder its sticky bit.  The work area
 * (two numbers of at most 3817 bits) is the caller's: too big for a probe's stack.
 */
#define SF_DEC_MAX_DIGITS 800
#define SF_DEC_LIMBS 122

struct sf_dec_work {
	uint32_t num[SF_DEC_LIMBS], den[SF_DEC_LIMBS];
};

static int sf_big_bits(const uint32_t *b)
{
	int i;

	for (i = SF_DEC_LIMBS - 1; i >= 0; i--)
		if (b[i])
			return i * 32 + 32 - __builtin_clz(b[i]);
	return 0;
}

static void sf_big_mul_add(uint32_t *b, uint32_t mul, uint32_t add)
{
	uint64_t carry = add;
	int i;

	for (i = 0; i < SF_DEC_LIMBS; i++) {
		uint64_t cur = (uint64_t)b[i] * mul + carry;

		b[i] = (uint32_t)cur;
		carry = cur >> 32;
	}
}

static void sf_big_shl(uint32_t *b, int s)
{
	int words = s / 32, bits = s % 32, i;

	for (i = SF_DEC_LIMBS - 1; i >= 0; i--) {
		uint32_t hi = i - words >= 0 ? b[i - words] : 0;
		uint32_t lo = i - words - 1 >= 0 ? b[i - words - 1] : 0;

		b[i] = bits ? (hi << bits) | (lo >> (32 - bits)) : hi;
	}
}

static void sf_big_shr1(uint32_t *b)
{
	int i;

	for (i = 0; i < SF_DEC_LIMBS; i++)
		b[i] = (b[i] >> 1) | (i + 1 < SF_DEC_LIMBS ? b[i + 1] << 31 : 0);
}

/* a -= b when a >= b; returns whether it did */
static bool sf_big_sub_if_ge(uint32_t *a, const uint32_t *b)
{
	int64_t borrow = 0;
	int i;

	for (i = SF_DEC_LIMBS - 1; i >= 0; i--)
		if (a[i] != b[i]) {
			if (a[i] < b[i])
				return false;
			break;
		}
	for (i = 0; i < SF_DEC_LIMBS; i++) {
		int64_t cur = (int64_t)a[i] - b[i] - borrow;

		borrow = cur < 0;
		a[i] = (uint32_t)(cur + (borrow << 32));
	}
	return true;
}

static inline bool sf_is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* s begins with word (any case); its length, else 0 */
static size_t sf_word(const char *s, const char *word)
{
	size_t i;

	for (i = 0; word[i]; i++)
		if ((s[i] | 0x20) != word[i])
			return 0;
	return i;
}

/* *out = the double s denotes; -1 (out unchanged) when s is not a number as above */
static STP_SF_UNUSED int sf64_from_text(const char *s, uint64_t *out, struct sf_dec_work *w)
{
	uint64_t sign = 0, q = 0;
	long exp10 = 0, e_val = 0;
	int nd = 0, any = 0, i, k, s_num = 0, s_den = 0;
	bool sticky = false, seen_point = false;
	size_t n;

	while (sf_is_space(*s))
		s++;
	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? SF64_SIGN : 0;
	if ((n = sf_word(s, "infinity")) || (n = sf_word(s, "inf"))) {
		q = sign | SF64_INF;
		s += n;
		goto tail;
	}
	if ((n = sf_word(s, "nan"))) {
		q = sign | SF64_INF | SF64_QUIET;
		s += n;
		goto tail;
	}
	for (i = 0; i < SF_DEC_LIMBS; i++)
		w->num[i] = w->den[i] = 0;
	for (;; s++) {
		if (*s == '.' && !seen_point) {
			seen_point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		any = 1;
		if (!nd && *s == '0') {		/* a leading zero */
			exp10 -= seen_point;
			continue;
		}
		if (nd < SF_DEC_MAX_DIGITS) {
			sf_big_mul_add(w->num, 10, (uint32_t)(*s - '0'));
			nd++;
			exp10 -= seen_point;
		} else {
			sticky |= *s != '0';
			exp10 += !seen_point;
		}
	}
	if (!any)
		return -1;
	if (*s == 'e' || *s == 'E') {
		bool neg = false;

		s++;
		if (*s == '+' || *s == '-')
			neg = *s++ == '-';
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++)
			if (e_val < 100000)
				e_val = e_val * 10 + (*s - '0');
		exp10 += neg ? -e_val : e_val;
	}
	if (!nd) {
		q = sign;
	} else if (nd + exp10 > 310) {
		q = sign | SF64_INF;
	} else if (nd + exp10 < -330) {
		q = sign;
	} else {
		/* num / den: D * 10^E, or D / 10^-E */
		w->den[0] = 1;
		for (k = 0; k < (exp10 < 0 ? -exp10 : exp10); k++)
			sf_big_mul_add(exp10 < 0 ? w->den : w->num, 10, 0);
		k = sf_big_bits(w->num) - sf_big_bits(w->den) - 63;
		if (k < 0)
			sf_big_shl(w->num, s_num = -k);
		else
			s_den = k;
		sf_big_shl(w->den, s_den + 63);
		for (i = 63; i >= 0; i--) {
			if (sf_big_sub_if_ge(w->num, w->den))
				q |= 1ULL << i;
			sf_big_shr1(w->den);
		}
		sticky |= sf_big_bits(w->num) != 0;
		q = sf64_norm_round_pack(sign, s_den - s_num + 1084, q | sticky);
	}
tail:
	while (sf_is_space(*s))
		s++;
	if (*s)
		return -1;
	*out = q;
	return 0;
}

#endif /* STP_SOFTFLOAT_H */
