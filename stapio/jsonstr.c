/* jsonstr.c - a byte string as a JSON string literal (valid JSON for any bytes), for the JSON form of self-describing files.
 * Used by stapio/header.c (the header object) and stapio/outfile.c (the end and "not written" objects). */
#include <string.h>

#include "stapio.h"
#include "../runtime/core/utf8.h"

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
		} else if (*p >= 0x80 && (n = stp_utf8_len(p)) > 0) {
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
