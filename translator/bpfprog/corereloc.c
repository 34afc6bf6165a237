/* corereloc.c - what a BPF object's bodies find at load rather than as its release had it: the offsets of the
 * members they step into (CO-RE, through local copies of their holders) and the kernel's globals (__ksym). */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "targets/access.h"

#include <string.h>

/* The C type name of holder ("struct file") in the object's copies: "struct file___stp" (libbpf matches a
 * copy by the name before its last "___"). */
static char *copy_name(const char *holder)
{
	return xasprintf("%s___stp", holder);
}

/* Whether BPF's relocations reach m: a named holder of the kernel image (a module's types are in the running
 * kernel's BTF only while it is loaded, and a load fails on a relocation it cannot resolve), a member type
 * they compare, no "___" in the names (the copy's suffix must be the last). */
static int relocatable(const TgStepMember *m)
{
	return m->holder && m->in_image && m->shape.kind != TGSH_OTHER && !strstr(m->holder, "___") &&
	       (m->shape.kind != TGSH_ENUM || !m->shape.tag || !strstr(m->shape.tag, "___")) &&
	       (m->shape.kind != TGSH_INT || m->shape.size == 1 || m->shape.size == 2 || m->shape.size == 4 ||
		m->shape.size == 8) &&
	       (m->shape.kind != TGSH_FLOAT || m->shape.size == 4 || m->shape.size == 8);
}

static int same_shape(const TgShape *a, const TgShape *b)
{
	return a->kind == b->kind && a->size == b->size && a->count == b->count &&
	       !strcmp(a->tag ? a->tag : "", b->tag ? b->tag : "");
}

/* The member of the same holder and name already copied; *clash when it is another type (two holders
 * of one name, from different files: neither is relocated). */
static const TgStepMember *copied(const PtrVec *members, const TgStepMember *m, int *clash)
{
	for (int i = 0; i < members->len; i++) {
		const TgStepMember *o = members->items[i];
		if (!strcmp(o->holder, m->holder) && !strcmp(o->name, m->name)) {
			*clash = !same_shape(&o->shape, &m->shape);
			return o;
		}
	}
	*clash = 0;
	return NULL;
}

char *bpf_member_offset(Gen *g, const TgStep *st)
{
	PtrVec *members = &g->cg->layout.members;
	StrBuf sb;
	int64_t rest = st->n;
	int clash;

	for (int i = 0; i < st->members.len; i++) {
		const TgStepMember *m = st->members.items[i];
		if (!relocatable(m) || (copied(members, m, &clash), clash))
			return NULL;
	}
	sb_init(&sb);
	sb_putc(&sb, '(');
	for (int i = 0; i < st->members.len; i++) {
		TgStepMember *m = st->members.items[i];
		char *copy = copy_name(m->holder);
		if (!copied(members, m, &clash))
			vec_push(members, m);
		sb_printf(&sb, "%sSTP_CORE_OFFSET(%s, %s)", i ? " + " : "", copy, m->name);
		rest -= m->offset;
		free(copy);
	}
	if (rest)
		sb_printf(&sb, " + %lldL", (long long)rest);
	sb_putc(&sb, ')');
	return sb.data;
}

char *bpf_symbol_address(Gen *g, const TgAccess *a)
{
	StrMap *symbols = &g->cg->layout.symbols;

	strmap_put(symbols, a->sym_name, a->sym_name);
	return xasprintf("((unsigned long)&%s)", a->sym_name);
}

/* A member's declaration in its holder's copy: a type BPF's relocations find compatible (any integer, any
 * pointer, any struct or union, the enumeration of the same name, arrays of those). */
static void write_member(const TgStepMember *m, int n, StrBuf *out)
{
	static const char *const ints[] = { [1] = "__u8", [2] = "__u16", [4] = "__u32", [8] = "__u64" };
	const TgShape *sh = &m->shape;

	switch (sh->kind) {
	case TGSH_INT:
		sb_printf(out, "\t%s %s", ints[sh->size], m->name);
		break;
	case TGSH_FLOAT:
		sb_printf(out, "\t%s %s", sh->size == 4 ? "float" : "double", m->name);
		break;
	case TGSH_PTR:
		sb_printf(out, "\tvoid *%s", m->name);
		break;
	case TGSH_COMPOSITE:
		sb_printf(out, "\tstruct { char stp_opaque; } %s", m->name);
		break;
	case TGSH_ENUM:
		if (sh->tag)
			sb_printf(out, "\tenum %s___stp %s", sh->tag, m->name);
		else
			sb_printf(out, "\tenum { stp_core_anon_%d } %s", n, m->name);   /* n: unique in the file */
		break;
	case TGSH_OTHER:
		return;
	}
	if (sh->count)
		sb_printf(out, "[%lld]", (long long)(sh->count > 0 ? sh->count : 0));
	sb_puts(out, ";\n");
}

void bpf_write_core_copies(Session *s, StrBuf *out)
{
	const PtrVec *members = &s->cg->layout.members;
	StrMap done = { 0 };

	const StrMap *symbols = &s->cg->layout.symbols;

	if (symbols->len)
		sb_puts(out, "/* the kernel's globals the bodies read, their addresses libbpf finds in /proc/kallsyms at load */\n");
	for (int i = 0; i < symbols->cap; i++)
		if (symbols->keys[i])
			sb_printf(out, "extern const void %s __ksym;\n", symbols->keys[i]);
	if (symbols->len)
		sb_puts(out, "\n");
	if (!members->len)
		return;
	sb_puts(out, "/* the holders of the members the bodies step into, as far as they use them: their offsets are\n"
		     " * relocated at load to the running kernel's (STP_CORE_OFFSET) */\n");
	for (int i = 0; i < members->len; i++) {
		const TgStepMember *m = members->items[i];
		if (m->shape.kind == TGSH_ENUM && m->shape.tag && !strmap_get(&done, m->shape.tag)) {
			strmap_put(&done, m->shape.tag, (void *)m);
			sb_printf(out, "enum %s___stp { stp_core_enum_%s };\n", m->shape.tag, m->shape.tag);
		}
	}
	for (int i = 0; i < members->len; i++) {
		const TgStepMember *m = members->items[i];
		char *copy = copy_name(m->holder);
		void **slot = strmap_slot(&done, copy, 1);
		if (*slot) {
			free(copy);
			continue;
		}
		*slot = copy;
		sb_printf(out, "%s {\n", copy);
		for (int j = i; j < members->len; j++) {
			const TgStepMember *o = members->items[j];
			if (!strcmp(o->holder, m->holder))
				write_member(o, j, out);
		}
		sb_puts(out, "} __attribute__((preserve_access_index));\n");
	}
	sb_puts(out, "\n");
	for (int i = 0; i < done.cap; i++)
		if (done.keys && done.keys[i] && strstr(done.keys[i], "___stp"))
			free(done.keys[i]);
	free(done.keys);
	free(done.values);
}
