/* kernel.c - finds the target kernel's build tree and, when it can, its
 * symbols (/proc/kallsyms of the running kernel, or a vmlinux with symbols). */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char *read_first_line(const char *path)
{
	char *text = read_file(path, NULL);
	if (!text)
		return NULL;
	text[strcspn(text, "\n")] = 0;
	return text;
}

int kernel_setup(Session *s, const char *r_arg, int need_tree)
{
	struct utsname u;

	uname(&u);
	if (r_arg && strchr(r_arg, '/')) {
		char *rel = path_join(r_arg, "include/config/kernel.release");
		s->kbuild_dir = xstrdup(r_arg);
		s->kver = read_first_line(rel);
		free(rel);
		if (!s->kver) {
			if (!need_tree)
				s->kver = xstrdup(u.release);
			else {
				diag_plain("error", "kernel build tree '%s' not found or not configured "
					   "(no include/config/kernel.release)", r_arg);
				return -1;
			}
		}
	} else {
		s->kver = xstrdup(r_arg ? r_arg : u.release);
		s->kbuild_dir = xasprintf("/lib/modules/%s/build", s->kver);
	}
	s->target_is_running = strcmp(s->kver, u.release) == 0;
	if (need_tree) {
		char *mk = path_join(s->kbuild_dir, "Makefile");
		int ok = file_exists(mk);
		free(mk);
		if (!ok) {
			diag_plain("error", "kernel build tree for %s not found at %s (install linux-headers-%s)",
				   s->kver, s->kbuild_dir, s->kver);
			return -1;
		}
	}
	return 0;
}

/* ---- kernel configuration, loaded once ---- */

static char *config_text;       /* "CONFIG_X=y\n..." */

const char *kernel_config_value(void *session, const char *name)
{
	Session *s = session;
	static char value[256];
	size_t n = strlen(name);

	if (!config_text) {
		char *path = path_join(s->kbuild_dir, "include/config/auto.conf");
		config_text = read_file(path, NULL);
		free(path);
		if (!config_text) {
			path = path_join(s->kbuild_dir, ".config");
			config_text = read_file(path, NULL);
			free(path);
		}
		if (!config_text)
			config_text = xstrdup("");
	}
	for (const char *line = config_text; *line; ) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len > n && !strncmp(line, name, n) && line[n] == '=') {
			const char *v = line + n + 1;
			size_t vlen = len - n - 1;
			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
				v++;
				vlen -= 2;
			}
			snprintf(value, sizeof value, "%.*s", (int)vlen, v);
			return value;
		}
		line += len + (eol != NULL);
	}
	return NULL;
}

/* ---- symbol table, loaded once ---- */

static char **symbols;
static size_t nsymbols;
static int symbols_state;      /* 0 not loaded, 1 loaded, -1 unavailable */

static void add_symbol(const char *name, size_t cap_hint)
{
	static size_t cap;
	if (nsymbols == cap) {
		cap = cap ? cap * 2 : (cap_hint ? cap_hint : 65536);
		symbols = xrealloc(symbols, cap * sizeof *symbols);
	}
	symbols[nsymbols++] = xstrdup(name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* /proc/kallsyms of the running kernel: "ADDR TYPE NAME[\t[MODULE]]" lines;
 * the text symbols of vmlinux are kept.  Parsed by hand: it is 100k+ lines. */
static int load_kallsyms(void)
{
	size_t len;
	char *text = read_file("/proc/kallsyms", &len);
	char *p, *end;

	if (!text)
		return -1;
	for (p = text, end = text + len; p < end;) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		char *type, *name, *stop;
		if (!eol)
			eol = end;
		type = memchr(p, ' ', (size_t)(eol - p));
		if (type && type + 3 < eol && type[2] == ' ' && strchr("tTwW", type[1])) {
			name = type + 3;
			stop = name;
			while (stop < eol && *stop != '\t' && *stop != ' ')
				stop++;
			if (stop == eol) {   /* no [module] suffix: vmlinux */
				*stop = 0;
				add_symbol(name, 0);
			}
		}
		p = eol + 1;
	}
	free(text);
	return nsymbols ? 0 : -1;
}

static int load_elf_symbols(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name)
				add_symbol(name, sh.sh_size / sh.sh_entsize);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return nsymbols ? 0 : -1;
}

static void load_symbols(Session *s)
{
	const char *candidates[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/vmlinux-%s",
	};

	symbols_state = -1;
	char *in_tree = path_join(s->kbuild_dir, "vmlinux");

	if (s->target_is_running && load_kallsyms() == 0) {
		symbols_state = 1;
	} else if (file_exists(in_tree) && load_elf_symbols(in_tree) == 0) {
		symbols_state = 1;
	} else {
		for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
			char *path = xasprintf(candidates[i], s->kver);
			int rc = file_exists(path) ? load_elf_symbols(path) : -1;
			free(path);
			if (rc == 0) {
				symbols_state = 1;
				break;
			}
		}
	}
	free(in_tree);
	if (symbols_state == 1)
		qsort(symbols, nsymbols, sizeof *symbols, cmp_str);
}

int kernel_symbol_known(Session *s, const char *name)
{
	if (!symbols_state)
		load_symbols(s);
	if (symbols_state < 0)
		return -1;
	return bsearch(&name, symbols, nsymbols, sizeof *symbols, cmp_str) != NULL;
}
