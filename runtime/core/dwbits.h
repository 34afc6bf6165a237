/* dwbits.h - a target variable's bytes and bits out of a register or a read, the same for every runtime:
 * included by core/dwarf_vars.h (the module's) and bpf/targetvars.h. */
#ifndef STP_DWBITS_H
#define STP_DWBITS_H

/* size bytes of a value held in a register or computed, starting off bytes in. */
static __always_inline int64_t stp_dw_extract(u64 v, int off, int size, bool is_signed)
{
	if (off > 0)
		v = off >= 8 ? 0 : v >> (off * 8);
	if (size >= 8)
		return (int64_t)v;
	v &= (1ULL << (size * 8)) - 1;
	if (is_signed && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	return (int64_t)v;
}

/* A bit field: bits bits from bit `shift` of the bytes read. */
static __always_inline int64_t stp_dw_bits(u64 v, int shift, int bits, bool is_signed)
{
	v >>= shift;
	if (bits < 64) {
		v &= (1ULL << bits) - 1;
		if (is_signed && (v >> (bits - 1)) & 1)
			v |= ~0ULL << bits;
	}
	return (int64_t)v;
}

/* v with bits bits from `shift` replaced by the low bits of x (guru-mode writes to bit fields). */
static __always_inline u64 stp_dw_set_bits(u64 v, int shift, int bits, u64 x)
{
	u64 mask = (bits < 64 ? (1ULL << bits) - 1 : ~0ULL) << shift;

	return (v & ~mask) | ((x << shift) & mask);
}

#endif
