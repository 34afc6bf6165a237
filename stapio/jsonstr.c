/* jsonstr.c - a byte string as a JSON string literal (valid JSON for any bytes), for the JSON form of self-describing files.
 * Used by stapio/header.c (the header object) and stapio/outfile.c (the end and "not written" objects). */
#include <string.h>

#include "stapio.h"

/* The length of the well-formed UTF-8 sequence (2 to 4 bytes; no overlong forms, surrogates or
 * code points beyond U+10FFFF) s starts with, 0 if none; a NUL ends any sequence. */
static int utf8_len(const unsigned char *s)
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

size_t json_quote(char *dst, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;
	char esc[8];
	int len, n;

	if (size < 3)
		return 0;
	dst[used++] = '"';
	while (*p) {
		n = 1;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			len = 2;
		} else if (*p >= 0x20 && *p < 0x7f) {
			esc[0] = (char)*p;
			len = 1;
		} else if (*p >= 0x80 && (n = utf8_len(p)) > 0) {
			memcpy(esc, p, (size_t)n);
			len = n;
		} else {
			n = 1;
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 0xf];
			len = 6;
		}
		if (used + (size_t)len + 2 > size)
			break;		/* cut between characters: still a valid string */
		memcpy(dst + used, esc, (size_t)len);
		used += (size_t)len;
		p += n;
	}
	dst[used++] = '"';
	dst[used] = '\0';
	return used;
}
