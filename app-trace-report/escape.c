/* escape.c - app-trace-report's text-safe strings: a name from a trace (execname, path, host, file name) with every byte a terminal could act on written as \xNN.
 * Used by print.c, trace.c, plot.c and main.c for each such string they print as text (json.c escapes its own). */
#include "report.h"

#include <string.h>

const char *atr_esc(char *buf, size_t size, const char *s, enum atr_esc_mode mode)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;
	size_t n = 0;
	char e[4];
	size_t k;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && !(*p == '\\' && mode == ATR_ESC_NAME)) {
			e[0] = (char)*p;
			k = 1;
		} else if (*p == '\\') {
			e[0] = e[1] = '\\';
			k = 2;
		} else {
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[*p >> 4];
			e[3] = hex[*p & 0xf];
			k = 4;
		}
		/* room for this and the NUL, and for "..." should a later byte not fit */
		if (n + k + (p[1] ? 4 : 1) > size) {
			snprintf(buf + n, size - n, "%s", size - n >= 4 ? "..." : "");
			return buf;
		}
		memcpy(buf + n, e, k);
		n += k;
	}
	buf[n] = '\0';
	return buf;
}
