/* btfvars.h - the BTF leaf of target variables (btf/btfvars.c): the type and location of a BTF-typed probe's
 * target variable as an access record, for the binding pass (targets/bind.c), which does the rest. */
#ifndef STAP_BTF_BIND_H
#define STAP_BTF_BIND_H

#include "btf/btf.h"
#include "targets/access.h"
#include "targets/site.h"

typedef struct BtfBind {
	const Btf *btf;
	TgSite *site;            /* site->btf_func: the function or tracepoint; NULL for @cast outside probes */
	const char *kver;           /* for the -dbg package's name */
	int in_entry;               /* inside @entry */
	/* results */
	uint32_t type;              /* the type reached so far */
	int in_register;            /* still the register's value (nothing dereferenced) */
	char *err;                  /* the error (malloc'd) and where, when NULL is returned */
	SrcLoc err_loc;
} BtfBind;

/* $param / $return / a tracepoint's $arg of e (EX_TARGET) with its chain, read or (BM_ADDRESS) addressed (memory only:
 * &$file->f_pos, not &$file); NULL with
 * bb->err set. */
TgAccess *btf_bind_target(BtfBind *bb, Expr *e, BindMode mode);

/* @cast(ADDR, "TYPE"[, "kernel"]) of the kernel's types (e, EX_AT, its args already cut to [ADDR]; tname the
 * "TYPE" string) with its chain, read or (BM_ADDRESS) addressed: computed indexes are appended to e->args
 * after the address. NULL with bb->err set. */
TgAccess *btf_bind_cast(BtfBind *bb, Expr *e, const Expr *tname, BindMode mode);

/* The entries of $$parms, $$vars (the parameters: BTF has no locals) or $$return (which names
 * "parms", "vars", "return") into list's var_names/var_access, read as hex; -1 for "locals". */
int btf_bind_vars(BtfBind *bb, const char *which, TgAccess *list);

/* -L: " $return:TYPE $param:TYPE ..." of a BTF site (parameters BTF cannot read marked; a
 * tracepoint's arguments); no locals. */
void btf_site_vars(const Btf *btf, const TgSite *site, StrBuf *sb);

#endif
