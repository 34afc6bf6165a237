/* compile.h - pass 4 (compile the generated C into NAME.ko with kbuild) and
 * pass 5 (run it with staprun).  Called by the driver. */
#ifndef STAP_COMPILE_H
#define STAP_COMPILE_H

#include "session.h"

int compile_module(Session *s);   /* 0 = s->ko_file built */
int compile_bpf(Session *s);       /* bpfobj.c: 0 = s->ko_file (NAME.bo) built */
int run_module(Session *s);       /* exit status of staprun */

#endif
