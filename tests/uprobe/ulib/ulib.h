/* ulib.h - the interface of libulib.so (tests/uprobe/ulib), used by ulibmain.c and the library itself.
 * Test program of tests/guest/uprobe-library.t. */
#ifndef ULIB_H
#define ULIB_H

struct ulib_state {
	int calls;
	long total;
	char name[16];
};

typedef struct ulib_state ulib_state_t;

extern struct ulib_state ulib_state;
extern int ulib_table[8];

/* the state, for callers outside the library: an executable referring to ulib_state itself would
 * get a copy relocation (its own copy, which the library then uses instead of the one its DWARF
 * describes) */
ulib_state_t *ulib_self(void);
int ulib_step(int k);
long ulib_sum(const ulib_state_t *s, int n);
int ulib_done(int steps);

#endif
