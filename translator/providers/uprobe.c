/* uprobe.c - the "process" family: process("PATH").function("PATTERN") and its .call/.return, resolved
 * against the DWARF of a user binary to uprobes at a file offset (pass 2), and their C table (pass 3). */
#include "provider.h"
#include "ulibs.h"
#include "../dwarf/dwarf.h"
#include "../dwarf/vars.h"
#include "../pointmatch.h"

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
			real = ulib_find_soname(arg);   /* a shared library, as the loader finds it */
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

char *process_point_path(const ProbePointComponent *c0)
{
	char *why = NULL, *path = find_executable(c0->arg->str, &why);

	if (!path) {
		diag_at(c0->arg->loc, "semantic error", "process(\"%s\"): %s", c0->arg->str, why);
		free(why);
	}
	return path;
}

static PtrVec user_modules;     /* DwarfModule*: the binaries opened this run */

/* The DWARF of the user binary at path (resolved), opened once per run; NULL after an error at loc. */
static DwarfModule *user_module(Session *s, const char *path, SrcLoc loc)
{
	DwarfModule *m;
	GElf_Ehdr eh;
	Elf *elf;
	Dwarf *dw;
	char *why = NULL;
	int fd;

	for (int i = 0; i < user_modules.len; i++) {
		m = user_modules.items[i];
		if (!strcmp(m->path, path))
			return m;
	}
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		diag_at(loc, "semantic error", "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		diag_at(loc, "semantic error", "%s is not an ELF executable or shared object", path);
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	dw = ulib_open_dwarf(elf, path, &why);   /* its own, else separate debuginfo */
	if (!dw) {
		diag_at(loc, "semantic error", "%s", why);
		free(why);
		elf_end(elf);
		close(fd);
		return NULL;
	}
	m = dwarf_module_from_elf(path, path, fd, elf, dw);
	m->session = s;
	m->is_user = 1;
	vec_push(&user_modules, m);
	return m;
}

DwarfModule *ulib_module(Session *s, const char *path, SrcLoc loc)
{
	return user_module(s, path, loc);
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
	static struct { DwarfModule *m; Dwarf_Off cu; int yes; } *seen;
	static size_t nseen;
	Dwarf_Off off = dwarf_dieoffset(cudie);

	for (size_t i = 0; i < nseen; i++)
		if (seen[i].m == m && seen[i].cu == off)
			return seen[i].yes;
	seen = xrealloc(seen, (nseen + 1) * sizeof *seen);
	seen[nseen].m = m;
	seen[nseen].cu = off;
	seen[nseen].yes = has_location_lists(cudie, 0);
	return seen[nseen++].yes;
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

typedef struct UQuery {
	Session *s;
	DwarfModule *mod;
	const DerivedProbe *tmpl;
	PtrVec *out;
	const char *func, *file;    /* patterns */
	const char *family;         /* process("/abs/path") */
	const char *suffix;         /* ".call", ".return", "" */
	int is_return;
	int matched_name, matched_file, with_code;
	PtrVec skipped;             /* char*: why functions were left out */
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

static int on_function(const DwarfName *n, void *arg)
{
	UQuery *q = arg;
	DwarfNameInfo info;
	Dwarf_Die die;
	Dwarf_Addr entry = 0, pc;
	uint64_t off, save;
	DwarfSite *site;
	DerivedProbe *dp;
	StrBuf name;
	char *file;

	if (n->tag != DW_TAG_subprogram)
		return 0;
	q->matched_name++;
	dwarf_name_info(q->mod, n, &info);
	/* the file as the DWARF names it (the index shortens names the kernel's way) */
	file = source_path(q->mod, n->cu, dwarf_offdie(q->mod->dw, n->die, &die) && dwarf_decl_file(&die) ?
				   dwarf_decl_file(&die) : info.decl_file);
	if (q->file && !point_file_matches(q->file, file) && !point_file_matches(q->file, info.decl_file)) {
		free(file);
		return 0;
	}
	q->matched_file++;
	if (!(n->flags & DWARF_NAME_HAS_PC) || !dwarf_offdie(q->mod->dw, n->die, &die)) {
		free(file);
		return 0;
	}
	q->with_code++;
	entry = info.pc;
	if (!entry && dwarf_lowpc(&die, &entry) != 0) {
		vec_push(&q->skipped, xasprintf("%s: no entry address", n->name));
		free(file);
		return 0;
	}
	/* .return: the uretprobe at the entry; values at entry ($param, @entry) are read where a
	 * .call probe would read them, keyed by the CFA there (the stack pointer at the return) */
	pc = probe_address(q->mod, &die, entry);
	if (file_offset_of(q->mod, pc, &save) != 0 || file_offset_of(q->mod, q->is_return ? entry : pc, &off) != 0) {
		vec_push(&q->skipped, xasprintf("%s: address 0x%" PRIx64 " is in no executable segment of the file",
						n->name, (uint64_t)pc));
		free(file);
		return 0;
	}
	site = xcalloc(1, sizeof *site);
	site->mod = q->mod;
	site->cu = n->cu;
	site->scope = n->die;
	site->pc = pc;
	site->function = xstrdup(n->name);
	site->decl_file = file;
	site->decl_line = info.decl_line;
	site->is_return = q->is_return;
	site->is_user = 1;
	site->file_offset = off;
	site->save_offset = save;
	site->cfa_reg = cfa_rule(q->mod, pc, &site->cfa_offset);
	if (q->is_return && site->cfa_reg < 0) {
		/* no rule known there: read them at the entry, where the CFA is the stack pointer + 8 */
		site->pc = entry;
		site->save_offset = off;
		site->cfa_reg = 7;      /* x86-64 DWARF register 7: rsp */
		site->cfa_offset = 8;
	}
	sb_init(&name);
	sb_printf(&name, "%s.function(\"%s", q->family, n->name);
	if (site->decl_file[0]) {
		sb_printf(&name, "@%s", site->decl_file);
		if (info.decl_line > 0)
			sb_printf(&name, ":%d", info.decl_line);
	}
	sb_printf(&name, "\")%s", q->suffix);
	dp = xcalloc(1, sizeof *dp);
	*dp = *q->tmpl;
	dp->name = sb_steal(&name);
	dp->site = site;
	dp->is_return = q->is_return;
	vec_push(q->out, dp);
	return 0;
}

static int not_yet(SrcLoc loc, const char *what)
{
	diag_at(loc, "semantic error", "%s is not supported yet (process probes: process(\"PATH\").function(\"PATTERN\")"
		"[.call|.return])", what);
	return -1;
}

static int resolve_process(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *what = pp_component(pp, 1);
	UQuery q = { .s = s, .tmpl = tmpl, .out = out, .suffix = "" };
	char *path, *at;
	int before = out->len, have_call = 0;

	if (!c0->arg)
		return not_yet(c0->loc, "process without a PATH (process.begin, process.function ...)");
	if (c0->arg->kind != EX_STRING)
		return not_yet(c0->loc, "process(PID)");
	if (!what || !what->name)
		return not_yet(c0->loc, "process(\"PATH\") alone");
	if (strcmp(what->name, "function")) {
		char *t = xasprintf("process(\"PATH\").%s", what->name);
		return not_yet(what->loc, t);
	}
	if (!what->arg || what->arg->kind != EX_STRING || !what->arg->str[0]) {
		diag_at(what->loc, "semantic error", "process(\"PATH\").function needs a function name pattern");
		return -1;
	}
	for (int i = 2; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp_component(pp, i);
		if (c->name && !c->arg && !strcmp(c->name, "call") && !have_call && !q.is_return) {
			have_call = 1;
			q.suffix = ".call";
		} else if (c->name && !c->arg && !strcmp(c->name, "return") && !have_call && !q.is_return) {
			q.is_return = 1;
			q.suffix = ".return";
		} else if (c->name && (!strcmp(c->name, "inline") || !strcmp(c->name, "exported") ||
				       !strcmp(c->name, "maxactive"))) {
			char *t = xasprintf("process(\"PATH\").function(...).%s", c->name);
			return not_yet(c->loc, t);
		} else {
			diag_at(c->loc, "semantic error", "unknown probe point component '%s' after process(\"PATH\").function(...)",
				c->name ? c->name : "{...}");
			return -1;
		}
	}
	path = process_point_path(c0);
	if (!path)
		return -1;
	q.mod = user_module(s, path, c0->arg->loc);
	if (!q.mod)
		return -1;
	q.family = xasprintf("process(\"%s\")", path);
	q.func = xstrdup(what->arg->str);
	at = strchr(q.func, '@');
	if (at) {
		*at = 0;
		q.file = at + 1;
		if (!*q.func || !*q.file || strpbrk(q.file, ":+@")) {
			diag_at(what->arg->loc, "semantic error", "process(\"PATH\").function(\"%s\"): FUNCTION@FILE is supported, "
				"lines are not yet", what->arg->str);
			return -1;
		}
	}
	dwarf_index_each(q.mod, q.func, on_function, &q);
	if (!q.matched_name && !has_wildcard(q.func)) {
		/* an ELF alias of a function the DWARF names otherwise (libc's malloc: __libc_malloc) */
		char *alias = ulib_symbol_alias(q.mod, q.func);
		if (alias)
			dwarf_index_each(q.mod, alias, on_function, &q);
		free(alias);
	}
	if (s->verbose)
		for (int i = 0; i < q.skipped.len; i++)
			fprintf(stderr, "Skipping %s\n", (char *)q.skipped.items[i]);
	if (out->len > before)
		return out->len - before;
	if (q.skipped.len) {
		diag_at(what->arg->loc, "semantic error", "%s.function(\"%s\"): %s", q.family, what->arg->str,
			(char *)q.skipped.items[0]);
		return -1;
	}
	if (has_wildcard(q.func) || (q.file && has_wildcard(q.file)))
		return 0;
	if (!q.matched_name)
		diag_at(what->arg->loc, "semantic error", "no function '%s' in the debuginfo of %s", q.func, path);
	else if (!q.matched_file)
		diag_at(what->arg->loc, "semantic error", "function '%s' of %s is not in a file matching '%s'", q.func, path,
			q.file);
	else
		diag_at(what->arg->loc, "semantic error", "'%s' has no out-of-line code in %s (inline only, or declared "
			"only)", q.func, path);
	return -1;
}

/* ---- pass 3 -------------------------------------------------------------------------------------- */

static void emit_process(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	PtrVec files = { 0 };

	(void)s;
	sb_puts(out, "#include \"probes/uprobes.c\"\n");
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
	sb_puts(out, "static struct stp_uprobe stp_uprobes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *dp = dps[i];
		const DwarfSite *site = dp->site;
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
		if (site->is_return && site->entry_size > 0) {
			sb_printf(out, ", .entry = stp_dwarf_entry_%d, .entry_size = %d", dp->index, site->entry_size);
			sb_printf(out, ", .save_offset = 0x%" PRIx64 "ULL, .cfa_reg = offsetof(struct pt_regs, %s), "
				  ".cfa_offset = %lld", site->save_offset, dwloc_reg_name(site->cfa_reg),
				  (long long)site->cfa_offset);
		}
		if (dp->optional)
			sb_puts(out, ", .optional = 1");
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_UPROBE_FAMILY(stp_uprobes)\n\n");
	free(files.items);
}

static const char *const process_forms[] = {
	"process(string).function(string)",
	"process(string).function(string).call",
	"process(string).function(string).return",
	NULL,
};

const ProbeProvider uprobe_provider = { .family = "process", .cname = "uprobe", .resolve_many = resolve_process,
					.emit = emit_process, .forms = process_forms };
