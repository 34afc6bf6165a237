/* jsonstr.c - a byte string as a JSON string literal (valid JSON for any bytes), for the JSON form of self-describing files.
 * Used by stapio/header.c (the header object) and stapio/outfile.c (the end and "not written" objects). */
#include <string.h>

#include "stapio.h"
#include "../runtime/core/utf8.h"

size_t json_quote(char *dst, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;
	char esc[8];
	int len, n;

	if (size < 3)
		return 0;
	dst[used++] = '"';
	while (*p) {
		len = stp_json_char(esc, p, &n);
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
