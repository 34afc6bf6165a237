/* modfile.c - where the target kernel's files are: its vmlinux candidates, a module's file under a directory
 * (NAME.ko, .ko.debug, or compressed). Used by dwarf/debuginfo.c (debuginfo) and btf/source.c (BTF). */
#include "image/modfile.h"
#include "lib/util.h"

#include <fts.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "ext4", "nf-conntrack" and "nf_conntrack" are one module to the kernel. */
static int same_module_name(const char *a, const char *b, size_t blen)
{
	size_t i;

	for (i = 0; i < blen && a[i]; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return 0;
	}
	return i == blen && !a[i];
}

/* The file at path, named base: 1 when it is the one searched for (the search ends). */
static int visit(ImageModuleSearch *search, const char *path, const char *base)
{
	static const char *const plain_ext[] = { ".ko", ".ko.debug" };
	static const char *const packed_ext[] = { ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t n = strlen(base);

	for (size_t i = 0; i < sizeof plain_ext / sizeof plain_ext[0]; i++) {
		size_t e = strlen(plain_ext[i]);
		if (n > e && !strcmp(base + n - e, plain_ext[i]) && same_module_name(search->want, base, n - e) &&
		    !search->plain) {
			search->plain = xstrdup(path);
			return 1;
		}
	}
	for (size_t i = 0; i < sizeof packed_ext / sizeof packed_ext[0]; i++) {
		size_t e = strlen(packed_ext[i]);
		if (n > e && !strcmp(base + n - e, packed_ext[i]) && same_module_name(search->want, base, n - e) &&
		    !search->compressed)
			search->compressed = xstrdup(path);
	}
	return 0;
}

/* Finds NAME.ko under dir (not following symbolic links: build/ and source/ are), depth first, each
 * directory's entries in the order it lists them. */
void image_find_module(ImageModuleSearch *search, const char *dir, const char *name)
{
	char *roots[] = { (char *)dir, NULL };
	FTS *walk;
	FTSENT *e;

	search->want = name;
	if (!dir_exists(dir) || !(walk = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL)))
		return;
	while ((e = fts_read(walk)))
		if ((e->fts_info == FTS_F || e->fts_info == FTS_DEFAULT) && visit(search, e->fts_path, e->fts_name))
			break;
	fts_close(walk);
}

int image_kernel_paths(Session *s, char *paths[4])
{
	const char *dir = getenv("STAP_DEBUGINFO_PATH");
	int n = 0;

	if (dir) {
		/* a directory laid out like /usr/lib/debug (tests point it at an empty one to hide DWARF) */
		paths[n++] = xasprintf("%s/boot/vmlinux-%s", dir, s->kver);
		paths[n++] = xasprintf("%s/lib/modules/%s/vmlinux", dir, s->kver);
		return n;
	}
	paths[n++] = xasprintf("/usr/lib/debug/boot/vmlinux-%s", s->kver);
	paths[n++] = xasprintf("/usr/lib/debug/lib/modules/%s/vmlinux", s->kver);
	paths[n++] = xasprintf("/boot/vmlinux-%s", s->kver);
	if (s->kbuild_dir)
		paths[n++] = path_join(s->kbuild_dir, "vmlinux");
	return n;
}

char *image_module_file(Session *s, const char *name)
{
	char *lib, *found;
	ImageModuleSearch search = { 0 };

	if (strchr(name, '/'))
		return access(name, R_OK) == 0 ? xstrdup(name) : NULL;
	lib = xasprintf("/lib/modules/%s", s->kver);
	image_find_module(&search, lib, name);
	found = search.plain ? search.plain : search.compressed;
	if (found != search.plain)
		free(search.plain);
	if (found != search.compressed)
		free(search.compressed);
	free(lib);
	return found;
}
