/* access.h - the bound form of a target variable: one neutral record (base, location pieces, steps,
 * type) that the DWARF and BTF leaves fill in, the binding pass (bind.c) puts in EX_DWARF nodes and
 * codegen/targetvars.c turns into C. */
#ifndef STAP_TARGETS_ACCESS_H
#define STAP_TARGETS_ACCESS_H

#include "dwarf/dwarf.h"

struct Btf;
struct DerivedProbe;

/* ---- where the object is: the pieces of a location (dwarf/loc.c analyzes DWARF's; btf/btfvars.c
 * places parameters in their registers or on the stack) ---- */

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
	/* compiled at bind time (tg_compile_locations) for pass 3: */
	const char *reg_name;    /* REG: the struct pt_regs member ("di") */
	char *code;              /* ADDR / VALUE: C statements leaving it in TG_CODE_DST, names from TG_CODE_PFX,
	                          * a read fault going to TG_CODE_FAIL (tg_code_fill puts pass 3's names in) */
	char *code_err;          /* ... or why it cannot be compiled (reported by pass 3 where it is used) */
} DwPiece;

/* The placeholders of a compiled location's code. */
#define TG_CODE_PFX "\001P"
#define TG_CODE_DST "\001D"
#define TG_CODE_FAIL "\001F"

typedef struct DwLoc {
	DwPiece *pieces;
	int npieces;
	int has_pieces;          /* made of DW_OP_piece parts */
} DwLoc;

/* ---- the access: a base, then steps, then what is read ---- */

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

/* The type is named by the leaf that bound it: a DWARF DIE (type), or a BTF id (btf, btf_type). */
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
	char *sym_c, *sym_err;   /* DWB_SYMBOL compiled: its run-time address as C, or why there is none */
	int in_user_file;        /* its module is a user binary (its memory the current process's) */
	int compiled;            /* tg_compile_locations done */
	int arg_index;           /* DWB_ARG */
	PtrVec steps;            /* DwStep* */
	Dwarf_Die type;          /* the designated object's type (unstripped) */
	int has_type;
	const struct Btf *btf;   /* typed from BTF (btf/btfvars.c): the BTF of btf_type, for pretty printing */
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
	struct DerivedProbe *dp; /* the .return probe it belongs to */
} DwAccess;

/* How a target expression is used: read, addressed (&...), or assigned (guru mode). */
typedef enum BindMode { BM_VALUE, BM_ADDRESS, BM_WRITE } BindMode;

/* A new access (slot -1); a step appended (DWS_ADD steps in a row merged). */
DwAccess *dwa_new(DwWhat what);
void dwa_add_step(DwAccess *a, DwStepKind kind, int64_t n, int arg, SrcLoc loc, const char *op);

/* Code of a compiled location with pass 3's names: prefix of its temporaries, destination, fault label. */
char *tg_code_fill(const char *code, const char *pfx, const char *dst, const char *fail);
/* Compiles the locations of every bound access of the program (bind.c, once bound): DWARF's location
 * expressions, registers' names, symbols' addresses, so that pass 3 asks no leaf. */
void tg_compile_locations(Session *s);

/* ---- the values a .return probe saves at entry ---- */

/* Records e (EX_DWARF, DWA_ENTRY) as saved at the entry of derived probe dp (the binding pass). */
void dwa_add_entry_expr(Session *s, const struct DerivedProbe *dp, Expr *e);
/* The entry expressions (Expr* of DWA_ENTRY nodes) of derived probe dp; NULL when none (codegen). */
PtrVec *dwarf_entry_exprs(Session *s, const struct DerivedProbe *dp);
/* The same for pass 3: NULL unless dp's site (or dp, without one) saves something at entry. */
PtrVec *tg_entry_exprs(Session *s, const struct DerivedProbe *dp);

#endif
