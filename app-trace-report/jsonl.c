/* jsonl.c - parses one JSON line of app-trace.stp's output (format=json) into an AtrLine: a call, the header's clock offset, a lost count, or a record to skip.
 * Used by parse.c (atr_parse_line, for a line that starts with '{') and so by app-trace-report and tests/fuzz/apptrace_fuzz.c. */
#include "report.h"

#include <string.h>

#define ATR_JSON_DEPTH 16	/* nesting of the values skipped (the totals' "calls" object) */

typedef struct {
	const unsigned char *p, *end;
	char *err;
	size_t errlen;
} JCur;

static int jfail(JCur *c, const char *msg)
{
	snprintf(c->err, c->errlen, "%s", msg);
	return -1;
}

static void jblank(JCur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

static int jhex4(JCur *c, unsigned *v)
{
	int i;

	*v = 0;
	if (c->end - c->p < 4)
		return jfail(c, "bad \\u escape");
	for (i = 0; i < 4; i++, c->p++) {
		unsigned char h = *c->p;
		*v <<= 4;
		if (h >= '0' && h <= '9')
			*v |= h - '0';
		else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
			*v |= (h | 0x20) - 'a' + 10;
		else
			return jfail(c, "bad \\u escape");
	}
	return 0;
}

/* put: n bytes into buf (size bytes, at *len); 1 when they did not fit. */
static int jput(char *buf, size_t size, size_t *len, const void *b, size_t n)
{
	if (!buf)
		return 0;
	if (*len + n >= size)
		return 1;
	memcpy(buf + *len, b, n);
	*len += n;
	return 0;
}

/* An escape's code point cp as bytes: U+0080..U+00FF as the one byte (app-trace.stp's json_string
 * writes a byte that is not well-formed UTF-8 so), others as UTF-8. */
static int jput_cp(char *buf, size_t size, size_t *len, unsigned long cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x100) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | (cp >> 18));
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return jput(buf, size, len, u, n);
}

/* A string (the opening quote next) decoded into buf (NUL-terminated; NULL: skipped). *cut: it did
 * not fit in size - 1 bytes.  A NUL in it (\u0000) is refused. */
static int jstring(JCur *c, char *buf, size_t size, int *cut)
{
	static const char simple[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	size_t len = 0;
	unsigned v, lo;
	const char *s;

	*cut = 0;
	if (c->p >= c->end || *c->p != '"')
		return jfail(c, "expected a string");
	c->p++;
	for (;;) {
		if (c->p >= c->end)
			return jfail(c, "unterminated string");
		if (*c->p == '"')
			break;
		if (*c->p < 0x20 || *c->p == 0x7f)
			return jfail(c, "a control character in a string");
		if (*c->p != '\\') {
			*cut |= jput(buf, size, &len, c->p++, 1);
			continue;
		}
		if (++c->p >= c->end)
			return jfail(c, "unterminated string");
		if (*c->p != 'u') {
			for (s = simple; *s && *s != (char)*c->p; s += 2)
				;
			if (!*s)
				return jfail(c, "bad escape in a string");
			*cut |= jput(buf, size, &len, s + 1, 1);
			c->p++;
			continue;
		}
		c->p++;
		if (jhex4(c, &v) < 0)
			return -1;
		if (v == 0)
			return jfail(c, "a NUL in a string");
		if (v >= 0xd800 && v <= 0xdbff) {	/* a surrogate pair */
			if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u')
				return jfail(c, "a lone surrogate");
			c->p += 2;
			if (jhex4(c, &lo) < 0)
				return -1;
			if (lo < 0xdc00 || lo > 0xdfff)
				return jfail(c, "a lone surrogate");
			*cut |= jput_cp(buf, size, &len, 0x10000 + (((unsigned long)v - 0xd800) << 10) + (lo - 0xdc00));
			continue;
		}
		if (v >= 0xdc00 && v <= 0xdfff)
			return jfail(c, "a lone surrogate");
		*cut |= jput_cp(buf, size, &len, v);
	}
	c->p++;
	if (buf)
		buf[len] = '\0';
	return 0;
}

/* An integer within int64_t (no fraction or exponent). */
static int jint(JCur *c, int64_t *v)
{
	int neg = 0;
	uint64_t x = 0;
	const unsigned char *start;

	if (c->p < c->end && *c->p == '-') {
		neg = 1;
		c->p++;
	}
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = *c->p - '0';
		if (x > ((uint64_t)INT64_MAX - d) / 10)
			return jfail(c, "a number out of range");
		x = x * 10 + d;
		c->p++;
	}
	if (c->p == start)
		return jfail(c, "expected a number");
	if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
		return jfail(c, "expected a whole number");
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

static int jlit(JCur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
		return 0;
	c->p += n;
	return 1;
}

/* Any value, skipped (depth: the nesting so far). */
static int jskip(JCur *c, int depth)
{
	int cut;
	int64_t v;
	unsigned char close;

	jblank(c);
	if (c->p >= c->end)
		return jfail(c, "expected a value");
	if (*c->p == '"')
		return jstring(c, NULL, 0, &cut);
	if (jlit(c, "true") || jlit(c, "false") || jlit(c, "null"))
		return 0;
	if (*c->p != '{' && *c->p != '[') {
		if (jint(c, &v) < 0)
			return -1;
		return 0;
	}
	if (depth >= ATR_JSON_DEPTH)
		return jfail(c, "nested too deep");
	close = *c->p == '{' ? '}' : ']';
	c->p++;
	jblank(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			jblank(c);
			if (jstring(c, NULL, 0, &cut) < 0)
				return -1;
			jblank(c);
			if (c->p >= c->end || *c->p++ != ':')
				return jfail(c, "expected ':'");
		}
		if (jskip(c, depth + 1) < 0)
			return -1;
		jblank(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			return 0;
		}
		return jfail(c, "expected ',' or the end of an array or object");
	}
}

/* What a line's members said. */
typedef struct {
	char type[16];
	int has_type, has_time, has_op, has_exe, has_pid, has_fd, has_path, has_records;
	int has_clock, has_clock_err;
	int64_t time, pid, fd, records, clock, clock_err;
	char op[16];
	char path[ATR_NAME_MAX];	/* the bytes */
	int has_host;
} JRec;

/* A number member (key given) into *v, flagged in *has; twice is an error. */
static int jnum_member(JCur *c, int64_t *v, int *has)
{
	if (*has)
		return jfail(c, "a member given twice");
	*has = 1;
	return jint(c, v);
}

static int jstr_member(JCur *c, char *buf, size_t size, int *has, const char *what)
{
	int cut;
	char msg[64];

	if (*has)
		return jfail(c, "a member given twice");
	*has = 1;
	if (jstring(c, buf, size, &cut) < 0)
		return -1;
	if (cut) {
		snprintf(msg, sizeof(msg), "%s too long", what);
		return jfail(c, msg);
	}
	return 0;
}

static int jmember(JCur *c, const char *key, JRec *r, AtrLine *l)
{
	if (!strcmp(key, "type"))
		return jstr_member(c, r->type, sizeof(r->type), &r->has_type, "type");
	if (!strcmp(key, "time_us"))
		return jnum_member(c, &r->time, &r->has_time);
	if (!strcmp(key, "op"))
		return jstr_member(c, r->op, sizeof(r->op), &r->has_op, "op");
	if (!strcmp(key, "execname"))
		return jstr_member(c, l->exe, sizeof(l->exe), &r->has_exe, "execname");
	if (!strcmp(key, "pid"))
		return jnum_member(c, &r->pid, &r->has_pid);
	if (!strcmp(key, "fd"))
		return jnum_member(c, &r->fd, &r->has_fd);
	if (!strcmp(key, "count"))
		return jnum_member(c, &l->count, &l->has_count);
	if (!strcmp(key, "offset"))
		return jnum_member(c, &l->offset, &l->has_offset);
	if (!strcmp(key, "ret"))
		return jnum_member(c, &l->ret, &l->has_ret);
	if (!strcmp(key, "path"))
		return jstr_member(c, r->path, sizeof(r->path), &r->has_path, "path");
	if (!strcmp(key, "host"))
		return jstr_member(c, l->host, sizeof(l->host), &r->has_host, "host");
	if (!strcmp(key, "records"))
		return jnum_member(c, &r->records, &r->has_records);
	if (!strcmp(key, "clock_offset_us"))
		return jnum_member(c, &r->clock, &r->has_clock);
	if (!strcmp(key, "clock_offset_err_us"))
		return jnum_member(c, &r->clock_err, &r->has_clock_err);
	return jskip(c, 1);
}

/* The path's bytes as the text form prints them (user_string_quoted: in double quotes, \" \\ \n
 * \t \r \v \f \b \a, other bytes below 0x20 or from 0x7f as \ooo), so both forms' files agree. */
static int jpath_quoted(const char *bytes, char *out, size_t size)
{
	static const char simple[] = "\"\"\\\\\nn\tt\rr\vv\ff\bb\aa";
	const unsigned char *p;
	size_t len = 0;
	char esc[5];
	const char *s;
	int n;

	out[len++] = '"';
	for (p = (const unsigned char *)bytes; *p; p++) {
		for (s = simple; *s && *s != (char)*p; s += 2)
			;
		if (*s)
			n = snprintf(esc, sizeof(esc), "\\%c", s[1]);
		else if (*p < 0x20 || *p >= 0x7f)
			n = snprintf(esc, sizeof(esc), "\\%03o", *p);
		else
			n = snprintf(esc, sizeof(esc), "%c", *p);
		if (len + (size_t)n + 2 > size)
			return -1;
		memcpy(out + len, esc, (size_t)n);
		len += (size_t)n;
	}
	out[len++] = '"';
	out[len] = '\0';
	return 0;
}

static int jop(const char *name, enum atr_op *op)
{
	int i;

	for (i = 0; i < ATR_NOPS; i++)
		if (!strcmp(name, atr_op_names[i])) {
			*op = (enum atr_op)i;
			return 0;
		}
	return -1;
}

/* The call a record without "type" is. */
static enum atr_kind jcall(JCur *c, const JRec *r, AtrLine *l)
{
	char msg[64];

	if (!r->has_time || !r->has_op || !r->has_exe || !r->has_pid || !r->has_fd)
		return jfail(c, "a call needs time_us, op, execname, pid and fd"), ATR_LINE_BAD;
	if (r->time < 0 || r->pid < 0 || r->fd < -1 || r->fd > INT32_MAX || (l->has_count && l->count < 0) ||
	    (l->has_offset && l->offset < 0))
		return jfail(c, "a number out of range"), ATR_LINE_BAD;
	if (jop(r->op, &l->op) < 0) {
		snprintf(msg, sizeof(msg), "unknown op '%.20s'", r->op);
		return jfail(c, msg), ATR_LINE_BAD;
	}
	if (!l->exe[0])
		return jfail(c, "bad execname"), ATR_LINE_BAD;
	if (r->has_path && (!r->path[0] || jpath_quoted(r->path, l->path, sizeof(l->path)) < 0))
		return jfail(c, "bad path"), ATR_LINE_BAD;
	l->ts_us = (uint64_t)r->time;
	l->pid = (long)r->pid;
	l->fd = (long)r->fd;
	return ATR_LINE_CALL;
}

enum atr_kind atr_parse_json(const char *s, size_t len, AtrLine *l, uint64_t *lost, char *err, size_t errlen)
{
	JCur c = { (const unsigned char *)s, (const unsigned char *)s + len, err, errlen };
	JRec r;
	char key[32];
	int cut;

	memset(&r, 0, sizeof(r));
	memset(l, 0, sizeof(*l));
	l->count = l->offset = l->ret = -1;
	jblank(&c);
	if (c.p >= c.end || *c.p++ != '{')
		return jfail(&c, "expected a JSON object"), ATR_LINE_BAD;
	jblank(&c);
	if (c.p < c.end && *c.p == '}')
		c.p++;
	else
		for (;;) {
			jblank(&c);
			if (jstring(&c, key, sizeof(key), &cut) < 0)
				return ATR_LINE_BAD;
			jblank(&c);
			if (c.p >= c.end || *c.p++ != ':')
				return jfail(&c, "expected ':'"), ATR_LINE_BAD;
			jblank(&c);
			if (cut ? jskip(&c, 1) < 0 : jmember(&c, key, &r, l) < 0)
				return ATR_LINE_BAD;
			jblank(&c);
			if (c.p < c.end && *c.p == ',') {
				c.p++;
				continue;
			}
			if (c.p < c.end && *c.p == '}') {
				c.p++;
				break;
			}
			return jfail(&c, "expected ',' or '}'"), ATR_LINE_BAD;
		}
	jblank(&c);
	if (c.p != c.end)
		return jfail(&c, "text after the object"), ATR_LINE_BAD;
	if (!r.has_type)
		return jcall(&c, &r, l);
	if (!strcmp(r.type, "lost")) {
		if (!r.has_records || r.records < 0)
			return jfail(&c, "a lost record needs records"), ATR_LINE_BAD;
		*lost = (uint64_t)r.records;
		return ATR_LINE_LOST;
	}
	if (!strcmp(r.type, "header")) {
		l->has_clock = r.has_clock && r.has_clock_err;
		l->offset_us = r.clock;
		l->offset_err_us = r.clock_err;
		return ATR_LINE_HEADER;
	}
	return ATR_LINE_SKIP;
}
