/* sdt.c - SDT markers: process("PATH").mark("NAME") and process("PATH").provider("P").mark("NAME"), read
 * from the binary's .note.stapsdt notes (pass 2), with $argN/$$name/$$provider/$$parms, and their C table (pass 3). */
#include "providers/provider.h"
#include "elaborate/pointmatch.h"
#include "image/elffile.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SDT_NOTE_TYPE 3         /* the stapsdt note's n_type (version 3: 8-byte pc, base, semaphore) */
#define SDT_MAX_ARGS 12

/* One operand of a marker's argument string, as the runtime's stp_sdt_arg() takes it. */
typedef struct SdtArg {
	int kind;                   /* 0: constant (disp); 1: register; 2: memory at reg + disp + idx * scale */
	int size;                   /* bytes, negative when signed (the N of "N@") */
	const char *reg, *idx;      /* pt_regs member names; NULL: none */
	int shift;                  /* 8 for %ah and friends */
	int64_t disp;
	int scale;
} SdtArg;

typedef struct SdtMark {
	char *path;                 /* the probed file */
	char *provider, *name, *args;
	uint64_t offset;            /* of the marker's instruction in the file */
	uint64_t sem_offset;        /* of its semaphore in the file; 0: none */
	int nargs;
	SdtArg arg[SDT_MAX_ARGS];
	const char *build_id;       /* bytes, in the form of a C string literal's body; NULL: none */
	uint64_t build_id_offset;
	size_t build_id_len;
	int64_t pid;                /* process(PID).mark: only that process; 0: any */
} SdtMark;

/* ---- operands ----------------------------------------------------------------------------------- */

/* An x86-64 register name (without %) as a pt_regs member, its width in bytes and bit shift. */
static const char *reg_member(const char *r, int *width, int *shift)
{
	static const struct { const char *n64, *n32, *n16, *n8, *member; } regs[] = {
		{ "rax", "eax", "ax", "al", "ax" }, { "rbx", "ebx", "bx", "bl", "bx" },
		{ "rcx", "ecx", "cx", "cl", "cx" }, { "rdx", "edx", "dx", "dl", "dx" },
		{ "rsi", "esi", "si", "sil", "si" }, { "rdi", "edi", "di", "dil", "di" },
		{ "rbp", "ebp", "bp", "bpl", "bp" }, { "rsp", "esp", "sp", "spl", "sp" },
		{ "rip", "eip", "ip", NULL, "ip" },
	};
	static const char *const high[] = { "ah", "bh", "ch", "dh" };
	*shift = 0;
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		const char *n[4] = { regs[i].n64, regs[i].n32, regs[i].n16, regs[i].n8 };
		for (int k = 0; k < 4; k++)
			if (n[k] && !strcmp(r, n[k])) {
				*width = 8 >> k;
				return regs[i].member;
			}
	}
	for (int i = 0; i < 4; i++)
		if (!strcmp(r, high[i])) {
			*width = 1;
			*shift = 8;
			return regs[i].member;
		}
	if (r[0] == 'r' && r[1] >= '0' && r[1] <= '9') {
		static const char *const members[] = { "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
		char *end;
		long n = strtol(r + 1, &end, 10);
		if (n < 8 || n > 15)
			return NULL;
		*width = !*end ? 8 : !strcmp(end, "d") ? 4 : !strcmp(end, "w") ? 2 : !strcmp(end, "b") ? 1 : 0;
		return *width ? members[n - 8] : NULL;
	}
	return NULL;
}

/* "%reg" at *p: its member, *p past it; NULL when it is not one. */
static const char *parse_reg(const char **p, int *width, int *shift)
{
	char name[8];
	size_t n = 0;

	if (**p != '%')
		return NULL;
	(*p)++;
	while (n < sizeof name - 1 && ((**p >= 'a' && **p <= 'z') || (**p >= '0' && **p <= '9')))
		name[n++] = *(*p)++;
	name[n] = 0;
	return reg_member(name, width, shift);
}

/* One operand "[N@]OPERAND": 0, or -1 when it is of a form not supported (rip-relative symbols). */
static int parse_operand(const char *text, SdtArg *a)
{
	const char *p = text, *at = strchr(text, '@');
	char *end;
	int width = 8;

	memset(a, 0, sizeof *a);
	a->size = -8;
	if (at) {
		long n = strtol(text, &end, 10);
		if (end == at && n != 0 && labs(n) <= 8) {
			a->size = (int)n;
			p = at + 1;
		}
	}
	if (*p == '$') {
		a->kind = 0;
		a->disp = strtoll(p + 1, &end, 0);
		return *end ? -1 : 0;
	}
	if (*p == '%') {
		a->kind = 1;
		a->reg = parse_reg(&p, &width, &a->shift);
		if (!at && a->reg)
			a->size = width;   /* no size given: the register's width, unsigned */
		return a->reg && !*p ? 0 : -1;
	}
	a->kind = 2;
	if (*p != '(') {
		a->disp = strtoll(p, &end, 0);
		if (end == p)
			return -1;
		p = end;
	}
	if (*p++ != '(')
		return -1;
	a->reg = parse_reg(&p, &width, &a->shift);
	if (!a->reg || !strcmp(a->reg, "ip") || a->shift)
		return -1;
	if (*p == ',') {
		p++;
		a->idx = parse_reg(&p, &width, &a->shift);
		if (!a->idx || a->shift)
			return -1;
		a->scale = 1;
		if (*p == ',') {
			a->scale = (int)strtol(p + 1, &end, 10);
			p = end;
		}
	}
	return *p == ')' && !p[1] ? 0 : -1;
}

/* The C expression of operand a's value in a handler. */
static char *arg_read(const SdtArg *a)
{
	return xasprintf("stp_sdt_arg(c, %d, %d, %s%s%s, %d, %" PRId64 "LL, %s%s%s, %d)", a->kind, a->size,
			 a->reg ? "offsetof(struct pt_regs, " : "", a->reg ? a->reg : "-1", a->reg ? ")" : "", a->shift,
			 a->disp, a->idx ? "offsetof(struct pt_regs, " : "", a->idx ? a->idx : "-1", a->idx ? ")" : "",
			 a->scale);
}

/* ---- the notes ---------------------------------------------------------------------------------- */

/* The file offset of link-time address addr in a PT_LOAD segment (executable ones when exec). */
static int addr_to_offset(Elf *elf, uint64_t addr, int exec, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || (exec && !(ph.p_flags & PF_X)))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

static int note_u64(const char *d, size_t len, size_t at, uint64_t *v)
{
	if (at + 8 > len)
		return -1;
	memcpy(v, d + at, 8);
	return 0;
}

/* Every marker of the file at path onto out (SdtMark*); -1 with *why set when it cannot be read. */
static int read_marks(const char *path, PtrVec *out, char **why)
{
	Elf *elf;
	int fd, rc = elffile_open(path, ELFFILE_CLASS64, &fd, &elf);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t base_addr = 0;
	int have_base = 0;
	Elf_Data *notes = NULL;
	char *build_id = NULL;
	uint64_t build_id_offset = 0;
	size_t build_id_len = 0;

	if (rc == ELFFILE_NOFILE) {
		*why = xasprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (rc != ELFFILE_OK || elf_getshdrstrndx(elf, &shstrndx)) {
		*why = xasprintf("%s is not a 64-bit ELF file", path);
		elffile_close(elf, fd);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".stapsdt.base")) {
			base_addr = sh.sh_addr;
			have_base = 1;
		} else if (!strcmp(name, ".note.stapsdt") && sh.sh_type == SHT_NOTE) {
			notes = elf_getdata(scn, NULL);
		} else if (!strcmp(name, ".note.gnu.build-id") && sh.sh_type == SHT_NOTE && !build_id) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Nhdr nh;
			size_t name_at, desc_at;
			if (d && gelf_getnote(d, 0, &nh, &name_at, &desc_at) > 0 && nh.n_type == NT_GNU_BUILD_ID &&
			    nh.n_descsz > 0 && nh.n_descsz <= 64) {
				StrBuf sb;
				sb_init(&sb);
				for (size_t b = 0; b < nh.n_descsz; b++)
					sb_printf(&sb, "\\x%02x", ((const unsigned char *)d->d_buf)[desc_at + b]);
				build_id = sb_steal(&sb);
				build_id_offset = sh.sh_offset + desc_at;
				build_id_len = nh.n_descsz;
			}
		}
	}
	if (notes) {
		GElf_Nhdr nh;
		size_t at = 0, name_at, desc_at;
		while ((at = gelf_getnote(notes, at, &nh, &name_at, &desc_at)) > 0) {
			const char *d = (const char *)notes->d_buf + desc_at, *prov, *nm, *args;
			uint64_t pc, base, sem;
			SdtMark *m;
			char *copy, *save = NULL;
			if (nh.n_type != SDT_NOTE_TYPE || nh.n_namesz != 8 ||
			    memcmp((const char *)notes->d_buf + name_at, "stapsdt", 8) ||
			    note_u64(d, nh.n_descsz, 0, &pc) || note_u64(d, nh.n_descsz, 8, &base) ||
			    note_u64(d, nh.n_descsz, 16, &sem) || nh.n_descsz < 27 || d[nh.n_descsz - 1])
				continue;
			prov = d + 24;
			nm = prov + strlen(prov) + 1;
			args = nm < d + nh.n_descsz ? nm + strlen(nm) + 1 : d + nh.n_descsz - 1;
			if (args >= d + nh.n_descsz)
				args = d + nh.n_descsz - 1;
			/* prelinked or otherwise moved: the note's base against where .stapsdt.base is now */
			if (have_base) {
				pc += base_addr - base;
				if (sem)
					sem += base_addr - base;
			}
			m = xcalloc(1, sizeof *m);
			m->path = xstrdup(path);
			m->provider = xstrdup(prov);
			m->name = xstrdup(nm);
			m->args = xstrdup(args);
			m->build_id = build_id;
			m->build_id_offset = build_id_offset;
			m->build_id_len = build_id_len;
			if (addr_to_offset(elf, pc, 1, &m->offset) || (sem && addr_to_offset(elf, sem, 0, &m->sem_offset))) {
				free(m);
				continue;
			}
			copy = xstrdup(args);
			for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
				if (m->nargs == SDT_MAX_ARGS)
					break;
				if (parse_operand(w, &m->arg[m->nargs]) != 0)
					m->arg[m->nargs].kind = -1;   /* unsupported: reading it is an error */
				m->nargs++;
			}
			free(copy);
			vec_push(out, m);
		}
	}
	elf_end(elf);
	close(fd);
	return 0;
}

/* ---- resolution ---------------------------------------------------------------------------------- */

static int resolve_sdt(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *c1 = pp_component(pp, 1), *cm = c1;
	const char *prov_pat = NULL;
	char *why = NULL, *path, *name_pat;
	PtrVec found = { 0 };
	int before = out->len;

	(void)s;
	if (!c0->arg || (c0->arg->kind != EX_STRING && c0->arg->kind != EX_NUMBER)) {
		diag_at(&s->diag, c0->loc, "semantic error", "SDT markers need process(\"PATH\").mark(\"NAME\") or process(PID).mark(\"NAME\")");
		return -1;
	}
	if (c1 && c1->name && !strcmp(c1->name, "provider")) {
		if (!c1->arg || c1->arg->kind != EX_STRING) {
			diag_at(&s->diag, c1->loc, "semantic error", "process(\"PATH\").provider needs a provider name");
			return -1;
		}
		prov_pat = c1->arg->str;
		cm = pp_component(pp, 2);
	}
	if (!cm || !cm->name || strcmp(cm->name, "mark") || !cm->arg || cm->arg->kind != EX_STRING) {
		diag_at(&s->diag, cm ? cm->loc : c1->loc, "semantic error", "expected .mark(\"NAME\") after process(\"PATH\")%s",
			prov_pat ? ".provider(\"P\")" : "");
		return -1;
	}
	if (pp->components.len > (prov_pat ? 3 : 2)) {
		const ProbePointComponent *c = pp_component(pp, prov_pat ? 3 : 2);
		diag_at(&s->diag, c->loc, "semantic error", "unknown probe point component '%s' after .mark(...)",
			c->name ? c->name : "{...}");
		return -1;
	}
	path = process_point_path(s, c0);
	if (!path)
		return -1;
	if (read_marks(path, &found, &why) != 0) {
		diag_at(&s->diag, c0->arg->loc, "semantic error", "%s", why);
		return -1;
	}
	name_pat = xmalloc(2 * strlen(cm->arg->str) + 1);
	{
		char *o = name_pat;
		for (const char *p = cm->arg->str; *p; p++) {
			if (*p == '-') {
				*o++ = '_';
				*o++ = '_';
			} else {
				*o++ = *p;
			}
		}
		*o = 0;
	}
	for (int i = 0; i < found.len; i++) {
		SdtMark *m = found.items[i];
		DerivedProbe *dp;
		char *name;
		/* globs; a '-' in the pattern stands for the "__" that dtrace-style names become */
		if (fnmatch(name_pat, m->name, 0) != 0)
			continue;
		if (prov_pat && fnmatch(prov_pat, m->provider, 0) != 0)
			continue;
		if (c0->arg->kind == EX_NUMBER) {
			m->pid = c0->arg->num;
			name = xasprintf("process(%" PRId64 ").provider(\"%s\").mark(\"%s\")", m->pid, m->provider, m->name);
		} else {
			name = xasprintf("process(\"%s\").provider(\"%s\").mark(\"%s\")", path, m->provider, m->name);
		}
		dp = provider_derive(tmpl, name, tmpl->site, out);
		dp->provider = &sdt_provider;
		dp->data = m;
	}
	if (out->len > before)
		return out->len - before;
	if (has_wildcard(cm->arg->str) || (prov_pat && has_wildcard(prov_pat)))
		return 0;
	diag_at(&s->diag, cm->arg->loc, "semantic error", "no SDT marker '%s'%s%s%s in %s", cm->arg->str,
		prov_pat ? " of provider '" : "", prov_pat ? prov_pat : "", prov_pat ? "'" : "", path);
	return -1;
}

/* ---- context variables ---------------------------------------------------------------------------- */

static const char *const sdt_context_vars[] = {
	"$$name", "$$provider", "$$parms", "$arg1", "$arg2", "$arg3", "$arg4", "$arg5", "$arg6",
	"$arg7", "$arg8", "$arg9", "$arg10", "$arg11", "$arg12", NULL,
};

static const ContextVar *sdt_context_var(Session *s, const DerivedProbe *dp, const char *name)
{
	const SdtMark *m = dp->data;
	ContextVar *cv;
	StrBuf sb;

	(void)s;
	cv = xcalloc(1, sizeof *cv);
	cv->name = xstrdup(name);
	sb_init(&sb);
	if (!strcmp(name, "$$name") || !strcmp(name, "$$provider")) {
		cv->type = TY_STRING;
		emit_c_string(&sb, name[2] == 'n' ? m->name : m->provider);
	} else if (!strcmp(name, "$$parms")) {
		cv->type = TY_STRING;
		sb_printf(&sb, "stp_sdt_parms(c, %d, (const int64_t[]){ 0", m->nargs);
		for (int i = 0; i < m->nargs; i++)
			sb_printf(&sb, ", %s", arg_read(&m->arg[i]));
		sb_puts(&sb, " })");
	} else if (!strncmp(name, "$arg", 4) && name[4] >= '1' && name[4] <= '9') {
		char *end;
		long n = strtol(name + 4, &end, 10);
		if (*end || n < 1 || n > m->nargs) {
			sb_free(&sb);
			free(cv);
			return NULL;
		}
		cv->type = TY_LONG;
		sb_puts(&sb, arg_read(&m->arg[n - 1]));
	} else {
		sb_free(&sb);
		free(cv);
		return NULL;
	}
	cv->read = sb_steal(&sb);
	return cv;
}

/* ---- pass 3 -------------------------------------------------------------------------------------- */

static void emit_sdt(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	PtrVec files = { 0 };

	(void)s;
	for (int i = 0; i < n; i++) {
		const SdtMark *m = dps[i]->data;
		int k;
		for (k = 0; k < files.len && strcmp(((SdtMark *)files.items[k])->path, m->path); k++)
			;
		if (k == files.len)
			vec_push(&files, (void *)m);
	}
	sb_puts(out, "static struct stp_uprobe_file stp_sdt_files[] = {\n");
	for (int k = 0; k < files.len; k++) {
		const SdtMark *m = files.items[k];
		sb_puts(out, "\t{ .path = ");
		emit_c_string(out, m->path);
		if (m->build_id)
			sb_printf(out, ", .build_id_offset = 0x%" PRIx64 "ULL, .build_id_len = %zu, .build_id = \"%s\"",
				  m->build_id_offset, m->build_id_len, m->build_id);
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	/* a handler per marker probe, as for process(...).function (runtime/probes/uprobes.c) */
	for (int i = 0; i < n; i++)
		sb_printf(out, "STP_UPROBE_TRAMPOLINE(%d)\n", dps[i]->index);
	sb_puts(out, "static struct stp_uprobe stp_sdt_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *dp = dps[i];
		const SdtMark *m = dp->data;
		int k;
		for (k = 0; strcmp(((SdtMark *)files.items[k])->path, m->path); k++)
			;
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .file = &stp_sdt_files[%d], .offset = 0x%" PRIx64 "ULL",
			  dp->index, k, m->offset);
		sb_printf(out, ", .hit = stp_uprobe_hit_%d", dp->index);
		if (m->sem_offset)
			sb_printf(out, ", .ref_ctr_offset = 0x%" PRIx64 "ULL", m->sem_offset);
		if (m->pid > 0)
			sb_printf(out, ", .pid = %" PRId64, m->pid);
		if (dp->optional)
			sb_puts(out, ", .optional = 1");
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_FAMILY(sdt, stp_uprobe_start, stp_uprobe_stop, stp_sdt_probes)\n\n");
	free(files.items);
}

static const char *const sdt_forms[] = {
	"process(number).mark(string)",
	"process(number).provider(string).mark(string)",
	"process(string).mark(string)",
	"process(string).provider(string).mark(string)",
	NULL,
};

/* Registered for process(...).mark; process(...).provider(...) reaches it through registry.c's
 * also_members. */
/* the marker's instruction, with its semaphore counted while the probe is armed */
static int sdt_place(const DerivedProbe *dp, ProbePlace *at)
{
	const SdtMark *m = dp->data;

	*at = (ProbePlace){ .path = m->path, .offset = m->offset, .sem_offset = m->sem_offset, .pid = m->pid };
	return 1;
}

const ProbeProvider sdt_provider = { .family = "process", .member = "mark", .cname = "sdt",
				     .resolve_many = resolve_sdt, .runtime = "probes/sdt.c", .emit = emit_sdt,
				     .forms = sdt_forms, .context_var = sdt_context_var, .context_vars = sdt_context_vars,
				     .place = sdt_place };
