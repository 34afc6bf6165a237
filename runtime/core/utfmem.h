/* utfmem.h - fault-safe reads of UTF-16/UTF-32 strings (converted to UTF-8) and of quoted byte
 * buffers from kernel or user memory.  Used by tapset/linux/conversions-utf.stp. */
#ifndef STP_UTFMEM_H
#define STP_UTFMEM_H

/* Why a UTF-16/32 read failed: the address of the unit that could not be read or decoded. */
struct stp_utf_fail {
	unsigned long addr;
	bool fault;             /* true: a read fault; false: an invalid code unit */
};

/* Code point cp as UTF-8 in b; returns its length (1 to 4). */
static __maybe_unused size_t stp_utf8_encode(char *b, u32 cp)
{
	if (cp < 0x80) {
		b[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = 0xc0 | (cp >> 6); b[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = 0xe0 | (cp >> 12); b[1] = 0x80 | ((cp >> 6) & 0x3f); b[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	b[0] = 0xf0 | (cp >> 18); b[1] = 0x80 | ((cp >> 12) & 0x3f);
	b[2] = 0x80 | ((cp >> 6) & 0x3f); b[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* Reads one code unit of width bytes (2 or 4) at addr; false on a fault. */
static __maybe_unused bool stp_utf_unit(u32 *unit, unsigned long addr, int width, bool user)
{
	u16 h;

	if (width == 4)
		return !stp_copy_nofault(unit, addr, 4, user);
	if (stp_copy_nofault(&h, addr, 2, user))
		return false;
	*unit = h;
	return true;
}

/* The code point at *p (advanced past it) of a UTF-16 (width 2) or UTF-32 string; false with
 * fail set when it cannot be read or is no valid code point (a lone surrogate, above U+10FFFF). */
static __maybe_unused bool stp_utf_next(u32 *cp, unsigned long *p, int width, bool user,
					struct stp_utf_fail *fail)
{
	u32 u, lo;

	fail->addr = *p;
	fail->fault = true;
	if (!stp_utf_unit(&u, *p, width, user))
		return false;
	*p += width;
	fail->fault = false;
	if (width == 4) {
		*cp = u;
		return u <= 0x10ffff && (u < 0xd800 || u > 0xdfff);
	}
	if (u < 0xd800 || u > 0xdfff) {
		*cp = u;
		return true;
	}
	if (u > 0xdbff)
		return false;           /* a low surrogate first */
	fail->addr = *p;
	fail->fault = true;
	if (!stp_utf_unit(&lo, *p, 2, user))
		return false;
	fail->fault = false;
	if (lo < 0xdc00 || lo > 0xdfff)
		return false;
	*p += 2;
	*cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
	return true;
}

/* The UTF-16 (width 2) or UTF-32 (width 4) string at addr as UTF-8 into dst (MAXSTRINGLEN
 * bytes, terminated): up to its NUL or as many whole characters as fit in MAXSTRINGLEN - 1
 * bytes.  false with fail set (dst empty) when a unit cannot be read or decoded. */
static __maybe_unused bool stp_utf_decode(char *dst, unsigned long addr, int width, bool user,
					  struct stp_utf_fail *fail)
{
	unsigned long p = addr;
	size_t len = 0, n;
	char b[4];
	int i;
	u32 cp;

	for (i = 0; i < MAXSTRINGLEN; i++) {
		if (!stp_utf_next(&cp, &p, width, user, fail)) {
			dst[0] = 0;
			return false;
		}
		if (cp == 0)
			break;
		n = stp_utf8_encode(b, cp);
		if (len + n > MAXSTRINGLEN - 1)
			break;
		memcpy(dst + len, b, n);
		len += n;
	}
	dst[len] = 0;
	return true;
}

/* kernel_string_utf16() and the like: the error "kernel string copy fault at 0x..." (or
 * "user ...") or "invalid UTF-16 string at 0x..." (UTF-32) unless err_msg is given (not NULL),
 * which is then the value. */
static __maybe_unused void stp_utf_read(struct stp_context *c, char *dst, unsigned long addr, int width,
					bool user, const char *err_msg)
{
	struct stp_utf_fail fail;

	if (stp_utf_decode(dst, addr, width, user, &fail))
		return;
	if (err_msg)
		stp_strlcpy(dst, err_msg, MAXSTRINGLEN);
	else if (fail.fault)
		stp_deref_fault(c, user ? "user string copy fault" : "kernel string copy fault", fail.addr);
	else
		stp_deref_fault(c, width == 2 ? "invalid UTF-16 string" : "invalid UTF-32 string", fail.addr);
}

/* kernel_buffer_quoted() and the like: exactly inlen bytes at addr (NULs included, at most
 * MAXSTRINGLEN - 1), escaped in double quotes in at most outlen characters (`"..."...` when
 * cut).  false (dst untouched) when a byte cannot be read; *bad is then its address. */
static __maybe_unused bool stp_buffer_quote(char *dst, unsigned long addr, int64_t inlen, int64_t outlen,
					    bool user, unsigned long *bad)
{
	struct stp_quoter q;
	char buf[STP_QUOTE_CHUNK];
	size_t left = clamp_t(int64_t, inlen, 0, MAXSTRINGLEN - 1);
	size_t size = clamp_t(int64_t, outlen, 7, MAXSTRINGLEN - 1) + 1;
	unsigned long p = addr;
	size_t chunk;

	/* read it all first: a fault anywhere gives the address, not a partial string */
	for (p = addr; p < addr + left; p += chunk) {
		chunk = min_t(size_t, addr + left - p, sizeof(buf));
		if (stp_copy_nofault(buf, p, chunk, user)) {
			*bad = p;
			return false;
		}
	}
	stp_quote_begin(&q, dst, size);
	for (p = addr; p < addr + left; p += chunk) {
		chunk = min_t(size_t, addr + left - p, sizeof(buf));
		if (stp_copy_nofault(buf, p, chunk, user) || !stp_quote_add(&q, buf, chunk))
			break;
	}
	stp_quote_end(&q, inlen > (int64_t)left);
	return true;
}

#endif
