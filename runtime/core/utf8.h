/* utf8.h - the length of a well-formed UTF-8 sequence and a character's JSON form, in plain C for the kernel, BPF
 * and user space alike.  Used by runtime/core/strfuncs.h and runtime/bpf/strings.h (json_string), stapio/jsonstr.c. */
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

/* The JSON form of the character s starts with (s[0] not NUL) into esc (at most 6 bytes): " and \\ escaped with a
 * backslash, printable ASCII as itself, well-formed UTF-8 as itself, any other byte (control, DEL, stray or malformed
 * UTF-8) as \\u00XX of its value.  Its length; *used gets the bytes of s it stands for. */
static inline int stp_json_char(char *esc, const unsigned char *s, int *used)
{
	unsigned char b = s[0];
	int n;

	*used = 1;
	if (b == '"' || b == '\\') {
		esc[0] = '\\';
		esc[1] = (char)b;
		return 2;
	}
	if (b >= 0x20 && b < 0x7f) {
		esc[0] = (char)b;
		return 1;
	}
	if (b >= 0x80 && (n = stp_utf8_len(s)) > 0) {
		/* no loop: a compiler makes it memcpy, which BPF lacks */
		esc[0] = (char)b;
		esc[1] = (char)s[1];
		if (n > 2)
			esc[2] = (char)s[2];
		if (n > 3)
			esc[3] = (char)s[3];
		*used = n;
		return n;
	}
	esc[0] = '\\';
	esc[1] = 'u';
	esc[2] = '0';
	esc[3] = '0';
	esc[4] = (char)((b >> 4) < 10 ? '0' + (b >> 4) : 'a' - 10 + (b >> 4));
	esc[5] = (char)((b & 0xf) < 10 ? '0' + (b & 0xf) : 'a' - 10 + (b & 0xf));
	return 6;
}

#endif
