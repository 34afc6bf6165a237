/* modc.h - kbuild's NAME.mod.c compiled without <linux/module.h> (struct module's layout learned once per
 * kernel build tree from a .mod.o kbuild compiled the usual way).  Used by kbuild_steps.c. */
#ifndef STAP_MODC_H
#define STAP_MODC_H

#include "session.h"

/* struct module as a .mod.o initializes it: its size and alignment, the offsets of name, init, exit */
typedef struct ModcLayout {
	long size, align, name, init, exit;
} ModcLayout;

/* The layout of the .gnu.linkonce.this_module section of the build's TMP/NAME.mod.o: 0, or -1 when it holds
 * more than the module's name and the two pointers (a layout the prelude could not reproduce). */
int modc_built_layout(const Session *s, ModcLayout *l);

/* The layout in the cache entry: 0; 1 when it says "none" (the prelude failed on this tree); -1 when it
 * is missing, untrusted or damaged. */
int modc_load(Session *s, const char *entry, ModcLayout *l);
/* Stores l, or "none" when l is NULL. */
void modc_save(Session *s, const char *entry, const ModcLayout *l);

/* Rewrites TMP/NAME.mod.c (modpost's) to include TMP/stap-modc.h, written from l, instead of
 * <linux/module.h>: its original text (malloc'd), or NULL when it was left as it was. */
char *modc_lighten(Session *s, const ModcLayout *l);
/* Puts text back as NAME.mod.c and removes NAME.mod.o and the .ko, so that the step makes them again. */
int modc_restore(Session *s, const char *text);

#endif
