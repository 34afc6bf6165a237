/* util.h - small helpers shared by every translator pass: checked allocation,
 * growable strings and vectors, path helpers. */
#ifndef STAP_UTIL_H
#define STAP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable NUL-terminated string buffer. */
typedef struct StrBuf {
	char *data;
	size_t len, cap;
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
char *sb_steal(StrBuf *sb);
/* s as a C string literal (quotes, escapes; octal for the rest, '?' too against trigraphs) */
void emit_c_string(StrBuf *out, const char *s);

/* A growable array of pointers. */
typedef struct PtrVec {
	void **items;
	int len, cap;
} PtrVec;

void vec_push(PtrVec *v, void *item);

/* A string-keyed hash map; keys are not copied and must outlive the map. */
typedef struct StrMap {
	char **keys;
	void **values;
	int len, cap;        /* cap is 0 or a power of two */
} StrMap;

void **strmap_slot(StrMap *m, const char *key, int create);  /* NULL if absent and !create */
void *strmap_get(const StrMap *m, const char *key);
void strmap_put(StrMap *m, const char *key, void *value);

/* Files and paths. */
char *read_file(const char *path, size_t *len_out);   /* NULL + errno on failure */
int write_file(const char *path, const void *data, size_t len);   /* created or truncated: 0, or -1 + errno */
bool file_exists(const char *path);
bool dir_exists(const char *path);
char *path_join(const char *dir, const char *name);
char *self_exe_dir(void);                              /* directory of /proc/self/exe */
double now_ms(void);                                   /* monotonic clock, milliseconds */

#endif
