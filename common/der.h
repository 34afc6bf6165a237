/* der.h - one DER element read with every length checked against its container: the module signature's
 * PKCS#7 (staprun/secureboot.c) and the signing certificate (translator/compile/sign.c) both step with it. */
#ifndef COMMON_DER_H
#define COMMON_DER_H

#include <stddef.h>

/* The element at p (end: its container's end): its tag, and its content [*c, *c + *n); -1 when malformed
 * (no room for the header, a length of more than 4 bytes, or content past end). */
static inline int der_next(const unsigned char *p, const unsigned char *end, int *tag, const unsigned char **c,
			   size_t *n)
{
	size_t len = 0, k, i;

	if (end - p < 2)
		return -1;
	*tag = p[0];
	if (p[1] & 0x80) {
		k = p[1] & 0x7f;
		if (k == 0 || k > 4 || (size_t)(end - p) < 2 + k)
			return -1;
		for (i = 0; i < k; i++)
			len = len << 8 | p[2 + i];
		p += 2 + k;
	} else {
		len = p[1];
		p += 2;
	}
	if (len > (size_t)(end - p))
		return -1;
	*c = p;
	*n = len;
	return 0;
}

#endif
