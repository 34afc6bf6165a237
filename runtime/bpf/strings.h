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

#endif
