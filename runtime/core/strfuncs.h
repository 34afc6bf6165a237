/* strfuncs.h - the C side of the string tapset (tapset/string.stp): substrings,
 * search and replace, SystemTap's text_str escaping, JSON string literals, tokenize's per-CPU state. */
#ifndef STP_STRFUNCS_H
#define STP_STRFUNCS_H

/* All of these read NUL-terminated string values (at most MAXSTRINGLEN - 1
 * bytes) and write a MAXSTRINGLEN result that is not one of their inputs. */

/* substr: len bytes of s from byte start (0-based); "" when start is outside
 * the string or len <= 0; fewer bytes when the string ends first. */
static __maybe_unused void stp_substr(char *dst, const char *s, int64_t start, int64_t len)
{
	size_t slen = strnlen(s, MAXSTRINGLEN - 1);
	size_t n;

	dst[0] = 0;
	if (start < 0 || (uint64_t)start >= slen || len <= 0)
		return;
	n = min_t(uint64_t, (uint64_t)len, slen - (size_t)start);
	memcpy(dst, s + start, n);
	dst[n] = 0;
}

/* strpos: the offset of the first occurrence of needle in s, -1 if none
 * (0 for an empty needle). */
static __maybe_unused int64_t stp_strpos(const char *s, const char *needle)
{
	const char *p = strstr(s, needle);

	return p ? (int64_t)(p - s) : -1;
}

/* str_replace: s with every non-overlapping occurrence of find, left to right,
 * replaced by repl; s unchanged when find is empty; cut at MAXSTRINGLEN - 1. */
static __maybe_unused void stp_str_replace(char *dst, const char *s, const char *find, const char *repl)
{
	size_t flen = strnlen(find, MAXSTRINGLEN - 1);
	size_t rlen = strnlen(repl, MAXSTRINGLEN - 1);
	size_t pos = 0, room = MAXSTRINGLEN - 1;
	const char *hit;

	if (flen == 0) {
		stp_strlcpy(dst, s, MAXSTRINGLEN);
		return;
	}
	/* each pass consumes at least flen >= 1 bytes of s: bounded by its length */
	while ((hit = strstr(s, find)) != NULL) {
		size_t n = min_t(size_t, hit - s, room - pos);

		memcpy(dst + pos, s, n);
		pos += n;
		n = min_t(size_t, rlen, room - pos);
		memcpy(dst + pos, repl, n);
		pos += n;
		s = hit + flen;
		if (pos == room)
			break;
	}
	dst[pos] = 0;
	stp_strlcat(dst, s, MAXSTRINGLEN);
}

/* The next character of s as SystemTap's text_str shows it, written to esc
 * (at most 10 bytes plus NUL): printable ASCII as itself except " and \;
 * \a \b \f \n \r \t \v \" \\; a well-formed UTF-8 sequence of 2 to 4 bytes as
 * \uXXXX (code point up to U+FFFF) or \UXXXXXXXX (uppercase hex); any other
 * byte (control, DEL, stray or malformed UTF-8, overlong forms, surrogates,
 * beyond U+10FFFF) as three octal digits \ooo.  *used gets the bytes of s
 * consumed; the length of esc is returned.  s[0] must not be NUL. */
static int stp_text_char(char *esc, const unsigned char *s, int *used)
{
	static const char hex[] = "0123456789ABCDEF";
	unsigned char b = s[0];
	u32 cp;
	int n, i, len;

	if ((b & 0xe0) == 0xc0) {
		n = 2;
		cp = b & 0x1f;
	} else if ((b & 0xf0) == 0xe0) {
		n = 3;
		cp = b & 0x0f;
	} else if ((b & 0xf8) == 0xf0) {
		n = 4;
		cp = b & 0x07;
	} else {
		goto byte;
	}
	/* a NUL fails the continuation test: never reads past the string */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto byte;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp < 0x80 ||
	    (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
		goto byte;
	*used = n;
	len = cp <= 0xffff ? 6 : 10;
	esc[0] = '\\';
	esc[1] = cp <= 0xffff ? 'u' : 'U';
	for (i = len - 1; i >= 2; i--, cp >>= 4)
		esc[i] = hex[cp & 0xf];
	esc[len] = 0;
	return len;
byte:
	*used = 1;
	if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
		esc[0] = b;
		esc[1] = 0;
		return 1;
	}
	/* the two-character escapes and \ooo are deref.h's */
	return stp_escape_char(esc, b);
}

/* text_strn(s, outlen, quoted): s escaped by stp_text_char into dst, at most
 * outlen bytes (outlen <= 0 or >= MAXSTRINGLEN: MAXSTRINGLEN - 1), an escape
 * never split.  quoted: inside double quotes, counted in outlen (at least 5);
 * a string that does not fit ends in `"...` after as much as leaves room for it,
 * cut before an escape rather than inside one. */
static __maybe_unused void stp_text_str(char *dst, const char *s, int64_t outlen, bool quoted)
{
	const unsigned char *in = (const unsigned char *)s;
	const unsigned char *end = in + strnlen(s, MAXSTRINGLEN - 1);
	char *out = dst, esc[12];
	int budget, used = 0, cut = -1, mark, len, n;
	bool cut_short = false;

	if (outlen <= 0 || outlen > MAXSTRINGLEN - 1)
		outlen = MAXSTRINGLEN - 1;
	budget = (int)outlen;
	if (quoted) {
		budget = max(budget, 5) - 2;
		*out++ = '"';
	}
	mark = budget - 3;      /* where a cut string's text ends (quoted) */
	while (in < end) {
		if (used == budget) {
			cut_short = true;
			break;
		}
		len = stp_text_char(esc, in, &n);
		/* an escape over the cut mark: a cut string ends before it */
		if (len > 1 && cut < 0 && used < mark && mark < used + len)
			cut = used;
		if (len > budget - used) {
			cut_short = true;
			break;
		}
		memcpy(out + used, esc, len);
		used += len;
		in += n;
	}
	if (quoted) {
		if (cut_short) {
			used = cut >= 0 ? cut : mark;
			memcpy(out + used, "\"...", 4);
			used += 4;
		} else {
			out[used++] = '"';
		}
	}
	out[used] = 0;
}

#include "utf8.h"     /* stp_utf8_len, shared with stapio */

/* json_string(s): s as a JSON string literal, in double quotes: " and \ escaped with a
 * backslash, control bytes (below 0x20) and DEL as \u00XX, well-formed UTF-8 as itself, any other
 * byte (stray or malformed UTF-8) as \u00XX of its value.  Valid JSON for any input.  A string
 * that does not fit MAXSTRINGLEN - 1 bytes is cut before an escape or character that would cross
 * the limit and ends in ..." (the dots inside the quotes). */
static __maybe_unused void stp_json_str(char *dst, const char *s)
{
	const unsigned char *in = (const unsigned char *)s;
	const unsigned char *end = in + strnlen(s, MAXSTRINGLEN - 1);
	int room = MAXSTRINGLEN - 2, used = 1, cut = -1, len;
	char esc[8];

	dst[0] = '"';
	while (in < end) {
		int n;

		len = stp_json_char(esc, in, &n);
		/* the last place a cut string's "...\"" still fits after */
		if (cut < 0 && used + len > room - 3)
			cut = used;
		if (used + len > room) {
			used = cut;
			memcpy(dst + used, "...", 3);
			used += 3;
			break;
		}
		memcpy(dst + used, esc, len);
		used += len;
		in += n;
	}
	dst[used++] = '"';
	dst[used] = 0;
}

/* tokenize(input, delim): the next non-empty token of the string kept in this
 * CPU's context, delimited by any byte of delim; a non-empty input replaces the
 * kept string first.  "" when no token is left (and for "" input before any
 * string was given).  The rest of the string stays in the context for the next
 * call on this CPU, in this probe hit or a later one. */
static __maybe_unused void stp_tokenize(struct stp_context *c, char *dst, const char *input,
					const char *delim)
{
	const char *s;
	size_t n;

	if (input[0]) {
		stp_strlcpy(c->tok_str, input, MAXSTRINGLEN);
		c->tok_pos = 0;
	}
	s = c->tok_str + c->tok_pos;
	s += strspn(s, delim);          /* empty tokens are skipped */
	n = strcspn(s, delim);
	memcpy(dst, s, n);
	dst[n] = 0;
	s += n;
	if (*s)
		s++;                    /* past the delimiter */
	c->tok_pos = s - c->tok_str;
}

/* ppfunc(): the function a probe point names ("vfs_read" of kernel.function("vfs_read@fs/read_write.c:450")), ""
 * when it names none (the BPF runtime has it from the translator: runtime/bpf/context.h) */
static __maybe_unused void stp_ppfunc(struct stp_context *c, char *dst)
{
	const char *pp = c->probe ? c->probe->pp : NULL;
	const char *start = pp ? strstr(pp, "function(\"") : NULL;

	dst[0] = 0;
	if (start)
		start += strlen("function(\"");
	else if (pp && (start = strstr(pp, "inline(\"")))
		start += strlen("inline(\"");
	if (start)
		stp_strlcpy(dst, start, min_t(size_t, strcspn(start, "\"@:") + 1, MAXSTRINGLEN));
}

#endif
