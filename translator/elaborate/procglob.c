/* procglob.c - globs in process("PATH") points: glob(3) over the file system, each ELF file that
 * matches a point of its own with its real path. Used by expand.c before the providers. */
#include "elaborate/procglob.h"
#include "lib/diag.h"
#include "lib/util.h"

#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const ProbePointComponent *process_component(const ProbePoint *pp)
{
	const ProbePointComponent *c0 = pp->components.len ? pp->components.items[0] : NULL;

	if (!c0 || !c0->name || strcmp(c0->name, "process") || !c0->arg || c0->arg->kind != EX_STRING)
		return NULL;
	return c0;
}

int procglob_wanted(const ProbePoint *pp)
{
	const ProbePointComponent *c0 = process_component(pp);

	return c0 && strpbrk(c0->arg->str, "*?[") != NULL;
}

/* a regular 64-bit x86-64 ELF file: what a uprobe of this kernel's processes can go on (a library's
 * linker script, such as libc.so, is not; nor are the 32-bit libraries of /usr/lib32 a /lib* glob meets) */
static int is_elf_file(const char *path)
{
	unsigned char ident[20];
	struct stat st;
	int fd, ok;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ok = read(fd, ident, sizeof ident) == (ssize_t)sizeof ident && !memcmp(ident, "\177ELF", 4) &&
	     ident[4] == 2 /* ELFCLASS64 */ && ident[5] == 1 /* little-endian */ &&
	     (ident[18] | ident[19] << 8) == 62 /* EM_X86_64 */;
	close(fd);
	return ok;
}

static int already(const PtrVec *seen, const char *path)
{
	for (int i = 0; i < seen->len; i++)
		if (!strcmp(seen->items[i], path))
			return 1;
	return 0;
}

/* pp with its process component's path replaced by path (taken over) */
static ProbePoint *point_at_path(const ProbePoint *pp, char *path)
{
	ProbePoint *np = point_clone(pp);
	ProbePointComponent *c0 = np->components.items[0];
	Expr *arg = expr_new(EX_STRING, c0->arg->loc);

	arg->str = path;
	c0->arg = arg;
	return np;
}

int procglob_expand(Diag *d, const ProbePoint *pp, PtrVec *out)
{
	const ProbePointComponent *c0 = process_component(pp);
	PtrVec seen = { 0 };
	glob_t g;
	int rc, n = 0, others = 0;

	memset(&g, 0, sizeof g);
	rc = glob(c0->arg->str, 0, NULL, &g);   /* sorted */
	if (rc == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char *real = is_elf_file(g.gl_pathv[i]) ? realpath(g.gl_pathv[i], NULL) : NULL;

			others += !real;
			if (!real || already(&seen, real)) {
				free(real);
				continue;
			}
			vec_push(&seen, real);
			vec_push(out, point_at_path(pp, xstrdup(real)));
			n++;
		}
	}
	globfree(&g);
	for (int i = 0; i < seen.len; i++)
		free(seen.items[i]);
	free(seen.items);
	if (!n) {
		diag_at(d, c0->arg->loc, "semantic error", "process(\"%s\"): no %s matches%s", c0->arg->str,
			rc == 0 || rc == GLOB_NOMATCH ? "64-bit x86-64 ELF file" : "file (glob failed)",
			others ? " (the files it matches are other files: 32-bit libraries, linker scripts...)" : "");
		return -1;
	}
	return n;
}
