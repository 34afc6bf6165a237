/* arith.h - script arithmetic on the BPF runtime: core/arith.h's (division by zero a script error, overflow
 * wrapping, shifts of any count), its signed division through unsigned (runtime.h: BPF before cpu v4 has none). */
#ifndef STP_BPF_ARITH_H
#define STP_BPF_ARITH_H

/* C's truncating division (runtime.h's div64_s64) and remainder (the remainder takes the dividend's sign) */
#define stp_sdiv(a, b) div64_s64((a), (b))

static __always_inline int64_t stp_smod(int64_t a, int64_t b)
{
	u64 r = stp_abs64(a) % stp_abs64(b);

	return a < 0 ? (int64_t)(0 - r) : (int64_t)r;
}

#define STP_SDIV(a, b) stp_sdiv((a), (b))
#define STP_SMOD(a, b) stp_smod((a), (b))
#include "core/arith.h"

#endif
