/* embedded_compat.h - SystemTap's memory macros for the %{ %} code of scripts (-g) and tapsets: kread,
 * kwrite, kderef, kderef_buffer, uread, uderef and CATCH_DEREF_FAULT, on the runtime's fault-safe copies. */
#ifndef STP_EMBEDDED_COMPAT_H
#define STP_EMBEDDED_COMPAT_H

/* As in SystemTap, a fault in one of these makes "kernel read fault at 0x..." (or the like) the hit's
 * error and jumps to the label that CATCH_DEREF_FAULT() places, which the function must have; CONTEXT is
 * the embedded function's context (translator/kmodule/embedded.c defines it around each body). */
#define STP_COMPAT_FAULT(what, addr)							\
	do {										\
		stp_deref_fault(CONTEXT, what, (unsigned long)(addr));			\
		goto deref_fault;							\
	} while (0)

#define CATCH_DEREF_FAULT()								\
	if (0) {									\
	deref_fault: __attribute__((unused));						\
	}

/* *ptr of kernel memory, of ptr's type (a union, so that a const type can be filled byte-wise). */
#define kread(ptr)									\
	({										\
		union { __typeof__(*(ptr)) v; unsigned char b[sizeof(*(ptr))]; } __stp_u;	\
		if (copy_from_kernel_nofault(__stp_u.b, (const void *)(ptr), sizeof(*(ptr))))	\
			STP_COMPAT_FAULT("kernel read fault", ptr);			\
		__stp_u.v;								\
	})

/* *ptr of the current process's memory. */
#define uread(ptr)									\
	({										\
		union { __typeof__(*(ptr)) v; unsigned char b[sizeof(*(ptr))]; } __stp_u;	\
		if (copy_from_user_nofault(__stp_u.b, (const void __user *)(ptr), sizeof(*(ptr))))	\
			STP_COMPAT_FAULT("user read fault", ptr);			\
		__stp_u.v;								\
	})

/* *ptr = value in kernel memory. */
#define kwrite(ptr, value)								\
	do {										\
		__typeof__(*(ptr)) __stp_w = (value);					\
		if (copy_to_kernel_nofault((void *)(ptr), &__stp_w, sizeof(__stp_w)))	\
			STP_COMPAT_FAULT("kernel write fault", ptr);			\
	} while (0)

/* The size-byte (1, 2, 4, 8) value at addr, zero-extended; 0 and -EFAULT on a fault or another size. */
static __maybe_unused long stp_compat_deref(int64_t *out, unsigned long addr, int64_t size, bool user)
{
	u8 b1;
	u16 b2;
	u32 b4;
	u64 b8;

	switch (size) {
	case 1: if (stp_copy_nofault(&b1, addr, 1, user)) return -EFAULT; *out = b1; return 0;
	case 2: if (stp_copy_nofault(&b2, addr, 2, user)) return -EFAULT; *out = b2; return 0;
	case 4: if (stp_copy_nofault(&b4, addr, 4, user)) return -EFAULT; *out = b4; return 0;
	case 8: if (stp_copy_nofault(&b8, addr, 8, user)) return -EFAULT; *out = (int64_t)b8; return 0;
	}
	return -EFAULT;
}

#define kderef(size, addr)								\
	({										\
		int64_t __stp_d = 0;							\
		if (stp_compat_deref(&__stp_d, (unsigned long)(addr), (size), false))	\
			STP_COMPAT_FAULT("kernel read fault", addr);			\
		__stp_d;								\
	})

#define uderef(size, addr)								\
	({										\
		int64_t __stp_d = 0;							\
		if (stp_compat_deref(&__stp_d, (unsigned long)(addr), (size), true))	\
			STP_COMPAT_FAULT("user read fault", addr);			\
		__stp_d;								\
	})

/* size bytes of kernel memory at addr into dst, or, with dst NULL, only checked readable. */
static __maybe_unused long stp_compat_kbuffer(void *dst, unsigned long addr, size_t size)
{
	unsigned char chunk[32];

	if (dst)
		return stp_copy_nofault(dst, addr, size, false);
	while (size) {
		size_t n = size < sizeof(chunk) ? size : sizeof(chunk);
		if (stp_copy_nofault(chunk, addr, n, false))
			return -EFAULT;
		addr += n;
		size -= n;
	}
	return 0;
}

#define kderef_buffer(dst, addr, size)							\
	do {										\
		if (stp_compat_kbuffer((dst), (unsigned long)(addr), (size)))		\
			STP_COMPAT_FAULT("kernel read fault", addr);			\
	} while (0)

#endif
