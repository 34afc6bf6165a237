/* softfloat-driver.c - checks runtime/core/softfloat.h, built for userspace, bit for bit against the
 * host's SSE2 doubles, libm and glibc's printf on edge cases and random inputs.  Built and run by tests/unit/softfloat.t. */
#include "../../runtime/core/softfloat.h"
#include "xorshift.h"

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long failures, checks;

static double d_of(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint64_t u_of(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

/* The host's operations as single SSE2 instructions, operand order kept (NaN propagation depends on it) */
static uint64_t hw_add(uint64_t a, uint64_t b) { double x = d_of(a), y = d_of(b); __asm__("addsd %1, %0" : "+x"(x) : "x"(y)); return u_of(x); }
static uint64_t hw_sub(uint64_t a, uint64_t b) { double x = d_of(a), y = d_of(b); __asm__("subsd %1, %0" : "+x"(x) : "x"(y)); return u_of(x); }
static uint64_t hw_mul(uint64_t a, uint64_t b) { double x = d_of(a), y = d_of(b); __asm__("mulsd %1, %0" : "+x"(x) : "x"(y)); return u_of(x); }
static uint64_t hw_div(uint64_t a, uint64_t b) { double x = d_of(a), y = d_of(b); __asm__("divsd %1, %0" : "+x"(x) : "x"(y)); return u_of(x); }
static uint64_t hw_sqrt(uint64_t a) { double x = d_of(a), r; __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x)); return u_of(r); }

/* The x87's FPREM1 (IEEE remainder; glibc's remainder() gives -0 for some positive x), NaN results by
 * the SSE rule softfloat.h documents */
static uint64_t ref_rem(uint64_t a, uint64_t b)
{
	long double x = d_of(a), y = d_of(b);
	unsigned short sw;

	if (isnan(d_of(a)) || isnan(d_of(b)))
		return (isnan(d_of(a)) ? a : b) | SF64_QUIET;
	if (isinf(d_of(a)) || d_of(b) == 0)
		return SF64_DEFAULT_NAN;
	do
		__asm__("fprem1\n\tfnstsw %1" : "+t"(x), "=a"(sw) : "u"(y));
	while (sw & 0x400);	/* C2: a partial remainder, go on */
	return u_of((double)x);
}

static void fail(const char *op, uint64_t a, uint64_t b, uint64_t got, uint64_t want)
{
	if (++failures <= 40)
		printf("FAIL %s(%016" PRIx64 ", %016" PRIx64 "): got %016" PRIx64 ", want %016" PRIx64 "\n",
		       op, a, b, got, want);
}

static void check(const char *op, uint64_t a, uint64_t b, uint64_t got, uint64_t want)
{
	checks++;
	if (got != want)
		fail(op, a, b, got, want);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
	return xorshift64(&rng_state);
}

static const uint64_t edges[] = {
	0, SF64_SIGN, SF64_INF, SF64_INF | SF64_SIGN, SF64_DEFAULT_NAN, 0x7FF8000000000000ULL,
	0x7FF0000000000001ULL, 0xFFF4000000000123ULL, 0x7FFFFFFFFFFFFFFFULL,
	1, 2, 3, 0x000FFFFFFFFFFFFFULL, 0x0010000000000000ULL, 0x0010000000000001ULL, 0x001FFFFFFFFFFFFFULL,
	0x8000000000000001ULL, 0x800FFFFFFFFFFFFFULL, 0x7FEFFFFFFFFFFFFFULL, 0xFFEFFFFFFFFFFFFFULL,
	0x3FF0000000000000ULL, 0xBFF0000000000000ULL, 0x3FF0000000000001ULL, 0x3FEFFFFFFFFFFFFFULL,
	0x4000000000000000ULL, 0x3FE0000000000000ULL, 0x4008000000000000ULL, 0x4024000000000000ULL,
	0x3FB999999999999AULL, 0x43E0000000000000ULL, 0xC3E0000000000000ULL, 0x43DFFFFFFFFFFFFFULL,
	0x4330000000000000ULL, 0x4330000000000001ULL, 0x4340000000000000ULL, 0x3CB0000000000000ULL,
	0x3FF8000000000000ULL, 0xBFF8000000000000ULL, 0x4004000000000000ULL, 0x3FE0000000000001ULL,
};
#define NEDGES (sizeof(edges) / sizeof(edges[0]))

/* A random double of one of several shapes: any bits, near an edge, a small exponent range, a small integer */
static uint64_t rnd_double(void)
{
	uint64_t r = rnd();

	switch (r % 8) {
	case 0:
		return rnd();
	case 1:
		return edges[rnd() % NEDGES] + (rnd() % 5) - 2;
	case 2:
		return (rnd() & (SF64_SIGN | SF64_FRAC)) | ((uint64_t)(1023 - 8 + rnd() % 16) << 52);
	case 3:
		return rnd() & (SF64_SIGN | SF64_FRAC | (3ULL << 52));	/* subnormals and the smallest normals */
	case 4:
		return (rnd() & (SF64_SIGN | SF64_FRAC)) | ((uint64_t)(2046 - rnd() % 4) << 52);
	case 5:
		return u_of((double)(int64_t)(rnd() % 2001) - 1000.0);
	case 6: {
		/* short significands: many ties and exact results */
		uint64_t u = rnd();

		return u & ~((1ULL << (rnd() % 52)) - 1);
	}
	default:
		return (rnd() & (SF64_SIGN | SF64_FRAC)) | ((uint64_t)(1023 - 40 + rnd() % 80) << 52);
	}
}

/* b near a's exponent (cancellation in add/sub, long quotients in rem) */
static uint64_t rnd_near(uint64_t a)
{
	switch (rnd() % 4) {
	case 0:
		return a ^ (rnd() & ((1ULL << (rnd() % 53)) - 1));
	case 1:
		return (a ^ SF64_SIGN) + (rnd() % 7) - 3;
	case 2:
		return (a & (0xFFFULL << 52)) + (rnd() & SF64_FRAC) + ((rnd() % 120) << 52) - (60ULL << 52);
	default:
		return rnd_double();
	}
}

static void check_binary(uint64_t a, uint64_t b)
{
	check("add", a, b, sf64_add(a, b), hw_add(a, b));
	check("sub", a, b, sf64_sub(a, b), hw_sub(a, b));
	check("mul", a, b, sf64_mul(a, b), hw_mul(a, b));
	check("div", a, b, sf64_div(a, b), hw_div(a, b));
	check("rem", a, b, sf64_rem(a, b), ref_rem(a, b));
	check("eq", a, b, sf64_eq(a, b), d_of(a) == d_of(b));
	check("lt", a, b, sf64_lt(a, b), d_of(a) < d_of(b));
	check("le", a, b, sf64_le(a, b), d_of(a) <= d_of(b));
}

static int64_t ref_to_i64(uint64_t a, int mode)
{
	static const int fe_modes[] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };
	double x = d_of(a), t;
	int64_t r;
	uint64_t mag;

	if (isnan(x) || fabs(x) >= 0x1p63)
		return SF_I64_INVALID;
	switch (mode) {
	case 4:
		return llround(x);
	case 6:
		t = trunc(x);
		mag = (uint64_t)fabs(t);
		if (t != x)
			mag |= 1;
		return x < 0 ? -(int64_t)mag : (int64_t)mag;
	default:
		fesetround(fe_modes[mode]);
		r = llrint(x);
		fesetround(FE_TONEAREST);
		return r;
	}
}

static void check_unary(uint64_t a)
{
	static const int modes[] = { 0, 1, 2, 3, 4, 6 };
	unsigned i;

	check("sqrt", a, 0, sf64_sqrt(a), hw_sqrt(a));
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		check("to_i64", a, (uint64_t)modes[i], (uint64_t)sf64_to_i64(a, modes[i]),
		      (uint64_t)ref_to_i64(a, modes[i]));
	check("to_i64 bad mode", a, 5, (uint64_t)sf64_to_i64(a, 5), (uint64_t)SF_I64_INVALID);
	check("from_i64", a, 0, sf64_from_i64((int64_t)a), u_of((double)(int64_t)a));
}

static void check_f32(uint32_t f)
{
	float x;
	double d;

	memcpy(&x, &f, 4);
	__asm__("cvtss2sd %1, %0" : "=x"(d) : "x"(x));
	check("from_f32", f, 0, sf64_from_f32(f), u_of(d));
}

static void check_text(uint64_t a, int precision, size_t cap)
{
	char got[600], want[600];
	size_t n;
	int wn;

	n = sf64_to_text(a, precision, got, cap);
	wn = snprintf(want, cap, "%.*f", precision, d_of(a));
	checks++;
	if (strcmp(got, want) || n != (size_t)wn) {
		if (++failures <= 40)
			printf("FAIL to_text(%016" PRIx64 ", %d, cap %zu): got \"%s\" (%zu), want \"%s\" (%d)\n",
			       a, precision, cap, got, n, want, wn);
	}
}

static struct sf_dec_work dec_work;

static void check_from_text(const char *text)
{
	uint64_t got = 0x1234;
	int rc = sf64_from_text(text, &got, &dec_work);
	uint64_t want = u_of(strtod(text, NULL));

	checks++;
	if (rc || got != want) {
		if (++failures <= 40)
			printf("FAIL from_text(\"%.100s\"): rc %d, got %016" PRIx64 ", want %016" PRIx64 "\n",
			       text, rc, got, want);
	}
}

static void check_text_rejected(const char *text)
{
	uint64_t got = 0;

	checks++;
	if (sf64_from_text(text, &got, &dec_work) != -1 && ++failures <= 40)
		printf("FAIL from_text(\"%s\") accepted: %016" PRIx64 "\n", text, got);
}

/* Decimal texts: a double's shortest and longer forms, digits at random, halfway points between two
 * doubles written exactly and a digit either side of them, very long digit strings */
static void check_from_text_random(void)
{
	char buf[1200];
	uint64_t a = rnd_double() & ~SF64_SIGN;
	int len, i;

	if (sf64_is_nan(a) || sf64_is_inf(a))
		a = 0x3FF0000000000000ULL;
	switch (rnd() % 6) {
	case 0:
		snprintf(buf, sizeof(buf), "%.17g", d_of(a));
		break;
	case 1:
		snprintf(buf, sizeof(buf), "%s%.*e", rnd() & 1 ? "-" : "", (int)(rnd() % 25), d_of(a));
		break;
	case 2: {
		/* the exact halfway point above a (an 80-bit long double holds it), maybe nudged */
		long double mid = ((long double)d_of(a) + (long double)d_of(a + 1)) / 2;

		len = snprintf(buf, sizeof(buf), "%.780Le", mid);
		if (strchr(buf, 'e') && rnd() & 1) {
			char *e = strchr(buf, 'e');
			int at = (int)(rnd() % (e - buf - 2)) + 2;

			if (buf[at] >= '0' && buf[at] <= '9')
				buf[at] = (char)('0' + rnd() % 10);
		}
		(void)len;
		break;
	}
	case 3:
		len = (int)(rnd() % 30) + 1;
		for (i = 0; i < len; i++)
			buf[i] = (char)('0' + rnd() % 10);
		buf[len] = 0;
		if (len > 1 && rnd() & 1)
			buf[rnd() % len] = '.';
		snprintf(buf + strlen(buf), 20, "e%d", (int)(rnd() % 700) - 360);
		break;
	case 4:
		len = 790 + (int)(rnd() % 30);
		buf[0] = '0';
		buf[1] = '.';
		for (i = 2; i < len; i++)
			buf[i] = (char)('0' + rnd() % 10);
		snprintf(buf + len, 20, "e%d", (int)(rnd() % 640) - 320);
		break;
	default:
		snprintf(buf, sizeof(buf), "%.*f", (int)(rnd() % 20), d_of(a & 0x43FFFFFFFFFFFFFFULL));
		break;
	}
	check_from_text(buf);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000000, i;
	unsigned x, y;

	for (x = 0; x < NEDGES; x++) {
		check_unary(edges[x]);
		for (y = 0; y < NEDGES; y++)
			check_binary(edges[x], edges[y]);
		for (y = 0; y < 40; y++)
			check_text(edges[x], (int)y, 600);
	}
	for (i = 0; i < rounds; i++) {
		uint64_t a = rnd_double(), b = rnd() & 1 ? rnd_near(a) : rnd_double();

		check_binary(a, b);
		check_unary(a);
		check_unary((uint64_t)(int64_t)(rnd() >> (rnd() % 64)) * (rnd() & 1 ? 1 : -1));
		check_f32((uint32_t)rnd());
		if (i % 16 == 0)
			check_text(a, (int)(rnd() % 30), rnd() % 8 ? 600 : 1 + rnd() % 40);
	}
	{
		static const char *const good[] = { "0", "-0", "+0.0e10", "1", "  2.5  ", "1e308", "1.8e308", "-1e309",
			"4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400", "inf", "-Infinity",
			"NaN", "-nan", ".5", "5.", "0.1", "123456789012345678901234567890", "9007199254740993",
			"1e22", "1e23", "2.2250738585072011e-308", "2.2250738585072012e-308", "00012.5000e-1" };
		static const char *const bad[] = { "", " ", "-", ".", "e5", "1e", "1e+", "1x", "nan(1)", "0x10",
			"1.2.3", "--1", "in", "1 2" };

		for (x = 0; x < sizeof(good) / sizeof(good[0]); x++)
			check_from_text(good[x]);
		for (x = 0; x < sizeof(bad) / sizeof(bad[0]); x++)
			check_text_rejected(bad[x]);
		for (i = 0; i < rounds / 20; i++)
			check_from_text_random();
	}
	/* every float whose exponent is an edge, and the subnormal floats with few bits */
	for (x = 0; x < 1u << 24; x++) {
		check_f32(x);		/* zeros, subnormals */
		check_f32(x | 0x7F800000u);	/* Inf, NaNs */
		check_f32(x ^ 0x80000000u);
	}
	printf("%ld checks, %ld failures\n", checks, failures);
	return failures != 0;
}
