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

/* src after dst's string, cut at size (MAXSTRINGLEN) - 1: built in the context's scratch, whose second half
 * holds what a bounded copy writes past the first */
static __always_inline char *stp_strlcat(char *dst, const char *src, unsigned int size)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	long n;

	(void)size;
	if (!c)
		return dst;
	n = bpf_probe_read_kernel_str(c->cat, MAXSTRINGLEN, dst);
	n = n > 0 ? STP_BOUND(n - 1, MAXSTRINGLEN - 1) : 0;
	if (bpf_probe_read_kernel_str(c->cat + n, MAXSTRINGLEN, src) < 0)
		c->cat[n] = 0;
	c->cat[MAXSTRINGLEN - 1] = 0;
	if (bpf_probe_read_kernel_str(dst, MAXSTRINGLEN, c->cat) < 0)
		dst[0] = 0;
	return dst;
}

static __always_inline char *stp_concat(char *dst, const char *a, const char *b)
{
	stp_strlcpy(dst, a, MAXSTRINGLEN);
	return stp_strlcat(dst, b, MAXSTRINGLEN);
}

/* a string's length (strlen()): what a bounded copy into the context's scratch counts */
static __always_inline int64_t stp_strlen(const char *s)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	long n;

	if (!c)
		return 0;
	n = bpf_probe_read_kernel_str(c->cat, MAXSTRINGLEN, s);
	return n > 0 ? n - 1 : 0;
}
#define strlen(s) stp_strlen(s)

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
/* the same within n bytes (a constant): string keys of an array's map (translator/bpfprog/loops.c) */
static __always_inline int stp_strncmp(const char *a, const char *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
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
