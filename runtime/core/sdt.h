/* sdt.h - the reads of SDT markers' arguments ($argN, $$parms of process("PATH").mark probes) from the
 * user registers and memory, fault-safe.  Included by runtime.h; used by the code providers/sdt.c generates. */
#ifndef STP_CORE_SDT_H
#define STP_CORE_SDT_H

/* A register of the probed task's user registers: offsetof(struct pt_regs, member). */
static __maybe_unused u64 stp_sdt_reg(struct stp_context *c, int off)
{
	if (!c->regs || off < 0 || off + sizeof(u64) > sizeof(struct pt_regs))
		return 0;
	return *(u64 *)((char *)c->regs + off);
}

/* Operand value of a marker's argument as the note describes it: kind 0 the constant disp, 1 a
 * register (shifted right by shift: %ah), 2 the memory at reg + disp + idx * scale, read
 * fault-safe (a fault is this hit's error); size bytes, signed when negative. -1: an operand of a
 * form this runtime does not decode. */
static __maybe_unused int64_t stp_sdt_arg(struct stp_context *c, int kind, int size, int reg, int shift,
					  int64_t disp, int idx, int scale)
{
	u64 v;
	int n = size < 0 ? -size : size;

	switch (kind) {
	case 0:
		v = (u64)disp;
		break;
	case 1:
		v = stp_sdt_reg(c, reg) >> shift;
		break;
	case 2: {
		unsigned long addr = (unsigned long)(stp_sdt_reg(c, reg) + disp);
		if (idx >= 0)
			addr += stp_sdt_reg(c, idx) * scale;
		v = 0;
		if (n != 1 && n != 2 && n != 4 && n != 8)
			n = 8;
		if (stp_copy_nofault(&v, addr, n, true)) {
			stp_deref_fault(c, "user read fault", addr);
			return 0;
		}
		break;
	}
	default:
		if (!c->last_error)
			stp_error(c, "SDT marker argument of a form not supported");
		return 0;
	}
	switch (size) {
	case 1: return (u8)v;
	case -1: return (s8)v;
	case 2: return (u16)v;
	case -2: return (s16)v;
	case 4: return (u32)v;
	case -4: return (s32)v;
	default: return (int64_t)v;
	}
}

/* $$parms of a marker: "arg1=0x.. arg2=0x..", from its n values (vals[1..n]). */
struct stp_sdt_parms_buf { char s[MAXSTRINGLEN]; };
static DEFINE_PER_CPU(struct stp_sdt_parms_buf, stp_sdt_parms_buf);

static __maybe_unused const char *stp_sdt_parms(struct stp_context *c, int n, const int64_t *vals)
{
	char *b = this_cpu_ptr(&stp_sdt_parms_buf)->s;
	int i, len = 0;

	(void)c;
	b[0] = 0;
	for (i = 1; i <= n && len < MAXSTRINGLEN; i++)
		len += scnprintf(b + len, MAXSTRINGLEN - len, "%sarg%d=0x%llx", i > 1 ? " " : "", i,
				 (unsigned long long)vals[i]);
	return b;
}

#endif
