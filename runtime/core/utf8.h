/* utf8.h - the length of a well-formed UTF-8 sequence, in plain C for the kernel and user space alike.
 * Used by runtime/core/strfuncs.h (json_string) and stapio/jsonstr.c (the JSON headers). */
#ifndef STP_UTF8_H
#define STP_UTF8_H

/* The length of the well-formed UTF-8 sequence of 2 to 4 bytes s starts with (RFC 3629: no
 * overlong forms, no surrogates, nothing beyond U+10FFFF), 0 if it does not start one.  A NUL
 * fails the continuation test: never reads past the string. */
static inline int stp_utf8_len(const unsigned char *s)
{
	unsigned char b = s[0], lo = 0x80, hi = 0xbf;
	int n, i;

	if (b >= 0xc2 && b <= 0xdf)
		n = 2;
	else if (b >= 0xe0 && b <= 0xef)
		n = 3;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 4;
	else
		return 0;
	if (b == 0xe0)
		lo = 0xa0;
	else if (b == 0xed)
		hi = 0x9f;
	else if (b == 0xf0)
		lo = 0x90;
	else if (b == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

#endif
