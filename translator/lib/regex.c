/* regex.c - parses a POSIX extended regular expression (SystemTap's dialect) and
 * compiles it into a Pike VM program for runtime/core/regex.h.  Used by elaborate.c
 * (pass-2 check), codegen/match.c (pass 3) and tests/unit/regex.t.
 *
 * Syntax: literals, '.', bracket expressions ([a-z], [^...], []...], [[:alpha:]] and
 * the other POSIX classes, [[.c.]], [[=c=]]), groups (...) and (?:...), '|', '*' '+'
 * '?' {m} {m,} {m,n}, anchors ^ $ (anywhere), and '\c' = the byte c literally (also
 * inside brackets, as in SystemTap).  Program shape: SAVE 0, the pattern, SAVE 1,
 * MATCH; alternatives and repetitions are SPLITs whose first target is preferred:
 * the matcher reports the groups of the first way, in that order, to match the
 * leftmost-longest span: greedy, left alternative first (an empty first one after
 * the second), as glibc reports them. */
#include "lib/regex.h"
#include "lib/util.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

enum { N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_CAT, N_ALT, N_GROUP, N_REPEAT, N_BOL, N_EOL };

typedef struct Node {
	int kind;
	int a, b;        /* CHAR: a = byte; CLASS: a = class; GROUP: a = number (-1: (?:));
	                    REPEAT: a = min, b = max (-1: none) */
	int kid, last;   /* first and last child (CAT, ALT, GROUP, REPEAT) */
	int next;        /* next sibling */
	int pos;         /* where it starts in the pattern */
} Node;

typedef struct Rx {
	const char *s;
	int pos, len;
	Node *nodes;
	int nnodes, capnodes;
	int ngroups;     /* counting group 0 */
	int depth;
	RxProgram *prog;
	int capinsns, capclasses;
	int errpos;
	char *errmsg;
	size_t errlen;
	jmp_buf fail;
} Rx;

static void rx_error(Rx *rx, int pos, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));

static void rx_error(Rx *rx, int pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rx->errmsg, rx->errlen, fmt, ap);
	va_end(ap);
	rx->errpos = pos;
	longjmp(rx->fail, 1);
}

static int new_node(Rx *rx, int kind, int pos)
{
	Node *n;

	if (rx->nnodes == rx->capnodes) {
		rx->capnodes = rx->capnodes ? rx->capnodes * 2 : 32;
		rx->nodes = xrealloc(rx->nodes, (size_t)rx->capnodes * sizeof *rx->nodes);
	}
	n = &rx->nodes[rx->nnodes];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->kid = n->last = n->next = -1;
	n->pos = pos;
	return rx->nnodes++;
}

static void add_kid(Rx *rx, int parent, int kid)
{
	Node *p = &rx->nodes[parent];

	if (p->kid < 0)
		p->kid = kid;
	else
		rx->nodes[p->last].next = kid;
	p->last = kid;
}

static int peek(const Rx *rx)
{
	return rx->pos < rx->len ? (unsigned char)rx->s[rx->pos] : -1;
}

/* c as a message shows it; buf has room for 8 */
static const char *shown(char *buf, int c)
{
	if (c >= 32 && c < 127)
		snprintf(buf, 8, "%c", c);
	else
		snprintf(buf, 8, "\\x%02x", (unsigned)c & 0xff);
	return buf;
}

/* ---- bracket expressions ---- */

typedef unsigned char ByteSet[32];

static void set_add(unsigned char *set, int lo, int hi)
{
	for (int c = lo; c <= hi; c++)
		set[c >> 3] |= (unsigned char)(1u << (c & 7));
}

static int named_class(unsigned char *set, const char *name, size_t n)
{
	static const char *const names[] = {
		"alpha", "digit", "alnum", "upper", "lower", "space",
		"blank", "punct", "print", "graph", "cntrl", "xdigit",
	};
	int which = -1;

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strlen(names[i]) == n && !strncmp(names[i], name, n))
			which = (int)i;
	}
	if (which < 0)
		return -1;
	/* the C locale's classes, spelled out: the kernel has no locale */
	for (int c = 1; c < 256; c++) {
		int upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z', digit = c >= '0' && c <= '9';
		int graph = c > 32 && c < 127, in = 0;
		switch (which) {
		case 0: in = upper || lower; break;
		case 1: in = digit; break;
		case 2: in = upper || lower || digit; break;
		case 3: in = upper; break;
		case 4: in = lower; break;
		case 5: in = c == ' ' || (c >= '\t' && c <= '\r'); break;
		case 6: in = c == ' ' || c == '\t'; break;
		case 7: in = graph && !upper && !lower && !digit; break;
		case 8: in = c >= 32 && c < 127; break;
		case 9: in = graph; break;
		case 10: in = c < 32 || c == 127; break;
		default: in = digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); break;
		}
		if (in)
			set_add(set, c, c);
	}
	return 0;
}

/* One end of a range: a byte, '\c', [.c.] or [=c=].  Returns the byte. */
static int bracket_char(Rx *rx)
{
	int c = peek(rx);

	if (c == '\\') {
		if (rx->pos + 1 >= rx->len)
			rx_error(rx, rx->pos + 1, "unexpected end of regex");
		rx->pos += 2;
		return (unsigned char)rx->s[rx->pos - 1];
	}
	if (c == '[' && rx->pos + 1 < rx->len && (rx->s[rx->pos + 1] == '.' || rx->s[rx->pos + 1] == '=')) {
		char d = rx->s[rx->pos + 1];
		if (rx->pos + 4 >= rx->len || rx->s[rx->pos + 3] != d || rx->s[rx->pos + 4] != ']')
			rx_error(rx, rx->pos, "only single characters are supported in '[%c %c]'", d, d);
		c = (unsigned char)rx->s[rx->pos + 2];
		rx->pos += 5;
		return c;
	}
	rx->pos++;
	return c;
}

static int class_index(Rx *rx, const unsigned char *set)
{
	RxProgram *p = rx->prog;

	for (int i = 0; i < p->nclasses; i++) {
		if (!memcmp(p->classes[i], set, 32))
			return i;
	}
	if (p->nclasses == rx->capclasses) {
		rx->capclasses = rx->capclasses ? rx->capclasses * 2 : 8;
		p->classes = xrealloc(p->classes, (size_t)rx->capclasses * sizeof *p->classes);
	}
	memcpy(p->classes[p->nclasses], set, 32);
	return p->nclasses++;
}

static int parse_bracket(Rx *rx)
{
	int start = rx->pos, neg = 0, first = 1, node;
	ByteSet set;

	memset(set, 0, sizeof set);
	rx->pos++;   /* [ */
	if (peek(rx) == '^') {
		neg = 1;
		rx->pos++;
	}
	for (;;) {
		int c = peek(rx), lo, hi, at = rx->pos;

		if (c < 0)
			rx_error(rx, start, "unclosed character class");
		if (c == ']' && !first) {
			rx->pos++;
			break;
		}
		first = 0;
		if (c == '[' && rx->pos + 1 < rx->len && rx->s[rx->pos + 1] == ':') {
			const char *name = rx->s + rx->pos + 2, *end = strstr(name, ":]");
			if (!end)
				rx_error(rx, at, "unclosed character class '[:'");
			if (named_class(set, name, (size_t)(end - name)))
				rx_error(rx, at + 2, "unknown character class '%.*s'", (int)(end - name), name);
			rx->pos = (int)(end + 2 - rx->s);
			if (peek(rx) == '-' && rx->pos + 1 < rx->len && rx->s[rx->pos + 1] != ']')
				rx_error(rx, rx->pos, "a character class cannot begin a range");
			continue;
		}
		lo = bracket_char(rx);
		hi = lo;
		if (peek(rx) == '-' && rx->pos + 1 < rx->len && rx->s[rx->pos + 1] != ']') {
			rx->pos++;
			if (rx->s[rx->pos] == '[' && rx->pos + 1 < rx->len && rx->s[rx->pos + 1] == ':')
				rx_error(rx, rx->pos, "a character class cannot end a range");
			hi = bracket_char(rx);
			if (hi < lo) {
				char b1[8], b2[8];
				rx_error(rx, at, "inverted character range %s-%s", shown(b1, lo), shown(b2, hi));
			}
		}
		set_add(set, lo, hi);
	}
	if (neg) {
		for (int i = 0; i < 32; i++)
			set[i] = (unsigned char)~set[i];
	}
	set[0] &= (unsigned char)~1u;   /* a string never holds NUL */
	node = new_node(rx, N_CLASS, start);
	rx->nodes[node].a = class_index(rx, set);
	return node;
}

/* ---- the grammar: alt = cat ('|' cat)*, cat = factor*, factor = atom postfix* ---- */

static int parse_alt(Rx *rx);

static int parse_count(Rx *rx)
{
	int start = rx->pos, v = 0;

	if (peek(rx) < '0' || peek(rx) > '9')
		rx_error(rx, rx->pos, "expected number");
	while (peek(rx) >= '0' && peek(rx) <= '9') {
		if (v <= RX_MAX_REPEAT)
			v = v * 10 + (rx->s[rx->pos] - '0');
		rx->pos++;
	}
	if (v > RX_MAX_REPEAT)
		rx_error(rx, start, "%.*s is too large (at most %d repetitions)", rx->pos - start, rx->s + start,
			 RX_MAX_REPEAT);
	return v;
}

static int parse_atom(Rx *rx)
{
	int c = peek(rx), at = rx->pos, node;

	switch (c) {
	case '(': {
		int capture = 1, inner;
		rx->pos++;
		if (peek(rx) == '?') {
			if (rx->pos + 1 < rx->len && rx->s[rx->pos + 1] == ':') {
				capture = 0;
				rx->pos += 2;
			} else {
				char b[8];
				rx_error(rx, at, "unexpected '(?%s'",
					 rx->pos + 1 < rx->len ? shown(b, (unsigned char)rx->s[rx->pos + 1]) : "");
			}
		}
		if (++rx->depth > RX_MAX_DEPTH)
			rx_error(rx, at, "groups nested too deeply (at most %d)", RX_MAX_DEPTH);
		node = new_node(rx, N_GROUP, at);
		rx->nodes[node].a = -1;
		if (capture) {
			if (rx->ngroups >= RX_MAX_GROUPS)
				rx_error(rx, at, "too many groups (at most %d)", RX_MAX_GROUPS - 1);
			rx->nodes[node].a = rx->ngroups++;
		}
		inner = parse_alt(rx);
		add_kid(rx, node, inner);
		if (peek(rx) != ')')
			rx_error(rx, rx->pos, "expected ')', found end of regex");
		rx->pos++;
		rx->depth--;
		return node;
	}
	case '[':
		return parse_bracket(rx);
	case '.':
		rx->pos++;
		return new_node(rx, N_ANY, at);
	case '^':
		rx->pos++;
		return new_node(rx, N_BOL, at);
	case '$':
		rx->pos++;
		return new_node(rx, N_EOL, at);
	case '\\':
		if (rx->pos + 1 >= rx->len)
			rx_error(rx, rx->pos + 1, "unexpected end of regex");
		node = new_node(rx, N_CHAR, at);
		rx->nodes[node].a = (unsigned char)rx->s[rx->pos + 1];
		rx->pos += 2;
		return node;
	case '*': case '+': case '?': case '{':
		rx_error(rx, at, "unexpected '%c'", c);
	default:
		node = new_node(rx, N_CHAR, at);
		rx->nodes[node].a = c;
		rx->pos++;
		return node;
	}
}

static int parse_factor(Rx *rx)
{
	int node = parse_atom(rx), c;

	while ((c = peek(rx)) == '*' || c == '+' || c == '?' || c == '{') {
		int at = rx->pos, min, max, rep;
		if (rx->nodes[node].kind == N_BOL || rx->nodes[node].kind == N_EOL)
			rx_error(rx, at, "postfix closure '%c' applied to anchoring operator", c);
		rx->pos++;
		if (c == '*') {
			min = 0, max = -1;
		} else if (c == '+') {
			min = 1, max = -1;
		} else if (c == '?') {
			min = 0, max = 1;
		} else {
			int comma = 0;
			min = max = parse_count(rx);
			if (peek(rx) == ',') {
				comma = 1;
				rx->pos++;
				if (peek(rx) == '}')
					max = -1;
				else if (peek(rx) >= '0' && peek(rx) <= '9')
					max = parse_count(rx);
				else
					rx_error(rx, rx->pos, "expected '}' or number");
			}
			if (peek(rx) != '}')
				rx_error(rx, rx->pos, comma ? "expected '}'" : "expected ',' or '}'");
			rx->pos++;
			if (max >= 0 && max < min)
				rx_error(rx, at, "invalid repetition {%d,%d}: the minimum is above the maximum", min, max);
		}
		if (max == 0) {
			/* x{0} matches only the empty string: as in glibc, it is nothing at
			 * all (see parse_alt); its groups are counted, never set */
			node = new_node(rx, N_EMPTY, at);
			continue;
		}
		rep = new_node(rx, N_REPEAT, at);
		rx->nodes[rep].a = min;
		rx->nodes[rep].b = max;
		add_kid(rx, rep, node);
		node = rep;
	}
	return node;
}

static int parse_cat(Rx *rx)
{
	int node = new_node(rx, N_CAT, rx->pos), c;

	while ((c = peek(rx)) >= 0 && c != '|' && c != ')') {
		int kid = parse_factor(rx);
		if (rx->nodes[kid].kind != N_EMPTY)
			add_kid(rx, node, kid);
	}
	if (rx->nodes[node].kid < 0)
		rx->nodes[node].kind = N_EMPTY;
	else if (rx->nodes[node].kid == rx->nodes[node].last)
		return rx->nodes[node].kid;
	return node;
}

/* Alternatives are tried left to right, except that an empty first one comes after
 * the second: glibc's order ("|a|b" tries a, the empty one, then b). */
static int parse_alt(Rx *rx)
{
	int first = parse_cat(rx), node, second;

	if (peek(rx) != '|')
		return first;
	node = new_node(rx, N_ALT, rx->nodes[first].pos);
	rx->pos++;
	second = parse_cat(rx);
	if (rx->nodes[first].kind == N_EMPTY) {
		add_kid(rx, node, second);
		add_kid(rx, node, first);
	} else {
		add_kid(rx, node, first);
		add_kid(rx, node, second);
	}
	while (peek(rx) == '|') {
		rx->pos++;
		add_kid(rx, node, parse_cat(rx));
	}
	return node;
}

/* ---- code ---- */

static int emit(Rx *rx, int pos, int op, int c, int x, int y)
{
	RxProgram *p = rx->prog;
	struct stp_re_insn *in;

	if (p->ninsns >= RX_MAX_INSNS - 2)   /* room for SAVE 1 and MATCH */
		rx_error(rx, pos, "regular expression too large (more than %d instructions)", RX_MAX_INSNS);
	if (p->ninsns == rx->capinsns) {
		rx->capinsns = rx->capinsns ? rx->capinsns * 2 : 32;
		p->insns = xrealloc(p->insns, (size_t)rx->capinsns * sizeof *p->insns);
	}
	in = &p->insns[p->ninsns];
	in->op = (unsigned char)op;
	in->c = (unsigned char)c;
	in->x = (unsigned short)x;
	in->y = (unsigned short)y;
	if (op == STP_RE_CHAR || op == STP_RE_ANY || op == STP_RE_CLASS || op == STP_RE_MATCH)
		p->nthreads++;
	return p->ninsns++;
}

#define NO_LINK 0xffff

/* Points the chain of JMPs (through x) or SPLITs (through y) at the next instruction. */
static void patch(RxProgram *p, int chain, int via_y)
{
	while (chain != NO_LINK) {
		struct stp_re_insn *in = &p->insns[chain];
		unsigned short *link = via_y ? &in->y : &in->x;
		chain = *link;
		*link = (unsigned short)p->ninsns;
	}
}

static void gen(Rx *rx, int n)
{
	Node *node = &rx->nodes[n];
	RxProgram *p = rx->prog;
	int kid = node->kid, pos = node->pos;

	switch (node->kind) {
	case N_EMPTY:
		break;
	case N_CHAR:
		emit(rx, pos, STP_RE_CHAR, node->a, 0, 0);
		break;
	case N_ANY:
		emit(rx, pos, STP_RE_ANY, 0, 0, 0);
		break;
	case N_CLASS:
		emit(rx, pos, STP_RE_CLASS, 0, node->a, 0);
		break;
	case N_BOL:
		emit(rx, pos, STP_RE_BOL, 0, 0, 0);
		break;
	case N_EOL:
		emit(rx, pos, STP_RE_EOL, 0, 0, 0);
		break;
	case N_CAT:
		for (int k = kid; k >= 0; k = rx->nodes[k].next)
			gen(rx, k);
		break;
	case N_ALT: {
		/* SPLIT a, next; a; JMP end; next: SPLIT b, next2; b; JMP end; ... last; end:
		 * the JMPs are chained through x until end is known */
		int chain = NO_LINK;
		for (int k = kid; k >= 0; k = rx->nodes[k].next) {
			int split;
			if (rx->nodes[k].next < 0) {
				gen(rx, k);
				break;
			}
			split = emit(rx, pos, STP_RE_SPLIT, 0, p->ninsns + 1, 0);
			gen(rx, k);
			chain = emit(rx, pos, STP_RE_JMP, 0, chain, 0);
			p->insns[split].y = (unsigned short)p->ninsns;
		}
		patch(p, chain, 0);
		break;
	}
	case N_GROUP:
		if (node->a >= 0)
			emit(rx, pos, STP_RE_SAVE, 0, 2 * node->a, 0);
		gen(rx, kid);
		if (rx->nodes[n].a >= 0)
			emit(rx, pos, STP_RE_SAVE, 0, 2 * rx->nodes[n].a + 1, 0);
		break;
	case N_REPEAT: {
		int min = node->a, max = node->b;
		if (max < 0) {
			/* x* is (x+)?: an empty iteration is recorded once, as glibc does */
			int split = -1, loop;
			if (min == 0)
				split = emit(rx, pos, STP_RE_SPLIT, 0, p->ninsns + 1, 0);
			for (int i = 1; i < min; i++)
				gen(rx, kid);
			loop = p->ninsns;
			gen(rx, kid);
			emit(rx, pos, STP_RE_SPLIT, 0, loop, p->ninsns + 1);
			if (split >= 0)
				p->insns[split].y = (unsigned short)p->ninsns;
		} else {
			/* x{2,4} is x x (x (x)?)?; the SPLITs are chained through y */
			int chain = NO_LINK;
			for (int i = 0; i < min; i++)
				gen(rx, kid);
			for (int i = min; i < max; i++) {
				chain = emit(rx, pos, STP_RE_SPLIT, 0, p->ninsns + 1, chain);
				gen(rx, kid);
			}
			patch(p, chain, 1);
		}
		break;
	}
	}
}

int rx_compile(const char *pattern, RxProgram *prog, int *errpos, char *errmsg, size_t errlen)
{
	/* on the heap: what the parser changed stays valid after longjmp */
	Rx *const rx = xcalloc(1, sizeof *rx);
	int root;

	memset(prog, 0, sizeof *prog);
	rx->s = pattern;
	rx->len = (int)strlen(pattern);
	rx->ngroups = 1;
	rx->prog = prog;
	rx->errmsg = errmsg;
	rx->errlen = errlen;
	if (setjmp(rx->fail)) {
		*errpos = rx->errpos;
		free(rx->nodes);
		free(rx);
		rx_free(prog);
		return -1;
	}
	if (rx->len > 0xfff0)
		rx_error(rx, 0, "regular expression too long");
	root = parse_alt(rx);
	if (rx->pos < rx->len)   /* parse_alt stops only at the end or a ')' */
		rx_error(rx, rx->pos, "unbalanced ')'");
	emit(rx, 0, STP_RE_SAVE, 0, 0, 0);
	gen(rx, root);
	/* emit() kept room within the bound for SAVE 1 and MATCH */
	{
		struct stp_re_insn tail[2] = { { STP_RE_SAVE, 0, 1, 0 }, { STP_RE_MATCH, 0, 0, 0 } };
		if (prog->ninsns + 2 > rx->capinsns) {
			rx->capinsns = prog->ninsns + 2;
			prog->insns = xrealloc(prog->insns, (size_t)rx->capinsns * sizeof *prog->insns);
		}
		memcpy(prog->insns + prog->ninsns, tail, sizeof tail);
		prog->ninsns += 2;
		prog->nthreads++;
	}
	prog->nsub = rx->ngroups;
	prog->anchored = prog->insns[1].op == STP_RE_BOL;
	free(rx->nodes);
	free(rx);
	return 0;
}

void rx_free(RxProgram *prog)
{
	free(prog->insns);
	free(prog->classes);
	memset(prog, 0, sizeof *prog);
}

/* Where pattern byte pos is in the source: the literal's text is walked, decoding
 * escapes as the lexer does; when that fails (a literal pasted from several), the
 * literal's own start. */
static SrcLoc pattern_loc(SrcLoc lit, int pos)
{
	const SourceFile *f = lit.file;
	const char *p, *end;
	SrcLoc at = lit;
	int line = 1;

	if (!f || !f->text || lit.line < 1)
		return lit;
	p = f->text;
	end = f->text + f->len;
	while (line < lit.line && p < end) {
		if (*p++ == '\n')
			line++;
	}
	p += lit.col - 1;
	if (p >= end || *p != '"')
		return lit;
	p++;
	at.col++;
	for (int k = 0; k < pos; k++) {
		int n = 1;
		if (p >= end || *p == '"' || *p == '\n')
			return lit;
		if (*p == '\\') {
			if (p + 1 >= end || p[1] == '\n')
				return lit;
			n = 2;
			if (p[1] == 'x') {
				while (n < 4 && p + n < end && strchr("0123456789abcdefABCDEF", p[n]) && p[n])
					n++;
			} else if (p[1] >= '0' && p[1] <= '7') {
				while (n < 4 && p + n < end && p[n] >= '0' && p[n] <= '7')
					n++;
			}
		}
		p += n;
		at.col += n;
	}
	return at;
}

int rx_check(Diag *d, const char *pattern, SrcLoc lit)
{
	RxProgram prog;
	char msg[160];
	int pos;

	if (!rx_compile(pattern, &prog, &pos, msg, sizeof msg)) {
		rx_free(&prog);
		return 0;
	}
	diag_at(d, pattern_loc(lit, pos), "semantic error", "regex compilation error (at position %d): %s", pos, msg);
	return 1;
}
