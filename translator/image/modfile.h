/* modfile.h - the target kernel's files found by name: vmlinux candidates, module files (modfile.c).
 * Used by dwarf/debuginfo.c and btf/source.c. */
#ifndef STAP_IMAGE_MODFILE_H
#define STAP_IMAGE_MODFILE_H

#include "session.h"

/* A search for one module's file (image_find_module); its paths are malloc'd, the caller's. */
typedef struct ImageModuleSearch {
	const char *want;       /* module name */
	char *plain;            /* NAME.ko or NAME.ko.debug */
	char *compressed;       /* NAME.ko.xz/.zst/.gz */
} ImageModuleSearch;

/* Finds NAME.ko (or .ko.debug; "nf-conntrack" is "nf_conntrack") under dir, depth first, not following symbolic
 * links: search->plain set (the search ends), else search->compressed when unset and one is seen. */
void image_find_module(ImageModuleSearch *search, const char *dir, const char *name);
/* Where the kernel's DWARF is looked for (malloc'd paths, at most 4): /usr/lib/debug/boot/vmlinux-KVER,
 * .../lib/modules/KVER/vmlinux, /boot/vmlinux-KVER, the build tree's vmlinux; with STAP_DEBUGINFO_PATH=DIR
 * only DIR/boot/vmlinux-KVER and DIR/lib/modules/KVER/vmlinux. Returns the count. */
int image_kernel_paths(Session *s, char *paths[4]);
/* The module file of s->kver named name ("nfs", or a path): /lib/modules/KVER/.../NAME.ko, or .ko.xz/.zst/.gz.
 * malloc'd, NULL when there is none. */
char *image_module_file(Session *s, const char *name);

#endif
