/* strings.h - bounded string operations on MAXSTRINGLEN buffers (overlap
 * safe, always NUL-terminated) and process-context queries for builtins. */
#ifndef STP_STRINGS_H
#define STP_STRINGS_H

/* a byte's index in a string already checked against its length (the BPF runtime's bounds it for its checker) */
#define STP_STRING_INDEX(i) (i)

/* ---- strings a word at a time ----
 * A string's bytes before its NUL are readable, so the page holding them is: an 8-byte word of a
 * string that lies within one page can be loaded whole, whatever follows the NUL in it. */

/* Whether the 8 bytes of s at i lie in one page. */
static __always_inline bool stp_str_word_ok(const char *s, unsigned int i)
{
	return offset_in_page(s + i) <= PAGE_SIZE - 8;
}

/* The flags of w's zero bytes (w little-endian): (w - 0x01..) & ~w & 0x80.. flags the first one
 * exactly (a borrow only ever flags bytes above it); 0 when w has none. */
static __always_inline u64 stp_word_zero_bytes(u64 w)
{
	return (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;
}

/* The bytes of w before the first zero byte flagged in z (nonzero), the others cleared. */
static __always_inline u64 stp_word_before_zero(u64 w, u64 z)
{
	return w & (((z - 1) & ~z) >> 7);
}

/* One pass, a word at a time while the source's word lies in one page and 8 bytes fit (the word
 * holding the NUL is stored with the bytes after it cleared), then byte by byte: no strnlen and
 * memmove calls for the short strings a probe copies (a call's string argument, a name).  A
 * source that starts before dst and reaches it is moved as a whole instead. */
static inline char *stp_strlcpy_any(char *dst, const char *src, size_t size)
{
	size_t n = 0;
	u64 w, z;
	char ch;

	if (unlikely(dst > src && dst < src + size)) {
		n = strnlen(src, size - 1);
		memmove(dst, src, n);
		dst[n] = 0;
		return dst;
	}
	while (n + 8 < size && stp_str_word_ok(src, n)) {
		w = get_unaligned((const u64 *)(src + n));
		z = stp_word_zero_bytes(le64_to_cpu(w));
		if (z) {
			put_unaligned(cpu_to_le64(stp_word_before_zero(le64_to_cpu(w), z)), (u64 *)(dst + n));
			return dst;
		}
		put_unaligned(w, (u64 *)(dst + n));
		n += 8;
	}
	while (n < size - 1 && (ch = src[n]) != 0)
		dst[n++] = ch;
	dst[n] = 0;
	return dst;
}

/* A string literal that fits (its length a constant where inlined) is its bytes and NUL, copied
 * by a few stores; anything else as stp_strlcpy_any. */
static __always_inline char *stp_strlcpy(char *dst, const char *src, size_t size)
{
	if (__builtin_constant_p(__builtin_strlen(src)) && __builtin_strlen(src) < size) {
		memcpy(dst, src, __builtin_strlen(src) + 1);
		return dst;
	}
	return stp_strlcpy_any(dst, src, size);
}

static inline char *stp_strlcat(char *dst, const char *src, size_t size)
{
	size_t d = strnlen(dst, size - 1);
	size_t n = strnlen(src, size - 1 - d);

	memmove(dst + d, src, n);
	dst[d + n] = 0;
	return dst;
}

static inline char *stp_concat(char *dst, const char *a, const char *b)
{
	stp_strlcpy(dst, a, MAXSTRINGLEN);
	return stp_strlcat(dst, b, MAXSTRINGLEN);
}

static inline char *stp_execname(char *buf)
{
	/* comm is NUL-terminated within TASK_COMM_LEN bytes; a concurrent rename
	 * gives old, new or a mix of both, always terminated below */
	BUILD_BUG_ON(TASK_COMM_LEN > MAXSTRINGLEN);
	memcpy(buf, current->comm, TASK_COMM_LEN);
	buf[TASK_COMM_LEN - 1] = 0;
	return buf;
}

static inline int64_t stp_ppid(void)
{
	int64_t pid;

	rcu_read_lock();
	pid = task_tgid_nr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	return pid;
}

#endif
