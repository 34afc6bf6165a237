/* unwind.h - one step of a user stack unwind with the call frame information (.eh_frame) of an
 * embedded module (core/umods.h); used by core/ustack.h. Only embedded data is parsed here. */
#ifndef STP_UNWIND_H
#define STP_UNWIND_H

#include "umods.h"

/* DWARF register numbers of x86_64: 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp,
 * 8-15 r8-r15, 16 the return address column. */
#define STP_UW_NREGS 17
#define STP_UW_SP 7
#define STP_UW_BP 6
#define STP_UW_RA 16
#define STP_UW_STATES 4         /* DW_CFA_remember_state depth */

struct stp_uw_regs {
	unsigned long r[STP_UW_NREGS];
	unsigned long pc;
};

enum { STP_UW_SAME, STP_UW_UNDEF, STP_UW_AT, STP_UW_VAL, STP_UW_REG };

struct stp_uw_rule {
	u8 how;
	long off;               /* STP_UW_AT/VAL: from the CFA; STP_UW_REG: the register */
};

struct stp_uw_row {
	int cfa_reg;            /* -1: the CFA is an expression (not supported) */
	long cfa_off;
	struct stp_uw_rule r[STP_UW_NREGS];
};

/* Bounded reader over embedded bytes; base_addr is the ELF address of base[0]. */
struct stp_uw_rd {
	const u8 *base, *p, *end;
	unsigned long base_addr;
	bool bad;
};

struct stp_uw_cie {
	unsigned long caf;
	long daf;
	unsigned int ra;
	u8 fde_enc;
	bool aug_z;
	const u8 *init, *init_end;
};

/* Per-CPU rows (too large for the kernel stack). */
struct stp_uw_work {
	struct stp_uw_row row, init, stack[STP_UW_STATES];
};
static DEFINE_PER_CPU(struct stp_uw_work, stp_uw_work);

static u64 stp_uw_fixed(struct stp_uw_rd *r, unsigned int n)
{
	u64 v = 0;
	unsigned int i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (u64)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* The bits of a LEB128 number of r, *shift how many its bytes carried and *last its last byte;
 * r->bad (and what was read so far) when the data ends first. */
static inline u64 stp_uw_leb(struct stp_uw_rd *r, unsigned int *shift, u8 *last)
{
	u64 v = 0;

	*shift = 0;
	*last = 0;
	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = true;
			break;
		}
		*last = *r->p++;
		if (*shift < 64)
			v |= (u64)(*last & 0x7f) << *shift;
		*shift += 7;
		if (!(*last & 0x80))
			break;
	}
	return v;
}

static u64 stp_uw_uleb(struct stp_uw_rd *r)
{
	unsigned int shift;
	u8 b;

	return stp_uw_leb(r, &shift, &b);
}

static s64 stp_uw_sleb(struct stp_uw_rd *r)
{
	unsigned int shift;
	u8 b;
	u64 v = stp_uw_leb(r, &shift, &b);

	if (r->bad)
		return 0;
	if (shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return (s64)v;
}

/* A DW_EH_PE_* encoded pointer: absolute or pc-relative (datarel: from datarel_base); indirect
 * ones are refused. */
static unsigned long stp_uw_ptr(struct stp_uw_rd *r, u8 enc, unsigned long datarel_base)
{
	unsigned long at = r->base_addr + (r->p - r->base), v;

	if (enc == 0xff)
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = stp_uw_fixed(r, 8); break;
	case 0x01: v = stp_uw_uleb(r); break;
	case 0x02: v = stp_uw_fixed(r, 2); break;
	case 0x03: v = stp_uw_fixed(r, 4); break;
	case 0x04: v = stp_uw_fixed(r, 8); break;
	case 0x09: v = stp_uw_sleb(r); break;
	case 0x0a: v = (long)(s16)stp_uw_fixed(r, 2); break;
	case 0x0b: v = (long)(s32)stp_uw_fixed(r, 4); break;
	case 0x0c: v = stp_uw_fixed(r, 8); break;
	default: r->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += at; break;
	case 0x30: v += datarel_base; break;
	default: r->bad = true; break;
	}
	if (enc & 0x80)
		r->bad = true;
	return v;
}

/* r set to read the record (CIE or FDE) at offset off of the module's .eh_frame, r->p past its length
 * and r->end at its end; false when no whole record of at least min_len bytes (32-bit format) is there. */
static inline bool stp_uw_record(const struct stp_umod *m, unsigned long off, u32 min_len, struct stp_uw_rd *r)
{
	u32 len;

	*r = (struct stp_uw_rd){ .base = m->eh, .base_addr = m->eh_addr, .end = m->eh + m->eh_len };
	if (off + 8 > m->eh_len)
		return false;
	r->p = m->eh + off;
	len = stp_uw_fixed(r, 4);
	if (len == 0xffffffff || len < min_len || len > m->eh_len - off - 4)
		return false;
	r->end = r->p + len;
	return true;
}

/* The CIE at offset off of the module's .eh_frame. */
static bool stp_uw_cie_parse(const struct stp_umod *m, unsigned long off, struct stp_uw_cie *cie)
{
	struct stp_uw_rd r;
	const char *aug;
	u8 ver;

	if (!stp_uw_record(m, off, 4, &r))
		return false;
	if (stp_uw_fixed(&r, 4) != 0)           /* the CIE id */
		return false;
	ver = stp_uw_fixed(&r, 1);
	aug = (const char *)r.p;
	while (r.p < r.end && *r.p)
		r.p++;
	if (r.p >= r.end || (ver != 1 && ver != 3))
		return false;
	r.p++;
	memset(cie, 0, sizeof(*cie));
	cie->caf = stp_uw_uleb(&r);
	cie->daf = stp_uw_sleb(&r);
	cie->ra = ver == 1 ? stp_uw_fixed(&r, 1) : stp_uw_uleb(&r);
	if (aug[0] == 'z') {
		u64 alen = stp_uw_uleb(&r);
		const u8 *aend = r.p + min_t(u64, alen, r.end - r.p);

		cie->aug_z = true;
		for (aug++; *aug && !r.bad; aug++) {
			if (*aug == 'R') {
				cie->fde_enc = stp_uw_fixed(&r, 1);
			} else if (*aug == 'L') {
				stp_uw_fixed(&r, 1);
			} else if (*aug == 'P') {
				u8 penc = stp_uw_fixed(&r, 1);

				stp_uw_ptr(&r, penc & 0x7f, 0);
			} else if (*aug != 'S') {
				break;
			}
		}
		r.p = aend;
	} else if (aug[0]) {
		return false;           /* an augmentation without 'z' cannot be skipped */
	}
	cie->init = r.p;
	cie->init_end = r.end;
	return !r.bad && cie->ra < STP_UW_NREGS;
}

/* The FDE covering ELF address pc: its instructions [*ins, *ins_end) and its start *start. */
static bool stp_uw_fde_at(const struct stp_umod *m, unsigned long off, unsigned long pc, struct stp_uw_cie *cie,
			  const u8 **ins, const u8 **ins_end, unsigned long *start)
{
	struct stp_uw_rd r;
	unsigned long range;
	u32 id;

	if (!stp_uw_record(m, off, 8, &r))
		return false;
	id = stp_uw_fixed(&r, 4);
	if (!id || id > off + 4 || !stp_uw_cie_parse(m, off + 4 - id, cie))
		return false;
	*start = stp_uw_ptr(&r, cie->fde_enc, 0);
	range = stp_uw_ptr(&r, cie->fde_enc & 0x0f, 0);
	if (r.bad || pc < *start || pc - *start >= range)
		return false;
	if (cie->aug_z) {
		u64 alen = stp_uw_uleb(&r);

		if (r.bad || alen > (u64)(r.end - r.p))
			return false;
		r.p += alen;
	}
	*ins = r.p;
	*ins_end = r.end;
	return true;
}

/* The offset in .eh_frame of the FDE for pc: binary search of .eh_frame_hdr's sorted table when it
 * has GCC's usual encoding (datarel sdata4), else a scan of every entry. */
static bool stp_uw_fde_find(const struct stp_umod *m, unsigned long pc, struct stp_uw_cie *cie, const u8 **ins,
			    const u8 **ins_end, unsigned long *start)
{
	unsigned long off;

	if (m->hdr && m->hdr_len >= 12 && m->hdr[0] == 1 && m->hdr[3] == 0x3b) {
		struct stp_uw_rd r = { .base = m->hdr, .p = m->hdr + 4, .end = m->hdr + m->hdr_len,
				       .base_addr = m->hdr_addr };
		unsigned long n, lo = 0, hi;
		const u8 *table;

		stp_uw_ptr(&r, m->hdr[1], m->hdr_addr);
		n = stp_uw_ptr(&r, m->hdr[2], m->hdr_addr);
		table = r.p;
		if (r.bad || n > (unsigned long)(r.end - table) / 8)
			return false;
		hi = n;
		while (lo < hi) {       /* the last entry starting at or below pc */
			unsigned long mid = lo + (hi - lo) / 2;
			long at = (s32)get_unaligned_le32(table + mid * 8);

			if (m->hdr_addr + at <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			return false;
		off = m->hdr_addr + (s32)get_unaligned_le32(table + (lo - 1) * 8 + 4) - m->eh_addr;
		return off < m->eh_len && stp_uw_fde_at(m, off, pc, cie, ins, ins_end, start);
	}
	for (off = 0; off + 8 <= m->eh_len;) {
		u32 len = get_unaligned_le32(m->eh + off);

		if (!len || len == 0xffffffff || len > m->eh_len - off - 4)
			return false;
		if (get_unaligned_le32(m->eh + off + 4) && stp_uw_fde_at(m, off, pc, cie, ins, ins_end, start))
			return true;
		off += 4 + len;
	}
	return false;
}

/* Runs CFA instructions [p, end) from location loc until the row for pc; false on an instruction
 * it does not know. */
static bool stp_uw_exec(const struct stp_umod *m, const struct stp_uw_cie *cie, const u8 *p, const u8 *end,
			unsigned long loc, unsigned long pc, struct stp_uw_work *w, bool is_cie)
{
	struct stp_uw_rd r = { .base = m->eh, .base_addr = m->eh_addr, .p = p, .end = end };
	struct stp_uw_row *row = &w->row;
	unsigned int depth = 0;

	while (r.p < r.end && !r.bad) {
		u8 op = stp_uw_fixed(&r, 1), lo = op & 0x3f;
		u64 reg = 0;
		unsigned long delta = 0;

		switch (op >> 6) {
		case 1: delta = lo * cie->caf; goto advance;
		case 2:
			reg = lo;
			if (reg < STP_UW_NREGS)
				row->r[reg] = (struct stp_uw_rule){ STP_UW_AT, (long)stp_uw_uleb(&r) * cie->daf };
			else
				stp_uw_uleb(&r);
			continue;
		case 3:
			if (lo < STP_UW_NREGS && !is_cie)
				row->r[lo] = w->init.r[lo];
			continue;
		}
		switch (op) {
		case 0x00: break;                                                       /* nop */
		case 0x01: loc = stp_uw_ptr(&r, cie->fde_enc, 0); if (loc > pc) return true; break;
		case 0x02: delta = stp_uw_fixed(&r, 1) * cie->caf; goto advance;
		case 0x03: delta = stp_uw_fixed(&r, 2) * cie->caf; goto advance;
		case 0x04: delta = stp_uw_fixed(&r, 4) * cie->caf; goto advance;
		case 0x05: case 0x11: case 0x14: case 0x15: case 0x2f: {                /* offset forms */
			long off;

			reg = stp_uw_uleb(&r);
			off = (op == 0x11 || op == 0x15) ? stp_uw_sleb(&r) * cie->daf : (long)stp_uw_uleb(&r) * cie->daf;
			if (op == 0x2f)
				off = -off;
			if (reg < STP_UW_NREGS)
				row->r[reg] = (struct stp_uw_rule){ op >= 0x14 && op <= 0x15 ? STP_UW_VAL : STP_UW_AT, off };
			break;
		}
		case 0x06: case 0x07: case 0x08:                                        /* restore, undefined, same */
			reg = stp_uw_uleb(&r);
			if (reg < STP_UW_NREGS)
				row->r[reg] = op == 0x06 ? w->init.r[reg] :
					(struct stp_uw_rule){ op == 0x07 ? STP_UW_UNDEF : STP_UW_SAME, 0 };
			break;
		case 0x09:                                                              /* register */
			reg = stp_uw_uleb(&r);
			delta = stp_uw_uleb(&r);
			if (reg < STP_UW_NREGS && delta < STP_UW_NREGS)
				row->r[reg] = (struct stp_uw_rule){ STP_UW_REG, (long)delta };
			break;
		case 0x0a:                                                              /* remember_state */
			if (depth >= STP_UW_STATES)
				return false;
			w->stack[depth++] = *row;
			break;
		case 0x0b:                                                              /* restore_state */
			if (!depth)
				return false;
			*row = w->stack[--depth];
			break;
		case 0x0c: row->cfa_reg = stp_uw_uleb(&r); row->cfa_off = stp_uw_uleb(&r); break;
		case 0x0d: row->cfa_reg = stp_uw_uleb(&r); break;
		case 0x0e: row->cfa_off = stp_uw_uleb(&r); break;
		case 0x12: row->cfa_reg = stp_uw_uleb(&r); row->cfa_off = stp_uw_sleb(&r) * cie->daf; break;
		case 0x13: row->cfa_off = stp_uw_sleb(&r) * cie->daf; break;
		case 0x0f:                                                              /* def_cfa_expression */
			row->cfa_reg = -1;
			delta = stp_uw_uleb(&r);
			r.p += min_t(unsigned long, delta, r.end - r.p);
			break;
		case 0x10: case 0x16:                                                   /* expression rules */
			reg = stp_uw_uleb(&r);
			delta = stp_uw_uleb(&r);
			r.p += min_t(unsigned long, delta, r.end - r.p);
			if (reg < STP_UW_NREGS)
				row->r[reg] = (struct stp_uw_rule){ STP_UW_UNDEF, 0 };
			break;
		case 0x2e: stp_uw_uleb(&r); break;                                      /* GNU_args_size */
		default: return false;
		}
		continue;
advance:
		loc += delta;
		if (loc > pc)
			return true;
	}
	return !r.bad;
}

/*
 * One frame up: regs (the frame of ELF address pc, in module m, at run-time address pc + bias)
 * become its caller's; false when the CFI has no row for pc or a value cannot be read (fault-safe
 * user reads only).  *outermost is set when the return address is undefined (the first frame).
 */
static bool stp_uw_step(const struct stp_umod *m, unsigned long pc, struct stp_uw_regs *regs, bool *outermost)
{
	struct stp_uw_work *w = this_cpu_ptr(&stp_uw_work);
	struct stp_uw_regs old = *regs;
	const u8 *ins, *ins_end;
	struct stp_uw_cie cie;
	unsigned long start, cfa;
	unsigned int i;

	*outermost = false;
	if (!m->eh || !stp_uw_fde_find(m, pc, &cie, &ins, &ins_end, &start))
		return false;
	memset(&w->row, 0, sizeof(w->row));     /* every register: the same value */
	if (!stp_uw_exec(m, &cie, cie.init, cie.init_end, start, ~0UL, w, true))
		return false;
	w->init = w->row;
	if (!stp_uw_exec(m, &cie, ins, ins_end, start, pc, w, false))
		return false;
	if (w->row.cfa_reg < 0 || w->row.cfa_reg >= STP_UW_NREGS)
		return false;
	cfa = old.r[w->row.cfa_reg] + w->row.cfa_off;
	for (i = 0; i < STP_UW_NREGS; i++) {
		const struct stp_uw_rule *ru = &w->row.r[i];
		unsigned long v;

		switch (ru->how) {
		case STP_UW_AT:
			if (copy_from_user_nofault(&v, (const void __user *)(cfa + ru->off), sizeof(v)))
				return false;
			regs->r[i] = v;
			break;
		case STP_UW_VAL: regs->r[i] = cfa + ru->off; break;
		case STP_UW_REG: regs->r[i] = old.r[ru->off]; break;
		case STP_UW_UNDEF:
			if (i == cie.ra)
				*outermost = true;
			break;
		}
	}
	if (*outermost)
		return true;
	regs->pc = cie.ra == STP_UW_RA ? regs->r[STP_UW_RA] : regs->r[cie.ra];
	regs->r[STP_UW_SP] = cfa;
	return true;
}

#endif
