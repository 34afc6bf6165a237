/* arith.h - script arithmetic with every case defined: division by zero is a
 * script error, overflow wraps, shifts of any count.  Used by generated code. */
#ifndef STP_ARITH_H
#define STP_ARITH_H

struct stp_context;
static void stp_error(struct stp_context *c, const char *msg);

/* a / b and a % b for b other than 0 and -1: C's, unless the runtime has no signed division (BPF
 * before cpu v4: runtime/bpf/arith.h gives its own) */
#ifndef STP_SDIV
#define STP_SDIV(a, b) ((a) / (b))
#define STP_SMOD(a, b) ((a) % (b))
#endif

static inline int64_t stp_div(struct stp_context *c, int64_t a, int64_t b)
{
	if (unlikely(b == 0)) {
		stp_error(c, "division by 0");
		return 0;
	}
	if (unlikely(b == -1))
		return (int64_t)(0 - (uint64_t)a);   /* INT64_MIN / -1 wraps */
	return STP_SDIV(a, b);
}

static inline int64_t stp_mod(struct stp_context *c, int64_t a, int64_t b)
{
	if (unlikely(b == 0)) {
		stp_error(c, "division by 0");
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	return STP_SMOD(a, b);
}

static inline int64_t stp_shl(int64_t a, int64_t n)
{
	if (n < 0 || n > 63)
		return 0;
	return (int64_t)((uint64_t)a << n);
}

static inline int64_t stp_shr(int64_t a, int64_t n)
{
	if (n < 0 || n > 63)
		return a < 0 ? -1 : 0;
	return a >> n;
}

/* >>> : logical shift, zeros come in from the left */
static inline int64_t stp_ushr(int64_t a, int64_t n)
{
	if (n < 0 || n > 63)
		return 0;
	return (int64_t)((uint64_t)a >> n);
}

#endif
