/* strings.h - bounded string operations on MAXSTRINGLEN buffers (overlap
 * safe, always NUL-terminated) and process-context queries for builtins. */
#ifndef STP_STRINGS_H
#define STP_STRINGS_H

/* One pass, byte by byte: the strings a probe copies are short (a call's string argument, a
 * name), where strnlen's and memmove's calls cost more than the copy.  A source that starts
 * before dst and reaches it is moved as a whole instead. */
static inline char *stp_strlcpy_any(char *dst, const char *src, size_t size)
{
	size_t n = 0;
	char ch;

	if (unlikely(dst > src && dst < src + size)) {
		n = strnlen(src, size - 1);
		memmove(dst, src, n);
	} else {
		while (n < size - 1 && (ch = src[n]) != 0)
			dst[n++] = ch;
	}
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
