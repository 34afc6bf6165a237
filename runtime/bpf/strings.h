/* strings.h - the BPF runtime's string values (core/strings.h's names): MAXSTRINGLEN buffers in the context's
 * frames or the globals, copied with the kernel's bounded string read. */
#ifndef STP_BPF_STRINGS_H
#define STP_BPF_STRINGS_H

/* src (NUL-ended, or cut at size - 1) into dst of size bytes (a constant): dst always ends in a NUL */
static __always_inline void stp_strlcpy(char *dst, const char *src, unsigned int size)
{
	if (bpf_probe_read_kernel_str(dst, size, src) < 0)
		dst[0] = 0;
}

/* a string comparison (the lowering's strcmp for ==, <, ...): at most MAXSTRINGLEN bytes */
static __always_inline int stp_strcmp(const char *a, const char *b)
{
	for (int i = 0; i < MAXSTRINGLEN; i++) {
		unsigned char x = a[i], y = b[i];

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
	return 0;
}
#define strcmp(a, b) stp_strcmp((a), (b))

#endif
