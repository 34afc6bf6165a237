/* parse.c - parses one line of examples/app-trace/app-trace.stp's output into an AtrLine, with a reason when it is malformed (JSON lines: jsonl.c).
 * Used by app-trace-report (trace.c) and its fuzz target tests/fuzz/apptrace_fuzz.c. */
#include "report.h"

#include <string.h>

const char *const atr_op_names[ATR_NOPS] = {
	"open", "socket", "accept", "connect", "read", "write", "seek", "close", "mmap", "fsync",
};

typedef struct {
	const char *p, *end;
	char *err;
	size_t errlen;
} Cur;

static int atr_fail(Cur *c, const char *msg)
{
	snprintf(c->err, c->errlen, "%s", msg);
	return -1;
}

/* lit: the literal text s is next. */
static int atr_lit(Cur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
		return 0;
	c->p += n;
	return 1;
}

/* num: a decimal integer (a leading '-' when neg_ok), within int64_t. */
static int atr_num(Cur *c, int neg_ok, int64_t *v, const char *what)
{
	int neg = 0;
	uint64_t x = 0;
	const char *start;

	if (neg_ok && c->p < c->end && *c->p == '-') {
		neg = 1;
		c->p++;
	}
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (x > (UINT64_MAX - d) / 10 || (x * 10 + d) > (uint64_t)INT64_MAX) {
			snprintf(c->err, c->errlen, "%s out of range", what);
			return -1;
		}
		x = x * 10 + d;
		c->p++;
	}
	if (c->p == start || c->p - start > 19) {
		snprintf(c->err, c->errlen, "%s: expected a number", what);
		return -1;
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

/* word: up to the next space (at most ATR_NAME_MAX - 1 bytes, no NUL) into buf. */
static int atr_word(Cur *c, char *buf, const char *what)
{
	const char *s = c->p;

	while (c->p < c->end && *c->p != ' ')
		c->p++;
	if (c->p == s || (size_t)(c->p - s) >= ATR_NAME_MAX || memchr(s, '\0', (size_t)(c->p - s))) {
		snprintf(c->err, c->errlen, "bad %s", what);
		return -1;
	}
	memcpy(buf, s, (size_t)(c->p - s));
	buf[c->p - s] = '\0';
	return 0;
}

/* exe: the execname, which may hold spaces: up to the first " pid: ". */
static int atr_exe(Cur *c, char *buf)
{
	const char *s = c->p, *q;
	size_t n;

	for (q = s; q < c->end; q++)
		if ((size_t)(c->end - q) >= 6 && memcmp(q, " pid: ", 6) == 0)
			break;
	n = (size_t)(q - s);
	if (q == c->end)
		return atr_fail(c, "no pid: field");
	if (n == 0 || n >= ATR_NAME_MAX || memchr(s, '\0', n))
		return atr_fail(c, "bad execname");
	memcpy(buf, s, n);
	buf[n] = '\0';
	c->p = q;
	return 0;
}

static int atr_op(Cur *c, enum atr_op *op)
{
	char w[ATR_NAME_MAX];
	int i;

	if (atr_word(c, w, "op") < 0)
		return -1;
	for (i = 0; i < ATR_NOPS; i++)
		if (strcmp(w, atr_op_names[i]) == 0) {
			*op = (enum atr_op)i;
			return 0;
		}
	if (strcmp(w, "lseek") == 0) {		/* what this trace wrote before it took App Trace's names */
		*op = ATR_SEEK;
		return 0;
	}
	snprintf(c->err, c->errlen, "unknown op '%.40s'", w);
	return -1;
}

/* The optional fields, in their order; path: the rest of the line. */
static int atr_optional(Cur *c, AtrLine *l)
{
	size_t n;

	if (atr_lit(c, " count: ") && (l->has_count = 1, atr_num(c, 0, &l->count, "count")) < 0)
		return -1;
	if (atr_lit(c, " offset: ") && (l->has_offset = 1, atr_num(c, 0, &l->offset, "offset")) < 0)
		return -1;
	if (atr_lit(c, " ret: ") && (l->has_ret = 1, atr_num(c, 1, &l->ret, "ret")) < 0)
		return -1;
	if (atr_lit(c, " path: ")) {
		n = (size_t)(c->end - c->p);
		if (n == 0 || n >= ATR_NAME_MAX || memchr(c->p, '\0', n))
			return atr_fail(c, "bad path");
		memcpy(l->path, c->p, n);
		l->path[n] = '\0';
		c->p = c->end;
	}
	if (c->p != c->end)
		return atr_fail(c, "unexpected text after the fields (order: count, offset, ret, path)");
	return 0;
}

enum atr_kind atr_parse_line(const char *s, size_t len, AtrLine *l, uint64_t *lost, char *err, size_t errlen)
{
	Cur c = { s, s + len, err, errlen };
	int64_t v;

	if (len > 0 && s[len - 1] == '\r')
		c.end--;
	if (c.p == c.end)
		return ATR_LINE_SKIP;
	if (*c.p == '{')
		return atr_parse_json(s, len, l, lost, err, errlen);
	if (*c.p == '#') {
		if (atr_parse_clock(c.p, (size_t)(c.end - c.p), &l->offset_us, &l->offset_err_us)) {
			l->host[0] = '\0';
			l->has_clock = 1;
			return ATR_LINE_HEADER;
		}
		if (!atr_lit(&c, "# lost: "))
			return ATR_LINE_SKIP;
		if (atr_num(&c, 0, &v, "lost records") < 0)
			return ATR_LINE_BAD;
		*lost = (uint64_t)v;
		return ATR_LINE_LOST;
	}
	memset(l, 0, sizeof(*l));
	l->count = l->offset = l->ret = -1;
	if (atr_num(&c, 0, &v, "time") < 0)
		return ATR_LINE_BAD;
	l->ts_us = (uint64_t)v;
	if (!atr_lit(&c, " op: "))
		return atr_fail(&c, "expected ' op: ' after the time"), ATR_LINE_BAD;
	if (atr_op(&c, &l->op) < 0)
		return ATR_LINE_BAD;
	if (!atr_lit(&c, " execname: "))
		return atr_fail(&c, "expected ' execname: '"), ATR_LINE_BAD;
	if (atr_exe(&c, l->exe) < 0 || !atr_lit(&c, " pid: ") || atr_num(&c, 0, &v, "pid") < 0)
		return ATR_LINE_BAD;
	l->pid = (long)v;
	if (!atr_lit(&c, " fd: "))
		return atr_fail(&c, "expected ' fd: ' after the pid"), ATR_LINE_BAD;
	if (atr_num(&c, 1, &v, "fd") < 0)
		return ATR_LINE_BAD;
	if (v < -1 || v > INT32_MAX)
		return atr_fail(&c, "fd out of range"), ATR_LINE_BAD;
	l->fd = (long)v;
	if (atr_optional(&c, l) < 0)
		return ATR_LINE_BAD;
	return ATR_LINE_CALL;
}

/* "# clock_offset_us: N clock_offset_err_us: E": the offset of the host's clock to the
 * controller's and its error, as app-trace.stp's header says them. */
int atr_parse_clock(const char *s, size_t len, int64_t *offset, int64_t *err)
{
	char why[64];
	Cur c = { s, s + len, why, sizeof(why) };

	if (!atr_lit(&c, "# clock_offset_us: ") || atr_num(&c, 1, offset, "offset") < 0 ||
	    !atr_lit(&c, " clock_offset_err_us: ") || atr_num(&c, 1, err, "error") < 0 || c.p != c.end)
		return 0;
	return 1;
}

/* The "# host: NAME" line of the comment lines a file starts with, or the "host" of its JSON
 * header (its first line). */
int atr_header_host(const char *buf, size_t len, char *host, size_t size)
{
	const char *p = buf, *end = buf + len, *nl;
	AtrLine l;
	char why[64];
	uint64_t lost;
	size_t n;

	if (len > 0 && *buf == '{') {
		nl = memchr(buf, '\n', len);
		if (atr_parse_json(buf, nl ? (size_t)(nl - buf) : len, &l, &lost, why, sizeof(why)) != ATR_LINE_HEADER ||
		    !l.host[0] || strchr(l.host, '/') || strlen(l.host) >= size)
			return 0;
		snprintf(host, size, "%s", l.host);
		return 1;
	}
	while (p < end && *p == '#') {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		if (n > 8 && n - 8 < size && memcmp(p, "# host: ", 8) == 0 && !memchr(p + 8, '\0', n - 8) &&
		    !memchr(p + 8, '/', n - 8)) {
			memcpy(host, p + 8, n - 8);
			host[n - 8] = '\0';
			return 1;
		}
		p = nl + 1;
	}
	return 0;
}
