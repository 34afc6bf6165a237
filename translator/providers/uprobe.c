/* uprobe.c - the "process" family: process("PATH").function("PATTERN") and its .call/.return, resolved
 * against the DWARF of a user binary to uprobes at a file offset (pass 2), and their C table (pass 3). */
#include "providers/provider.h"
#include "providers/dwarfpoint.h"
#include "providers/labels.h"
#include "providers/uprobe_elf.h"
#include "dwarf/dwarf.h"
#include "dwarf/userfile.h"
#include "image/elffile.h"
#include "dwarf/dwvars.h"
#include "elaborate/pointmatch.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the binary -------------------------------------------------------------------------------- */

/* PATH as SystemTap finds it: a name with a '/' relative to the working directory, a bare name
 * through $PATH; then every symbolic link resolved, since the kernel probes the file itself.
 * NULL with *why set when there is no such executable file. */
char *find_executable(const char *arg, char **why)
{
	char buf[PATH_MAX], *real;
	struct stat st;

	if (!*arg) {
		*why = xstrdup("empty path");
		return NULL;
	}
	if (strchr(arg, '/')) {
		real = realpath(arg, NULL);
		if (!real) {
			*why = xasprintf("%s: %s", arg, strerror(errno));
			return NULL;
		}
	} else {
		const char *path = getenv("PATH"), *p, *end;
		real = NULL;
		for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; !real && *p; p = *end ? end + 1 : end) {
			end = strchr(p, ':');
			if (!end)
				end = p + strlen(p);
			if (end == p)
				continue;
			snprintf(buf, sizeof buf, "%.*s/%s", (int)(end - p), p, arg);
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				real = realpath(buf, NULL);
		}
		if (!real && strstr(arg, ".so"))
			real = userfile_find_soname(arg);   /* a shared library, as the loader finds it */
		if (!real) {
			*why = xasprintf("no executable '%s' in $PATH", arg);
			return NULL;
		}
	}
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = xasprintf("%s is not a regular file", real);
		free(real);
		return NULL;
	}
	return real;
}

static char *pid_executable(Session *s, const ProbePointComponent *c0);

char *process_point_path(Session *s, const ProbePointComponent *c0)
{
	char *why = NULL, *path;

	if (c0->arg->kind == EX_NUMBER)
		return pid_executable(s, c0);
	path = find_executable(c0->arg->str, &why);

	if (!path) {
		diag_at(&s->diag, c0->arg->loc, "semantic error", "process(\"%s\"): %s", c0->arg->str, why);
		free(why);
	}
	return path;
}

int process_fill_command_path(Session *s, ProbePoint *pp)
{
	ProbePointComponent *c0 = pp->components.len ? pp->components.items[0] : NULL;
	const ProbePointComponent *c1 = pp_component(pp, 1);
	const char *cmd = s->command, *end;
	char *word, *path, *why = NULL;

	if (!c0 || !c0->name || strcmp(c0->name, "process") || c0->arg || !c1 || !c1->name || !cmd ||
	    !strcmp(c1->name, "begin") || !strcmp(c1->name, "end") || !strcmp(c1->name, "thread"))
		return 0;
	if (strpbrk(cmd, "|&;<>(){}`$")) {
		diag_at(&s->diag, c0->loc, "semantic error", "process without a PATH: the program of -c '%s' cannot be told "
			"(a command with shell syntax); write process(\"PATH\")", cmd);
		return -1;
	}
	cmd += strspn(cmd, " \t");
	end = cmd + strcspn(cmd, " \t");
	word = xstrndup(cmd, (size_t)(end - cmd));
	path = *word ? find_executable(word, &why) : NULL;
	if (!path) {
		diag_at(&s->diag, c0->loc, "semantic error", "process without a PATH, from -c '%s': %s", s->command,
			why ? why : "no command");
		free(why);
		free(word);
		return -1;
	}
	free(word);
	c0->arg = expr_new(EX_STRING, c0->loc);
	c0->arg->str = path;
	return 0;
}

/* The offset in the file of link-time address pc: inside an executable PT_LOAD segment's file
 * bytes. 0 with *off set, -1 when no such segment holds it. */
static int file_offset_of(DwarfModule *m, Dwarf_Addr pc, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(m->elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(m->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (pc >= ph.p_vaddr && pc < ph.p_vaddr + ph.p_filesz) {
			*off = pc - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

/* The link-time address of file offset off in an executable PT_LOAD segment (0: in none). */
static uint64_t link_address_of(DwarfModule *m, uint64_t off)
{
	size_t n;

	if (elf_getphdrnum(m->elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    off >= ph.p_offset && off < ph.p_offset + ph.p_filesz)
			return off - ph.p_offset + ph.p_vaddr;
	}
	return 0;
}

/* Whether a variable under die (parameters, locals, nested blocks and functions) has a location
 * list: code compiled with optimization and variable tracking, whose DWARF is right at the entry. */
static int has_location_lists(Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) &&
		    dwarf_attr(&child, DW_AT_location, &a)) {
			unsigned int form = dwarf_whatform(&a);
			if (form == DW_FORM_sec_offset || form == DW_FORM_loclistx || form == DW_FORM_data4 ||
			    form == DW_FORM_data8)
				return 1;
		}
		if ((tag == DW_TAG_lexical_block || tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    has_location_lists(&child, depth + 1))
			return 1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The compile unit at cu has location lists (has_location_lists), remembered per unit. */
static int cu_optimized(DwarfModule *m, Dwarf_Die *cudie)
{
	char key[24];
	void **known;

	snprintf(key, sizeof key, "%llx", (unsigned long long)dwarf_dieoffset(cudie));
	known = strmap_slot(&m->cu_loclists, key, 1);
	if (!*known)
		*known = (void *)(uintptr_t)(1 + has_location_lists(cudie, 0));
	return (uintptr_t)*known - 1;
}

/* Where a .function probe goes in fn, which starts at entry. As SystemTap does for user code whose
 * compile unit has no location lists (unoptimized: parameters are valid only once the prologue
 * stored them): after the prologue, the row the line table marks prologue_end, else the first
 * statement row past the entry on another line than the entry's. Optimized code keeps the entry. */
static Dwarf_Addr probe_address(DwarfModule *m, Dwarf_Die *fn, Dwarf_Addr entry)
{
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	size_t n;
	int entry_line = -1;
	Dwarf_Addr marked = 0, other_line = 0, any = 0;

	if (!dwarf_diecu(fn, &cudie, NULL, NULL) || cu_optimized(m, &cudie) ||
	    dwarf_getsrclines(&cudie, &lines, &n) != 0)
		return entry;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int line;
		if (l && dwarf_lineaddr(l, &addr) == 0 && addr == entry && dwarf_lineno(l, &line) == 0 &&
		    entry_line < 0)
			entry_line = line;
	}
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int line;
		bool stmt = false, pe = false, end = false;
		if (!l || dwarf_lineaddr(l, &addr) != 0 || addr <= entry || dwarf_haspc(fn, addr) <= 0 ||
		    dwarf_lineno(l, &line) != 0)
			continue;
		dwarf_lineendsequence(l, &end);
		if (end)
			continue;
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineprologueend(l, &pe);
		if (pe && (!marked || addr < marked))
			marked = addr;
		if (stmt && line != entry_line && (!other_line || addr < other_line))
			other_line = addr;
		if (!any || addr < any)
			any = addr;
	}
	return marked ? marked : other_line ? other_line : any ? any : entry;
}

/* The CFA at pc as a register plus an offset (the usual rule of x86-64 code: rsp + 8 at an entry,
 * rbp + 16 after a frame-pointer prologue): the DWARF register, with the offset in *off; -1 when
 * the call frame information gives no such rule. */
static int cfa_rule(DwarfModule *m, Dwarf_Addr pc, int64_t *off)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	int reg = -1;

	*off = 0;
	if (!m->cfi || dwarf_cfi_addrframe(m->cfi, pc, &frame) != 0)
		return -1;
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			reg = ops[0].atom - DW_OP_breg0;
			*off = (int64_t)ops[0].number;
		} else if (ops[0].atom == DW_OP_bregx && ops[0].number < 64) {   /* libdw's form of def_cfa */
			reg = (int)ops[0].number;
			*off = (int64_t)ops[0].number2;
		}
		if (reg >= 0 && !dwloc_reg_name(reg))
			reg = -1;
	}
	free(frame);
	return reg;
}

/* Where the GNU build id of m lies in its file: its offset and length (0: the file has none). The
 * runtime reads those bytes back before arming, so a file rebuilt since is refused. */
static size_t build_id_place(DwarfModule *m, uint64_t *offset, const unsigned char **bytes)
{
	size_t n;

	if (elf_getphdrnum(m->elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t at = 0, name_at, desc_at;
		if (!gelf_getphdr(m->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(m->elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!d)
			continue;
		while ((at = gelf_getnote(d, at, &nh, &name_at, &desc_at)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_at, "GNU", 4) && nh.n_descsz > 0 && nh.n_descsz <= 64) {
				*offset = ph.p_offset + desc_at;
				*bytes = (const unsigned char *)d->d_buf + desc_at;
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* ---- resolution ---------------------------------------------------------------------------------- */

enum { UWANT_CALL = 1, UWANT_INLINE = 2 };

typedef struct UQuery {
	Session *s;
	DwarfModule *mod;
	const DerivedProbe *tmpl;
	PtrVec *out;
	Pattern pat;
	const char *family;         /* process("/abs/path") or process(PID) */
	const char *suffix;         /* ".call", ".return", ".inline", "" */
	int64_t pid;                /* process(PID): only that process */
	int want;                   /* UWANT_*: .call, .inline, both */
	int is_return, statement;
	const char *label;          /* .function("F").label("PATTERN") */
	int matched_name, matched_file, with_code, inlined, labelled;
	PtrVec skipped;             /* char*: why functions were left out */
	PtrVec nolines;             /* char*: statements with no code at the line */
} UQuery;

/* A source file as SystemTap names it in user probe points: absolute, from the compile unit's
 * directory when the DWARF gives it relative, with "." and ".." components folded. */
static char *source_path(DwarfModule *m, Dwarf_Off cu, const char *file)
{
	Dwarf_Die cudie;
	Dwarf_Attribute a;
	const char *dir = NULL;
	char *joined, *out, *o;
	const char *p;

	if (!file || !*file)
		return xstrdup("");
	if (file[0] != '/' && dwarf_offdie(m->dw, cu, &cudie))
		dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &a));
	if (file[0] == '/' || !dir || dir[0] != '/')
		return xstrdup(file);
	joined = xasprintf("%s/%s", dir, file);
	out = xmalloc(strlen(joined) + 2);
	o = out;
	for (p = joined; *p;) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > out && *--o != '/')
				;
		} else {
			*o++ = '/';
			memcpy(o, p, len);
			o += len;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	if (o == out)
		*o++ = '/';
	*o = 0;
	free(joined);
	return out;
}

/* A uprobe at pc of the binary (link-time address): its site and derived probe, named name (taken);
 * NULL after a note in q->skipped when pc lies in no executable segment. */
static DerivedProbe *user_probe(UQuery *q, char *name, Dwarf_Addr pc, const char *func)
{
	TgSite *site;
	DerivedProbe *dp;
	uint64_t off;

	if (file_offset_of(q->mod, pc, &off) != 0) {
		vec_push(&q->skipped, xasprintf("%s: address 0x%" PRIx64 " is in no executable segment of the file", func,
						(uint64_t)pc));
		free(name);
		return NULL;
	}
	site = xcalloc(1, sizeof *site);
	site->mod = q->mod;
	site->pc = pc;
	site->function = xstrdup(func);
	site->decl_file = xstrdup("");
	site->is_return = q->is_return;
	site->is_user = 1;
	site->file_offset = off;
	site->save_offset = off;
	site->cfa_reg = -1;
	dp = provider_derive(q->tmpl, name, site, q->out);
	dp->is_return = q->is_return;
	dp->number = q->pid;
	return dp;
}

/* FUNC@FILE:LINE as the probe's name shows it */
static char *user_point_name(UQuery *q, const char *what, const char *func, const char *file, int line)
{
	StrBuf name;

	sb_init(&name);
	sb_printf(&name, "%s.%s(\"%s", q->family, what, func);
	if (file && file[0]) {
		sb_printf(&name, "@%s", file);
		if (line > 0)
			sb_printf(&name, ":%d", line);
	}
	sb_printf(&name, "\")%s", q->suffix);
	return sb_steal(&name);
}

/* The out-of-line entry of n (.function, .call, .return): after the prologue in unoptimized code. */
static void function_entry_site(UQuery *q, const DwarfName *n, Dwarf_Die *die, Dwarf_Addr entry, char *file,
				int line)
{
	Dwarf_Addr pc = probe_address(q->mod, die, entry);
	DerivedProbe *dp;
	TgSite *site;
	uint64_t save;

	/* .return: the uretprobe at the entry; values at entry ($param, @entry) are read where a
	 * .call probe would read them, keyed by the CFA there (the stack pointer at the return) */
	if (file_offset_of(q->mod, pc, &save) != 0) {
		vec_push(&q->skipped, xasprintf("%s: address 0x%" PRIx64 " is in no executable segment of the file",
						n->name, (uint64_t)pc));
		return;
	}
	dp = user_probe(q, user_point_name(q, "function", n->name, file, line), q->is_return ? entry : pc, n->name);
	if (!dp)
		return;
	site = dp->site;
	site->cu = n->cu;
	site->scope = n->die;
	site->pc = pc;
	free(site->decl_file);
	site->decl_file = xstrdup(file);
	site->decl_line = line;
	site->save_offset = save;
	site->cfa_reg = cfa_rule(q->mod, pc, &site->cfa_offset);
	if (q->is_return && site->cfa_reg < 0) {
		/* no rule known there: read them at the entry, where the CFA is the stack pointer + 8 */
		site->pc = entry;
		site->save_offset = site->file_offset;
		site->cfa_reg = 7;      /* x86-64 DWARF register 7: rsp */
		site->cfa_offset = 8;
	}
}

/* .function(...).inline (or a bare .function): each inlined instance of n, at its entry address */
static void inline_sites(UQuery *q, const DwarfName *n, const char *file, int line)
{
	Instances *inst = point_inline_instances(q->mod, n->cu, n->die);

	for (int i = 0; inst && i < inst->dies.len; i++) {
		Dwarf_Off off = (Dwarf_Off)(uintptr_t)inst->dies.items[i];
		Dwarf_Die die;
		Dwarf_Addr pc;
		DerivedProbe *dp;
		if (!dwarf_offdie(q->mod->dw, off, &die) || point_die_entry_pc(&die, &pc) != 0)
			continue;
		dp = user_probe(q, user_point_name(q, "function", n->name, file, line), pc, n->name);
		if (!dp)
			continue;
		dp->site->cu = n->cu;
		dp->site->scope = off;
		dp->site->is_inline = 1;
		free(dp->site->decl_file);
		dp->site->decl_file = xstrdup(file);
		dp->site->decl_line = line;
	}
}

/* dp's site is a statement of n's scope at file:line (its variables are n's in scope there) */
static void statement_site(DerivedProbe *dp, const DwarfName *n, const char *file, int line)
{
	dp->site->cu = n->cu;
	dp->site->scope = n->die;
	dp->site->is_statement = 1;
	free(dp->site->decl_file);
	dp->site->decl_file = xstrdup(file);
	dp->site->decl_line = line;
}

/* .statement("FUNC@FILE:LINE"): a probe at the address of each line asked in n */
static void statement_sites(UQuery *q, const DwarfName *n, const DwarfNameInfo *info, const char *file)
{
	PointLine *best;
	size_t nbest = point_statement_lines_of(q->mod, n, info, &q->pat, &q->nolines, &best);

	for (size_t k = 0; k < nbest; k++) {
		DerivedProbe *dp = user_probe(q, user_point_name(q, "statement", n->name, file, best[k].line),
					      best[k].addr, n->name);
		if (dp)
			statement_site(dp, n, file, best[k].line);
	}
	free(best);
}

/* .function("F").label("PATTERN"): a probe at each matching label of n, placed as a statement */
static void label_sites(UQuery *q, const DwarfName *n, const DwarfNameInfo *info, const char *file)
{
	PointLabel *labels;
	size_t nl = point_labels_of(q->mod, n->die, q->label, &labels);
	char *base = nl ? user_point_name(q, "function", n->name, file, info->decl_line) : NULL;

	q->labelled += nl > 0;
	for (size_t k = 0; k < nl; k++) {
		DerivedProbe *dp = user_probe(q, xasprintf("%s.label(\"%s\")", base, labels[k].name), labels[k].pc, n->name);

		if (dp)
			statement_site(dp, n, file, labels[k].line);
	}
	free(base);
	point_labels_free(labels, nl);
}

/* Whether n is what a function("F@FILE:N") pattern asks for: declared at a line asked, or with code
 * of its own (not of what was inlined into it) at one. */
static int spans_lines(UQuery *q, const DwarfName *n, const DwarfNameInfo *info)
{
	PointLine *rows;
	char *why;
	size_t nrows;

	if (q->statement || (q->pat.lines != LINE_ONE && q->pat.lines != LINE_RANGE))
		return 1;
	if (info->decl_line >= q->pat.first && info->decl_line <= q->pat.last)
		return 1;
	if (!(n->flags & DWARF_NAME_HAS_PC))
		return 0;
	nrows = point_statement_lines(q->mod, n->die, n->name, &q->pat, info->decl_line, info->decl_file, &rows, &why);
	free(rows);
	free(why);
	return nrows > 0;
}

static int on_function(const DwarfName *n, void *arg)
{
	UQuery *q = arg;
	DwarfNameInfo info;
	Dwarf_Die die;
	Dwarf_Addr entry;
	char *file;

	if (n->tag != DW_TAG_subprogram)
		return 0;
	q->matched_name++;
	dwarf_name_info(q->mod, n, &info);
	/* the file as the DWARF names it (the index shortens names the kernel's way) */
	file = source_path(q->mod, n->cu, dwarf_offdie(q->mod->dw, n->die, &die) && dwarf_decl_file(&die) ?
				   dwarf_decl_file(&die) : info.decl_file);
	if ((q->pat.file && !point_file_matches(q->pat.file, file) && !point_file_matches(q->pat.file, info.decl_file)) ||
	    !spans_lines(q, n, &info)) {
		free(file);
		return 0;
	}
	q->matched_file++;
	if (n->flags & DWARF_NAME_INLINE)
		q->inlined++;
	if ((n->flags & DWARF_NAME_HAS_PC) && dwarf_offdie(q->mod->dw, n->die, &die)) {
		q->with_code++;
		if (q->statement) {
			statement_sites(q, n, &info, file);
		} else if (q->label) {
			label_sites(q, n, &info, file);
		} else if (q->want & UWANT_CALL) {
			entry = info.pc;
			if (!entry && dwarf_lowpc(&die, &entry) != 0)
				vec_push(&q->skipped, xasprintf("%s: no entry address", n->name));
			else
				function_entry_site(q, n, &die, entry, file, info.decl_line);
		}
	}
	if (!q->statement && !q->label && (q->want & UWANT_INLINE) && (n->flags & DWARF_NAME_INLINE))
		inline_sites(q, n, file, info.decl_line);
	free(file);
	return 0;
}

/* process("PATH").function("PATTERN") on a binary without DWARF: its symbol table's functions. */
static int symtab_sites(UQuery *q, const ProbePointComponent *what)
{
	PtrVec found = { 0 };
	const char *table;
	int before = q->out->len;

	if (q->pat.file || (q->want & UWANT_CALL) == 0) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "%s has no DWARF debuginfo (build it with -g): %s needs it; without "
			"it only .function(\"NAME\")[.call|.return] on the symbol table", q->mod->path,
			q->pat.file ? "FUNCTION@FILE" : ".inline");
		return -1;
	}
	uelf_functions(q->mod->elf, q->pat.func, &found, &table);
	for (int i = 0; i < found.len; i++) {
		UElfPoint *pt = found.items[i];
		user_probe(q, user_point_name(q, "function", pt->name, NULL, 0), pt->addr, pt->name);
	}
	if (q->out->len > before || has_wildcard(q->pat.func))
		return q->out->len - before;
	if (q->skipped.len)
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "%s.function(\"%s\"): %s", q->family, what->arg->str,
			(char *)q->skipped.items[0]);
	else
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "no function '%s' in the symbol table (%s) of %s, which has no "
			"DWARF debuginfo", q->pat.func, table ? table : "none", q->mod->path);
	return -1;
}

/* process("PATH").plt("NAME"): the PLT stub of each matching symbol; $$name is the symbol. */
static int plt_sites(UQuery *q, const ProbePointComponent *what)
{
	PtrVec found = { 0 };
	const char *why = NULL;
	const char *glob = what->arg ? what->arg->str : "*";
	int before = q->out->len;

	if (uelf_plt(q->mod->elf, glob, &found, &why) < 0) {
		diag_at(&q->s->diag, what->loc, "semantic error", "%s.plt(\"%s\"): %s %s", q->family, glob, q->mod->path, why);
		return -1;
	}
	for (int i = 0; i < found.len; i++) {
		UElfPoint *pt = found.items[i];
		StrBuf name;
		DerivedProbe *dp;
		sb_init(&name);
		sb_printf(&name, "%s.plt(\"%s\")%s", q->family, pt->name, q->suffix);
		dp = user_probe(q, sb_steal(&name), pt->addr, pt->name);
		if (dp)
			dp->symbol = xstrdup(pt->name);
	}
	if (q->out->len > before || has_wildcard(glob))
		return q->out->len - before;
	diag_at(&q->s->diag, what->arg->loc, "semantic error", "no PLT entry '%s' in %s", glob, q->mod->path);
	return -1;
}

/* process("PATH").statement(ADDRESS).absolute: ADDRESS is a virtual address of the file. */
static int absolute_site(UQuery *q, const ProbePointComponent *what)
{
	char *name = xasprintf("%s.statement(0x%" PRIx64 ").absolute", q->family, (uint64_t)what->arg->num);
	DerivedProbe *dp = user_probe(q, name, (Dwarf_Addr)what->arg->num, "");

	if (!dp) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "0x%" PRIx64 " is in no executable segment of %s",
			(uint64_t)what->arg->num, q->mod->path);
		return -1;
	}
	dp->site->is_statement = 1;
	return 1;
}

/* What resolve_process returns once the index was walked: the count, or an error saying why none. */
static int user_resolve_end(UQuery *q, const ProbePointComponent *what, int before)
{
	const char *path = q->mod->path;

	if (q->s->verbose)
		for (int i = 0; i < q->skipped.len; i++)
			fprintf(stderr, "Skipping %s\n", (char *)q->skipped.items[i]);
	if (q->out->len > before)
		return q->out->len - before;
	if (q->skipped.len) {
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "%s.%s(\"%s\"): %s", q->family, what->name, what->arg->str,
			(char *)q->skipped.items[0]);
		return -1;
	}
	if (has_wildcard(q->pat.func) || (q->pat.file && has_wildcard(q->pat.file)) || (q->label && has_wildcard(q->label)))
		return 0;
	if (q->label && q->with_code && !q->labelled)
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' has no label '%s' with code in %s", q->pat.func, q->label,
			path);
	else if (!q->matched_name)
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "no function '%s' in the debuginfo of %s", q->pat.func, path);
	else if (!q->matched_file)
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "function '%s' of %s is not in a file matching '%s'%s",
			q->pat.func, path, q->pat.file, q->pat.lines != LINE_NONE ? " at that line" : "");
	else if (q->nolines.len)
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "%s", (char *)q->nolines.items[0]);
	else if (q->want == UWANT_INLINE)
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' is never inlined in %s: drop .inline", q->pat.func, path);
	else if (q->inlined)
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' has no out-of-line code in %s (it is always inlined%s)",
			q->pat.func, path, q->is_return ? "; .return needs a call" : ": use .inline");
	else
		diag_at(&q->s->diag, what->arg->loc, "semantic error", "'%s' has no code in %s (declared only)", q->pat.func, path);
	return -1;
}

static int not_yet(Session *s, SrcLoc loc, const char *what)
{
	diag_at(&s->diag, loc, "semantic error", "%s is not supported (process probes: .function(\"PATTERN\")[.call|.return|.inline], "
		".statement(\"PATTERN\"), .statement(ADDRESS).absolute, .plt(\"NAME\")[.return], .mark(\"NAME\"))", what);
	return -1;
}

/* The suffixes after .function(...), .statement(...) or .plt(...): sets q's want, is_return and
 * suffix; -1 after an error. */
static int user_suffixes(UQuery *q, const ProbePoint *pp, const ProbePointComponent *what)
{
	int kind = !strcmp(what->name, "function") ? 0 : !strcmp(what->name, "plt") ? 1 : 2;
	int have = 0;

	q->suffix = "";
	q->want = UWANT_CALL | UWANT_INLINE;
	for (int i = 2; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp_component(pp, i);
		const char *n = c->name && !c->arg ? c->name : "";
		if (!have && kind == 0 && !strcmp(n, "call")) {
			q->want = UWANT_CALL;
		} else if (!have && kind == 0 && !strcmp(n, "inline")) {
			q->want = UWANT_INLINE;
		} else if (!have && kind < 2 && !strcmp(n, "return")) {
			q->want = UWANT_CALL;
			q->is_return = 1;
		} else if (!have && kind == 0 && c->name && !strcmp(c->name, "label") && i == pp->components.len - 1 &&
			   c->arg && c->arg->kind == EX_STRING && c->arg->str[0]) {
			q->label = c->arg->str;   /* each site's own label goes into its name */
			q->want = UWANT_CALL;
			return 0;
		} else if (!have && kind == 2 && !strcmp(n, "absolute") && what->arg && what->arg->kind == EX_NUMBER) {
			/* nothing more */
		} else if (have && q->want == UWANT_INLINE && !strcmp(n, "return")) {
			diag_at(&q->s->diag, c->loc, "semantic error", ".inline probes have no .return: an inlined instance returns nowhere "
				"a uretprobe can catch");
			return -1;
		} else if (c->name && (!strcmp(c->name, "exported") || !strcmp(c->name, "maxactive") ||
				       !strcmp(c->name, "nearest") || !strcmp(c->name, "callee") ||
				       !strcmp(c->name, "callees"))) {
			char *t = xasprintf("process(...).%s(...).%s", what->name, c->name);
			return not_yet(q->s, c->loc, t);
		} else {
			diag_at(&q->s->diag, c->loc, "semantic error", "unknown probe point component '%s' after process(...).%s(...)",
				c->name ? c->name : "{...}", what->name);
			return -1;
		}
		have = 1;
		q->suffix = xasprintf(".%s", n);
	}
	if (kind == 2 && what->arg && what->arg->kind == EX_NUMBER && !have) {
		diag_at(&q->s->diag, what->loc, "semantic error", "process(...).statement(ADDRESS) is written "
			"process(...).statement(ADDRESS).absolute");
		return -1;
	}
	return 0;
}

/* process(PID): the executable the process runs, resolved now as SystemTap does; NULL after an error. */
static char *pid_executable(Session *s, const ProbePointComponent *c0)
{
	char link[64], buf[PATH_MAX];
	ssize_t len;
	int64_t pid = c0->arg->num;

	if (pid <= 0 || pid > 4194304) {
		diag_at(&s->diag, c0->arg->loc, "semantic error", "process(%" PRId64 "): not a process id", pid);
		return NULL;
	}
	snprintf(link, sizeof link, "/proc/%" PRId64 "/exe", pid);
	len = readlink(link, buf, sizeof buf - 1);
	if (len < 0) {
		diag_at(&s->diag, c0->arg->loc, "semantic error", "process(%" PRId64 "): %s", pid,
			errno == ENOENT ? "no such process" : strerror(errno));
		return NULL;
	}
	buf[len] = 0;
	if (len > 10 && !strcmp(buf + len - 10, " (deleted)")) {
		diag_at(&s->diag, c0->arg->loc, "semantic error", "process(%" PRId64 "): its executable %s was deleted", pid, buf);
		return NULL;
	}
	return xstrdup(buf);
}

static int resolve_process(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *what = pp_component(pp, 1);
	UQuery q = { .s = s, .tmpl = tmpl, .out = out };
	char *path;
	int before = out->len, is_fn, is_stmt, is_plt;

	if (!c0->arg)
		return not_yet(s, c0->loc, "process without a PATH or PID (process.begin, process.function ...)");
	if (!what || !what->name)
		return not_yet(s, c0->loc, "process(...) alone");
	is_fn = !strcmp(what->name, "function");
	is_stmt = !strcmp(what->name, "statement");
	is_plt = !strcmp(what->name, "plt");
	if (!is_fn && !is_stmt && !is_plt) {
		char *t = xasprintf("process(...).%s", what->name);
		return not_yet(s, what->loc, t);
	}
	if (is_plt ? what->arg && what->arg->kind != EX_STRING
		   : !what->arg || (what->arg->kind != EX_STRING && !(is_stmt && what->arg->kind == EX_NUMBER)) ||
			     (what->arg->kind == EX_STRING && !what->arg->str[0])) {
		diag_at(&s->diag, what->loc, "semantic error", "process(...).%s needs a %s", what->name,
			is_plt ? "symbol name pattern" : is_stmt ? "\"FUNCTION@FILE:LINE\" pattern or an ADDRESS"
				 : "function name pattern");
		return -1;
	}
	q.statement = is_stmt;
	if (user_suffixes(&q, pp, what) != 0)
		return -1;
	path = process_point_path(s, c0);
	if (!path)
		return -1;
	if (c0->arg->kind == EX_NUMBER) {
		q.pid = c0->arg->num;
		q.family = xasprintf("process(%" PRId64 ")", q.pid);
	} else {
		q.family = xasprintf("process(\"%s\")", path);
	}
	q.mod = userfile_module(s, path, c0->arg->loc);
	if (!q.mod)
		return -1;
	if (is_plt)
		return plt_sites(&q, what);
	if (is_stmt && what->arg->kind == EX_NUMBER)
		return absolute_site(&q, what);
	if (point_parse_pattern(&s->diag, what->arg->str, what->arg->loc, &q.pat) != 0)
		return -1;
	if (is_fn && q.pat.lines == LINE_ALL) {
		diag_at(&s->diag, what->arg->loc, "semantic error", "\":*\" (every line) is for .statement probes");
		return -1;
	}
	if (is_fn && q.pat.lines == LINE_RELATIVE) {
		diag_at(&s->diag, what->arg->loc, "semantic error", "\"+OFFSET\" is for .statement probes");
		return -1;
	}
	if (is_stmt && q.pat.lines == LINE_NONE) {
		diag_at(&s->diag, what->arg->loc, "semantic error", "%s.statement(\"%s\") needs a line: \"FUNCTION@FILE:LINE\" (or "
			"+OFFSET, :FIRST-LAST, :*)", q.family, what->arg->str);
		return -1;
	}
	if (!q.mod->dw) {
		if (is_stmt || q.label) {
			diag_at(&s->diag, what->arg->loc, "semantic error", "%s has no DWARF debuginfo (build it with -g): "
				"%s needs it", path, is_stmt ? ".statement(\"PATTERN\")" : ".label(\"NAME\")");
			return -1;
		}
		return symtab_sites(&q, what);
	}
	dwarf_index_each(q.mod, q.pat.func, on_function, &q);
	if (!q.matched_name && !has_wildcard(q.pat.func)) {
		/* an ELF alias of a function the DWARF names otherwise (libc's malloc: __libc_malloc) */
		char *alias = userfile_symbol_alias(q.mod, q.pat.func);
		if (alias)
			dwarf_index_each(q.mod, alias, on_function, &q);
		free(alias);
	}
	return user_resolve_end(&q, what, before);
}

/* ---- pass 3 -------------------------------------------------------------------------------------- */

static void emit_process(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	PtrVec files = { 0 };

	(void)s;
	for (int i = 0; i < n; i++) {
		const char *p = dps[i]->site->mod->path;
		int k;
		for (k = 0; k < files.len && strcmp(files.items[k], p); k++)
			;
		if (k == files.len)
			vec_push(&files, (void *)p);
	}
	sb_puts(out, "static struct stp_uprobe_file stp_uprobe_files[] = {\n");
	for (int k = 0; k < files.len; k++) {
		DwarfModule *m = NULL;
		const unsigned char *id = NULL;
		uint64_t id_at = 0;
		size_t idlen;
		for (int i = 0; i < n && !m; i++)
			if (!strcmp(dps[i]->site->mod->path, files.items[k]))
				m = dps[i]->site->mod;
		sb_puts(out, "\t{ .path = ");
		emit_c_string(out, files.items[k]);
		idlen = build_id_place(m, &id_at, &id);
		if (idlen) {
			sb_printf(out, ", .build_id_offset = 0x%" PRIx64 "ULL, .build_id_len = %zu, .build_id = \"", id_at, idlen);
			for (size_t b = 0; b < idlen; b++)
				sb_printf(out, "\\x%02x", id[b]);
			sb_putc(out, '"');
		}
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	/* a handler per probe point (runtime/probes/uprobes.c), but for .return with entry values */
	for (int i = 0; i < n; i++)
		if (!(dps[i]->site->is_return && dps[i]->site->entry_size > 0))
			sb_printf(out, "STP_U%sPROBE_TRAMPOLINE(%d)\n", dps[i]->site->is_return ? "RET" : "",
				  dps[i]->index);
	sb_puts(out, "static struct stp_uprobe stp_uprobes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *dp = dps[i];
		const TgSite *site = dp->site;
		int k;
		for (k = 0; strcmp(files.items[k], site->mod->path); k++)
			;
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .file = &stp_uprobe_files[%d], .link = 0x%" PRIx64 "UL, ",
			  dp->index, k, link_address_of(site->mod, site->file_offset));
		if (site->is_return && site->entry_size > 0)
			sb_printf(out, ".save_link = 0x%" PRIx64 "UL, ", link_address_of(site->mod, site->save_offset));
		sb_printf(out, ".offset = 0x%" PRIx64 "ULL", site->file_offset);
		if (site->is_return)
			sb_puts(out, ", .is_return = 1");
		if (!site->is_return)
			sb_printf(out, ", .hit = stp_uprobe_hit_%d", dp->index);
		else if (site->entry_size <= 0)
			sb_printf(out, ", .ret_hit = stp_uretprobe_hit_%d", dp->index);
		if (site->is_return && site->entry_size > 0) {
			sb_printf(out, ", .entry = stp_dwarf_entry_%d, .entry_size = %d", dp->index, site->entry_size);
			sb_printf(out, ", .save_offset = 0x%" PRIx64 "ULL, .cfa_reg = offsetof(struct pt_regs, %s), "
				  ".cfa_offset = %lld", site->save_offset, dwloc_reg_name(site->cfa_reg),
				  (long long)site->cfa_offset);
		}
		if (dp->number > 0)
			sb_printf(out, ", .pid = %" PRId64, dp->number);
		if (dp->optional)
			sb_puts(out, ", .optional = 1");
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_UPROBE_FAMILY(stp_uprobes)\n\n");
	free(files.items);
}

static const char *const process_forms[] = {
	"process(number).function(string)",
	"process(number).function(string).call",
	"process(number).function(string).inline",
	"process(number).function(string).return",
	"process(number).plt",
	"process(number).plt(string)",
	"process(number).plt(string).return",
	"process(number).statement(number).absolute",
	"process(number).statement(string)",
	"process(string).function(string)",
	"process(string).function(string).call",
	"process(string).function(string).inline",
	"process(string).function(string).return",
	"process(string).plt",
	"process(string).plt(string)",
	"process(string).plt(string).return",
	"process(string).statement(number).absolute",
	"process(string).statement(string)",
	NULL,
};

/* $$name in .plt probes: the symbol the stub jumps to (dp->symbol); other points have none. */
static const ContextVar *uprobe_context_var(Session *s, const DerivedProbe *dp, const char *name)
{
	ContextVar *cv;
	StrBuf sb;

	(void)s;
	if (!dp->symbol || strcmp(name, "$$name"))
		return NULL;
	cv = xcalloc(1, sizeof *cv);
	cv->name = xstrdup(name);
	cv->type = TY_STRING;
	sb_init(&sb);
	emit_c_string(&sb, dp->symbol);
	cv->read = sb_steal(&sb);
	return cv;
}

static const char *const uprobe_context_vars[] = { "$$name", NULL };

/* a function's entry or return in a user binary, any process running it or process(PID)'s */
static int uprobe_place(const DerivedProbe *dp, ProbePlace *at)
{
	const TgSite *site = dp->site;

	if (!site || !site->is_user)
		return 0;
	*at = (ProbePlace){ .path = site->mod->path, .offset = site->file_offset, .pid = dp->number,
			    .is_return = site->is_return };
	return 1;
}

const ProbeProvider uprobe_provider = { .family = "process", .cname = "uprobe", .resolve_many = resolve_process,
					.runtime = "probes/uprobes.c", .emit = emit_process, .forms = process_forms,
					.context_var = uprobe_context_var, .context_vars = uprobe_context_vars,
					.place = uprobe_place };
