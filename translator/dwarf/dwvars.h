/* dwvars.h - the DWARF leaf of target variables: types (types.c), location expressions (loc.c), and a
 * variable's type and location at a site (dwvars.c). Used by targets/ (bind.c; locations.c, type.c at bind time). */
#ifndef STAP_DWARF_VARS_H
#define STAP_DWARF_VARS_H

#include "dwarf/dwarf.h"
#include "targets/access.h"

#include <dwarf.h>

/* ---- types.c ---------------------------------------------------------------------------------- */

/* The type under typedefs and const/volatile/restrict/atomic qualifiers into *out; returns its tag,
 * or 0 for void (no type). */
int dwt_strip(Dwarf_Die *type, Dwarf_Die *out);
/* The type without const/volatile/restrict/atomic (typedefs kept: their names are the useful ones). */
void dwt_strip_cv(Dwarf_Die *type, Dwarf_Die *out);
/* A struct/union/enum declared only here: its definition elsewhere in m, found by name through the
 * index. Returns 0 with *out set (type itself when it is complete), -1 when there is none. */
int dwt_complete(DwarfModule *m, Dwarf_Die *type, Dwarf_Die *out);
/* Size in bytes of a type (typedefs and qualifiers followed, arrays counted); -1 when unknown. */
int64_t dwt_size(Dwarf_Die *type);
/* Signedness of a stripped base or enumeration type. */
int dwt_is_signed(Dwarf_Die *stripped);
/* A stripped base type of one byte with a character encoding: char, signed char, unsigned char. */
int dwt_is_char(Dwarf_Die *stripped);
/* A stripped base type holding a floating point value. */
int dwt_is_float(Dwarf_Die *stripped);

/* A member of a struct/union as found by name (anonymous members searched through). */
typedef struct DwMember {
	Dwarf_Die type;          /* the member's type (not stripped) */
	int64_t offset;          /* bytes from the start of the outer object */
	int bit_size;            /* 0: not a bit field */
	int bit_offset;          /* bit field: bits from the least significant bit of byte `offset` */
	const char *name;        /* NULL for an anonymous member */
	int anon_tag;            /* anonymous member: its stripped tag (struct/union) */
} DwMember;

/* Looks up `name` in struct/union su (stripped, complete). 0 when found, -1 otherwise. */
int dwt_find_member(Dwarf_Die *su, const char *name, DwMember *out);
/* The members of su in order, for pretty printing; calls fn for each (direct members only,
 * anonymous ones included with name NULL). Stops when fn returns nonzero. */
int dwt_each_member(Dwarf_Die *su, int (*fn)(DwMember *m, void *arg), void *arg);
/* The names of su's members, those of its anonymous members' included, "a, b, c" (at most max,
 * then ", ..."), for error messages: malloc'd. */
char *dwt_member_list(Dwarf_Die *su, int max);
/* Fills a member description from a DW_TAG_member DIE; 0 or -1. */
int dwt_member_of(Dwarf_Die *member, DwMember *out);

/* Array dimensions: element type, count of each dimension (-1 when unknown, e.g. flexible arrays).
 * Returns the number of dimensions (at most max), 0 when none is described. */
int dwt_array_dims(Dwarf_Die *array, Dwarf_Die *elem, int64_t *counts, int max);

/* "struct file*" style spelling (SystemTap's); freshly allocated. */
char *dwt_name(Dwarf_Die *type);
/* What type is to a relocating runtime's copy of the struct holding it (targets/access.h's TgShape). */
TgShape dwt_shape(Dwarf_Die *type);
/* Whether elements of type elem are laid out as this release has them (a struct's or union's size). */
int dwt_fixed_elements(Dwarf_Die *elem);

/* ---- the DWARF leaf's part of an access record (TgAccess.leaf) ---------------------------------- */

/* What the DWARF leaf keeps of an access it bound: its debuginfo file, the type's DIE, the subprogram whose
 * frame base its location uses. Read by targets/type.c and targets/locations.c. */
struct TgLeafAccess {
	DwarfModule *mod;
	Dwarf_Die type;          /* the designated object's type (unstripped) */
	int has_type;
	Dwarf_Die frame_fn;      /* TGB_LOCATION: subprogram with the frame base */
	int have_frame_fn;
};

/* a's part, made on first use (dwvars.c). */
struct TgLeafAccess *dwarf_leaf_of(TgAccess *a);

/* ---- loc.c ------------------------------------------------------------------------------------ */

/* What compiling a location needs to know. */
typedef struct DwLocCtx {
	DwarfModule *mod;
	Dwarf_Addr pc;           /* where the expression is evaluated */
	Dwarf_Die *frame_fn;     /* the subprogram whose DW_AT_frame_base DW_OP_fbreg uses, or NULL */
	const char *fail;        /* C label to jump to after a read fault (the error is already set) */
	int uniq;                /* makes the C names of this expansion unique in its function */
	const char *pfx;         /* or the prefix of its C names itself (NULL: "dwUNIQ") */
} DwLocCtx;

/* Splits a location expression into classified pieces. 0, or -1 with *err set. */
int dwloc_analyze(const Dwarf_Op *ops, size_t nops, TgLoc *out, char **err);
/* Appends C statements to code that leave a piece's address (ADDR) or value (VALUE) in the
 * unsigned long variable dst. 0, or -1 with *err set (unsupported operation, entry value ...). */
int dwloc_emit(DwLocCtx *ctx, const TgPiece *p, const char *dst, StrBuf *code, char **err);
/* The struct pt_regs member holding DWARF register reg ("di"), NULL when there is none. */
const char *dwloc_reg_name(int reg);
/* Address of an ELF symbol (object or function) of m's symbol table; 0 when found. */
int dwloc_symbol(DwarfModule *m, const char *name, uint64_t *addr);
/* C text of the run-time address of link-time kernel address addr (KASLR applied), or NULL with
 * *err set when m is not the kernel. */
char *dwloc_reloc(DwarfModule *m, uint64_t addr, char **err);

/* ---- dwvars.c: a target variable's type and location at a site -------------------------------- */

/* One probe's questions to the DWARF leaf: the site, how errors count, and the scopes read there. */
typedef struct DwarfBind {
	Session *s;
	TgSite *site;         /* the probe's DWARF site; NULL for @cast / @var outside DWARF probes */
	int quiet;               /* inside @defined: debuginfo that cannot be opened is only "not defined" */
	int in_entry;            /* inside @entry: $return has no value yet */
	/* the variables visible at the site's pc, found on first use (dwarf_bind_reset between probes) */
	int have_scopes;
	Dwarf_Die *scopes;       /* innermost first, ending with the site's scope DIE */
	int nscopes;
	Dwarf_Die cudie;
	Dwarf_Die frame_fn;      /* the (out-of-line) subprogram holding the pc: its frame base */
	int have_frame_fn;
	/* a question that failed: its error (malloc'd) and where, or err_shown when it was reported
	 * already (debuginfo that could not be opened); neither when there is nothing to say */
	char *err;
	SrcLoc err_loc;
	int err_shown;
} DwarfBind;

/* Reads the scopes visible at b->site's pc (once per probe); 0, or -1 with b->err set. */
int dwarf_bind_scopes(DwarfBind *b, SrcLoc loc);
/* $NAME, $return (EX_TARGET), @cast or @var (EX_AT) with its chain, read, addressed or written: the
 * access, e->args cut to @cast's address and followed by the chain's computed indexes; NULL with
 * b->err (or b->err_shown) set. */
TgAccess *dwarf_bind_target(DwarfBind *b, Expr *e, BindMode mode);
/* The entries of $$vars, $$parms, $$locals or $$return (which) at the site into list (after
 * dwarf_bind_scopes); entries that cannot be read are NULL ("?"). */
void dwarf_bind_vars(DwarfBind *b, const char *which, TgAccess *list, Expr *e);
/* Forgets the scopes read (a new probe). */
void dwarf_bind_reset(DwarfBind *b);
/* The type @cast names ("struct file", "task_struct") in m: a complete definition when there is one. */
int dwarf_find_type(Session *s, DwarfModule *m, const char *spec, Dwarf_Die *out);
/* What @cast's module string names ("kernel", "nfs", "kernel:nfs", "nfs<linux/nfs_fs.h>", "/bin/ls"): the
 * first module (malloc'd, NULL for none); *user set when it names a user binary. */
char *dwarf_cast_spec_module(const char *spec, int *user);

#endif
