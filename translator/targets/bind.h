/* bind.h - the binding pass of target variables (targets/bind.c, pass 2): called by elaborate.c
 * once probes are expanded; its records (access.h) are what codegen/targetvars.c writes. */
#ifndef STAP_TARGETS_BIND_H
#define STAP_TARGETS_BIND_H

#include "session.h"

/* Binds every target variable, @cast, @defined, @choose_defined, @entry, @param, $return, $$vars and
 * context variable in the program: in DWARF or BTF probes against their TgSite, elsewhere (@cast,
 * @defined) against the kernel. Called by elaborate() after probes are expanded and unused functions
 * pruned. Returns errors. */
int targets_bind_program(Session *s);

#endif
