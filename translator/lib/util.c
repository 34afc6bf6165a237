/* util.c - checked allocation, string buffers, vectors and path helpers.
 * Used by every translator pass. */
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void out_of_memory(void)
{
	fputs("stap: error: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	StrBuf sb;
	va_list ap;

	sb_init(&sb);
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	return sb_steal(&sb);
}

void sb_init(StrBuf *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->data = xmalloc(sb->cap);
	sb->data[0] = 0;
}

void sb_free(StrBuf *sb)
{
	free(sb->data);
	sb->data = NULL;
	sb->len = sb->cap = 0;
}

static void sb_reserve(StrBuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	while (sb->len + extra + 1 > sb->cap)
		sb->cap *= 2;
	sb->data = xrealloc(sb->data, sb->cap);
}

void sb_putn(StrBuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = 0;
}

void sb_putc(StrBuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_puts(StrBuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap)
{
	va_list copy;
	size_t room = sb->cap - sb->len;
	int n;

	/* format straight into the free space; again only when it did not fit */
	va_copy(copy, ap);
	n = vsnprintf(sb->data + sb->len, room, fmt, copy);
	va_end(copy);
	if (n < 0) {
		sb->data[sb->len] = 0;
		return;
	}
	if ((size_t)n >= room) {
		sb_reserve(sb, (size_t)n);
		vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

char *sb_steal(StrBuf *sb)
{
	char *s = sb->data;
	sb->data = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void emit_c_string(StrBuf *out, const char *s)
{
	sb_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sb_printf(out, "\\%c", c);
		else if (c == '\n')
			sb_puts(out, "\\n");
		else if (c == '\t')
			sb_puts(out, "\\t");
		else if (c < 32 || c >= 127 || c == '?')   /* '?' avoids trigraphs */
			sb_printf(out, "\\%03o", c);
		else
			sb_putc(out, (char)c);
	}
	sb_putc(out, '"');
}

void vec_push(PtrVec *v, void *item)
{
	if (v->len == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->items = xrealloc(v->items, (size_t)v->cap * sizeof(void *));
	}
	v->items[v->len++] = item;
}

char *read_file(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	StrBuf sb;
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	sb_init(&sb);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_putn(&sb, chunk, n);
	if (ferror(f)) {
		int saved = errno;
		fclose(f);
		sb_free(&sb);
		errno = saved;
		return NULL;
	}
	fclose(f);
	if (len_out)
		*len_out = sb.len;
	return sb_steal(&sb);
}

int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	int saved;

	if (!f)
		return -1;
	if (fwrite(data, 1, len, f) != len) {
		saved = errno;
		fclose(f);
		errno = saved;
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool dir_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

char *self_exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	buf[n] = 0;
	slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
	return xstrdup(buf);
}

double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- string-keyed hash map ---- */

static unsigned long hash_str(const char *s)
{
	unsigned long h = 1469598103934665603UL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

void **strmap_slot(StrMap *m, const char *key, int create)
{
	if (create && (m->len + 1) * 2 > m->cap) {
		StrMap bigger = { .cap = m->cap ? m->cap * 2 : 64 };
		bigger.keys = xcalloc((size_t)bigger.cap, sizeof *bigger.keys);
		bigger.values = xcalloc((size_t)bigger.cap, sizeof *bigger.values);
		for (int i = 0; i < m->cap; i++)
			if (m->keys[i])
				*strmap_slot(&bigger, m->keys[i], 1) = m->values[i];
		free(m->keys);
		free(m->values);
		*m = bigger;
	}
	if (!m->cap)
		return NULL;
	for (unsigned long i = hash_str(key) & (unsigned long)(m->cap - 1);; i = (i + 1) & (unsigned long)(m->cap - 1)) {
		if (!m->keys[i]) {
			if (!create)
				return NULL;
			m->keys[i] = (char *)key;
			m->len++;
			return &m->values[i];
		}
		if (!strcmp(m->keys[i], key))
			return &m->values[i];
	}
}

void *strmap_get(const StrMap *m, const char *key)
{
	void **slot = strmap_slot((StrMap *)m, key, 0);
	return slot ? *slot : NULL;
}

void strmap_put(StrMap *m, const char *key, void *value)
{
	*strmap_slot(m, key, 1) = value;
}
