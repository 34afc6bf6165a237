/* arith.h - script arithmetic on the BPF runtime (core/arith.h's semantics): division by zero is a script
 * error, overflow wraps, shifts of any count; signed division through unsigned (BPF before cpu v4 has none). */
#ifndef STP_BPF_ARITH_H
#define STP_BPF_ARITH_H

static __always_inline u64 stp_abs64(int64_t a)
{
	return a < 0 ? 0 - (u64)a : (u64)a;
}

static __always_inline int64_t stp_div(struct stp_context *c, int64_t a, int64_t b)
{
	u64 q;

	if (unlikely(b == 0)) {
		stp_error(c, "division by 0");
		return 0;
	}
	q = stp_abs64(a) / stp_abs64(b);
	return (a < 0) != (b < 0) ? (int64_t)(0 - q) : (int64_t)q;
}

static __always_inline int64_t stp_mod(struct stp_context *c, int64_t a, int64_t b)
{
	u64 r;

	if (unlikely(b == 0)) {
		stp_error(c, "division by 0");
		return 0;
	}
	r = stp_abs64(a) % stp_abs64(b);
	return a < 0 ? (int64_t)(0 - r) : (int64_t)r;   /* C: the remainder takes the dividend's sign */
}

static __always_inline int64_t stp_shl(int64_t a, int64_t n)
{
	if (n < 0 || n > 63)
		return 0;
	return (int64_t)((u64)a << n);
}

static __always_inline int64_t stp_shr(int64_t a, int64_t n)
{
	if (n < 0 || n > 63)
		return a < 0 ? -1 : 0;
	return a >> n;
}

static __always_inline int64_t stp_ushr(int64_t a, int64_t n)
{
	if (n < 0 || n > 63)
		return 0;
	return (int64_t)((u64)a >> n);
}

#endif
