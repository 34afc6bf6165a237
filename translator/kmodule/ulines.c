/* ulines.c - the module's line tables (address -> file and line) of the user-space modules usyms.c
 * embeds, when a used function asks for them (pragma:ulines: usymfileline...); read by runtime/core/ustack.h. */
#include "kmodule/ulines.h"
#include "dwarf/lines.h"
#include <stdlib.h>
#include <string.h>

int ulines_needed(Session *s)
{
	for (int i = 0; i < s->prog.functions.len; i++) {
		Function *f = s->prog.functions.items[i];
		if (f->embedded && strstr(f->embedded, "pragma:ulines"))
			return 1;
	}
	return 0;
}

/* The offset of name in l->files, added when new; last caches the previous row's (rows of one
 * file come in runs). */
static unsigned int file_offset(ULines *l, const char *name, const char **last_name, unsigned int *last_off)
{
	size_t off = 0;

	if (*last_name && !strcmp(*last_name, name))
		return *last_off;
	while (off < l->files.len) {
		if (!strcmp(l->files.data + off, name))
			break;
		off += strlen(l->files.data + off) + 1;
	}
	if (off >= l->files.len) {
		off = l->files.len;
		sb_puts(&l->files, name);
		sb_putc(&l->files, 0);
	}
	*last_name = name;
	*last_off = (unsigned int)off;
	return (unsigned int)off;
}

static void add_row(ULines *l, uint64_t addr, unsigned int line, unsigned int file)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->rows = xrealloc(l->rows, l->cap * sizeof *l->rows);
	}
	l->rows[l->n++] = (ULine){ addr, line, file };
}

/* a row and its place in the table, sorted by address; at one address the end of a sequence
 * before the rows that start one, then in table order */
typedef struct Sorted {
	ULine r;
	size_t idx;
} Sorted;

static int sorted_cmp(const void *a, const void *b)
{
	const Sorted *x = a, *y = b;

	if (x->r.addr != y->r.addr)
		return x->r.addr < y->r.addr ? -1 : 1;
	if ((x->r.line == 0) != (y->r.line == 0))
		return x->r.line == 0 ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* One row per address: the last of those sorted there (a sequence starting where another ends wins). */
static void sort_rows(ULines *l)
{
	Sorted *s = xmalloc((l->n ? l->n : 1) * sizeof *s);
	size_t out = 0;

	for (size_t i = 0; i < l->n; i++)
		s[i] = (Sorted){ l->rows[i], i };
	qsort(s, l->n, sizeof *s, sorted_cmp);
	for (size_t i = 0; i < l->n; i++) {
		if (out && l->rows[out - 1].addr == s[i].r.addr)
			out--;
		l->rows[out++] = s[i].r;
	}
	free(s);
	l->n = out;
}

/* a row of the table (dwarf/lines.c); the file offsets of one CU's rows come in runs */
typedef struct Reader {
	ULines *l;
	const char *last_name;
	unsigned int last_off;
} Reader;

static void read_row(void *ctx, uint64_t addr, const char *file, int line)
{
	Reader *r = ctx;

	if (!file)
		add_row(r->l, addr, 0, 0);
	else
		add_row(r->l, addr, (unsigned int)line, file_offset(r->l, file, &r->last_name, &r->last_off));
}

void ulines_read(ULines *l, Elf *elf)
{
	Reader r = { .l = l };

	if (!l->files.data)
		sb_init(&l->files);
	dw_line_rows(elf, read_row, &r);
	sort_rows(l);
}

void ulines_emit(StrBuf *out, const ULines *l, int k)
{
	if (!l->n)
		return;
	sb_printf(out, "static const struct stp_uline stp_umod%d_lines[] = {\n", k);
	for (size_t i = 0; i < l->n; i++)
		sb_printf(out, "{%#llxUL,%u,%u},\n", (unsigned long long)l->rows[i].addr, l->rows[i].line,
			  l->rows[i].file);
	sb_printf(out, "};\nstatic const char stp_umod%d_lfiles[%zu] = {", k, l->files.len + 1);
	for (size_t i = 0; i < l->files.len; i++)
		sb_printf(out, "%s%u", !i ? "\n" : i % 32 ? "," : ",\n", (unsigned char)l->files.data[i]);
	sb_puts(out, l->files.len ? ",0\n};\n" : "0 };\n");
}

void ulines_emit_fields(StrBuf *out, const ULines *l, int k)
{
	if (l->n)
		sb_printf(out, ", .lines = stp_umod%d_lines, .nlines = %zu, .lfiles = stp_umod%d_lfiles", k, l->n, k);
}

void ulines_free(ULines *l)
{
	free(l->rows);
	sb_free(&l->files);
	memset(l, 0, sizeof *l);
}
