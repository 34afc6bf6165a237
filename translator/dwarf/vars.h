/* vars.h - target variables inside the translator: types (types.c), location expressions (loc.c),
 * bound accesses (targets.c, pass 2) as codegen/dwarf.c turns them into C (pass 3). */
#ifndef STAP_DWARF_VARS_H
#define STAP_DWARF_VARS_H

#include "dwarf.h"
#include "../providers/provider.h"

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

/* ---- loc.c ------------------------------------------------------------------------------------ */

typedef enum DwLocKind {
	DWLOC_ADDR,          /* the object is in memory: the expression computes its address */
	DWLOC_REG,           /* the object is in a register */
	DWLOC_VALUE,         /* the expression computes the value itself (DW_OP_stack_value) */
	DWLOC_IMPLICIT,      /* the value is given as bytes (DW_OP_implicit_value) */
	DWLOC_EMPTY,         /* optimized out (an empty piece, an implicit pointer) */
} DwLocKind;

/* One piece of a location (or the whole location when it has no DW_OP_piece). */
typedef struct DwPiece {
	DwLocKind kind;
	uint64_t offset;         /* bytes from the start of the object */
	uint64_t size;           /* bytes; 0 = the whole object (no pieces) */
	const Dwarf_Op *ops;     /* ADDR / VALUE: the ops computing the address or value */
	size_t nops;
	int reg;                 /* REG: the DWARF register number */
	const uint8_t *bytes;    /* IMPLICIT */
	size_t nbytes;
} DwPiece;

typedef struct DwLoc {
	DwPiece *pieces;
	int npieces;
	int has_pieces;          /* made of DW_OP_piece parts */
} DwLoc;

/* What compiling a location needs to know. */
typedef struct DwLocCtx {
	DwarfModule *mod;
	Dwarf_Addr pc;           /* where the expression is evaluated */
	Dwarf_Die *frame_fn;     /* the subprogram whose DW_AT_frame_base DW_OP_fbreg uses, or NULL */
	const char *fail;        /* C label to jump to after a read fault (the error is already set) */
	int uniq;                /* makes the C names of this expansion unique in its function */
} DwLocCtx;

/* Splits a location expression into classified pieces. 0, or -1 with *err set. */
int dwloc_analyze(const Dwarf_Op *ops, size_t nops, DwLoc *out, char **err);
/* Appends C statements to code that leave a piece's address (ADDR) or value (VALUE) in the
 * unsigned long variable dst. 0, or -1 with *err set (unsupported operation, entry value ...). */
int dwloc_emit(DwLocCtx *ctx, const DwPiece *p, const char *dst, StrBuf *code, char **err);
/* The struct pt_regs member holding DWARF register reg ("di"), NULL when there is none. */
const char *dwloc_reg_name(int reg);
/* Address of an ELF symbol (object or function) of m's symbol table; 0 when found. */
int dwloc_symbol(DwarfModule *m, const char *name, uint64_t *addr);
/* C text of the run-time address of link-time kernel address addr (KASLR applied), or NULL with
 * *err set when m is not the kernel. */
char *dwloc_reloc(DwarfModule *m, uint64_t addr, char **err);

/* ---- targets.c: bound accesses (the EX_DWARF node's payload) ------------------------------------ */

typedef enum DwBaseKind {
	DWB_LOCATION,        /* a variable at the site's pc: loc */
	DWB_POINTER,         /* @cast: the object is at the address e->args[0] */
	DWB_RETURN,          /* $return: the return value register */
	DWB_CONST,           /* a variable with DW_AT_const_value */
	DWB_SYMBOL,          /* a global known by its symbol (extern declaration in the CU) */
	DWB_ARG,             /* a tracepoint's argument: arg_index in the hit's arguments (c->entry_data) */
} DwBaseKind;

typedef enum DwStepKind {
	DWS_ADD,             /* the object moves n bytes on (member, literal index) */
	DWS_DEREF,           /* the object is a pointer: go to what it points to */
	DWS_INDEX,           /* += e->args[arg] * n (a computed index) */
} DwStepKind;

typedef struct DwStep {
	DwStepKind kind;
	int64_t n;
	int arg;
	SrcLoc loc;          /* the '->' or '[' that made it: where a read fault is reported */
	const char *op;      /* "->", "[" */
} DwStep;

typedef enum DwWhat {
	DWA_READ,            /* the value (integers, enums, pointers; arrays: their address) */
	DWA_ADDRESS,         /* &...: the address */
	DWA_PRETTY,          /* $ / $$: a string */
	DWA_VARS,            /* $$vars, $$parms, $$locals, $$return (and with $ / $$) */
	DWA_ENTRY,           /* @entry(e->left) or a target in a .return probe: saved at entry */
} DwWhat;

typedef struct DwAccess {
	DwWhat what;
	DwBaseKind base;
	DwarfModule *mod;
	DwarfSite *site;         /* NULL for @cast outside DWARF probes */
	Dwarf_Addr pc;
	Dwarf_Die frame_fn;      /* DWB_LOCATION: subprogram with the frame base */
	int have_frame_fn;
	DwLoc loc;               /* DWB_LOCATION */
	int64_t const_value;     /* DWB_CONST */
	uint64_t sym_addr;       /* DWB_SYMBOL (link address) */
	int arg_index;           /* DWB_ARG */
	PtrVec steps;            /* DwStep* */
	Dwarf_Die type;          /* the designated object's type (unstripped) */
	int has_type;
	const struct Btf *btf;   /* typed from BTF (btf/bind.c): the BTF of btf_type, for pretty printing */
	uint32_t btf_type;       /* ... the object's BTF type (unstripped; 0: void) */
	int bit_size, bit_offset;    /* a bit field (after the last step) */
	int size, is_signed;     /* DWA_READ of a scalar: bytes read */
	int array_address;       /* DWA_READ of an array: its address */
	int pretty_full;         /* $$ rather than $ */
	int user_mem;            /* its memory is the current process's (@param's __user pointers) */
	char *name;              /* "$file", "@cast" ...: for messages */
	SrcLoc loc_base;         /* the target's own location ($var) */
	const char *op_base;     /* "@var" for @var(...), NULL for $var (named as an identifier) */
	SrcLoc loc_last;         /* where the final read is reported */
	const char *op_last;     /* operator of the final read, NULL = the identifier */
	/* DWA_VARS */
	PtrVec var_names;        /* char* */
	PtrVec var_access;       /* DwAccess* (NULL: "?") */
	/* DWA_ENTRY */
	int slot;                /* offset in the entry data, -1 until code generation places it */
	int slot_size;
	DerivedProbe *dp;        /* the .return probe it belongs to */
} DwAccess;

/* How a target expression is used: read, addressed (&...), or assigned (guru mode). */
typedef enum BindMode { BM_VALUE, BM_ADDRESS, BM_WRITE } BindMode;

/* A new access (slot -1); a step appended (DWS_ADD steps in a row merged). Also used by btf/bind.c. */
DwAccess *dwa_new(DwWhat what);
void dwa_add_step(DwAccess *a, DwStepKind kind, int64_t n, int arg, SrcLoc loc, const char *op);

/* The entry expressions (Expr* of DWA_ENTRY nodes) of derived probe dp; NULL when none. */
PtrVec *dwarf_entry_exprs(Session *s, const DerivedProbe *dp);

/* ---- codegen/dwarf.c -------------------------------------------------------------------------- */

struct Gen;
char *gen_dwarf(struct Gen *g, Expr *e);
char *gen_dwarf_assign(struct Gen *g, Expr *e);

#endif
