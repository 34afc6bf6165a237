/* access.h - the bound form of a target variable: one neutral record (base, location pieces, steps,
 * type) that the DWARF and BTF leaves fill in, the binding pass (bind.c) puts in EX_BOUND nodes and
 * codegen/targetvars.c turns into C. */
#ifndef STAP_TARGETS_ACCESS_H
#define STAP_TARGETS_ACCESS_H

#include "session.h"
#include "targets/site.h"

#include <stdint.h>

struct Btf;
struct DerivedProbe;
struct TgLeafAccess;

/* ---- where the object is: the pieces of a location (the DWARF leaf analyzes its location
 * expressions, dwarf/loc.c; the BTF leaf places parameters in registers or on the stack by the calling
 * convention), each compiled at bind time (locations.c) so that pass 3 only writes them out ---- */

typedef enum TgLocKind {
	TGL_ADDR,          /* the object is in memory: a computed location (code) gives its address */
	TGL_REG,           /* the object is in a register (reg_name) */
	TGL_MEM_REG,       /* the object is in memory at register reg_name + reg_offset */
	TGL_VALUE,         /* a computed location (code) gives the value itself */
	TGL_IMPLICIT,      /* the value is given as bytes */
	TGL_EMPTY,         /* optimized out (an empty piece, an implicit pointer) */
} TgLocKind;

/* One piece of a location (or the whole location when it has no pieces). */
typedef struct TgPiece {
	TgLocKind kind;
	uint64_t offset;         /* bytes from the start of the object */
	uint64_t size;           /* bytes; 0 = the whole object (no pieces) */
	const void *ops;         /* ADDR / VALUE: the leaf's own description (DWARF operations), until compiled */
	size_t nops;
	int reg;                 /* REG from DWARF: its register number, until named */
	const uint8_t *bytes;    /* IMPLICIT */
	size_t nbytes;
	int64_t reg_offset;      /* MEM_REG */
	/* compiled at bind time (tg_compile_locations) for pass 3: */
	const char *reg_name;    /* REG, MEM_REG: the struct pt_regs member ("di") */
	char *code;              /* ADDR / VALUE: C statements leaving it in TG_CODE_DST, names from TG_CODE_PFX,
	                          * a read fault going to TG_CODE_FAIL (tg_code_fill puts pass 3's names in) */
	char *code_err;          /* ... or why it cannot be compiled (reported by pass 3 where it is used) */
} TgPiece;

/* The placeholders of a compiled location's code. */
#define TG_CODE_PFX "\001P"
#define TG_CODE_DST "\001D"
#define TG_CODE_FAIL "\001F"

typedef struct TgLoc {
	TgPiece *pieces;
	int npieces;
	int has_pieces;          /* made of pieces */
} TgLoc;

/* ---- the access: a base, then steps, then what is read ---- */

typedef enum TgBase {
	TGB_LOCATION,        /* a variable at the site's pc: loc */
	TGB_POINTER,         /* @cast: the object is at the address e->args[0] */
	TGB_RETURN,          /* $return: the return value register */
	TGB_CONST,           /* a constant: const_value */
	TGB_SYMBOL,          /* a global known by its symbol (extern declaration in the CU) */
	TGB_ARG,             /* a tracepoint's argument: arg_index in the hit's arguments (c->entry_data) */
} TgBase;

typedef enum TgStepKind {
	TGS_ADD,             /* the object moves n bytes on (member, literal index) */
	TGS_DEREF,           /* the object is a pointer: go to what it points to */
	TGS_INDEX,           /* += e->args[arg] * n (a computed index) */
} TgStepKind;

/* A member's type in the few words a relocating runtime's own copy of the holder needs (BPF's CO-RE
 * matches a member by its name, and its type by kind only: any integer for an integer, any pointer for a
 * pointer, any struct or union for one, an enumeration by its name, an array by its elements). */
typedef enum TgShapeKind {
	TGSH_OTHER,          /* none of these (a function, a bit field, an array of arrays): not relocatable */
	TGSH_INT,            /* an integer (char, _Bool) of size bytes */
	TGSH_FLOAT,          /* a floating-point number of size bytes */
	TGSH_PTR,            /* a pointer */
	TGSH_COMPOSITE,      /* a struct or union (by value) */
	TGSH_ENUM,           /* an enumeration of size bytes named tag (NULL: anonymous) */
} TgShapeKind;

typedef struct TgShape {
	TgShapeKind kind;
	int size;
	char *tag;
	int64_t count;       /* > 0: an array of count such elements; 0: not an array; -1: an array of no count */
} TgShape;

/* One member a TGS_ADD step steps into: named with the struct or union that holds it, and its offset in it
 * as this release lays it out (what a relocating runtime asks the running kernel's types again). */
typedef struct TgStepMember {
	const char *name;    /* "f_path" */
	char *type_name;     /* its type as the leaf spells it ("struct path") */
	char *holder;        /* "struct file", "union thread_union"; NULL: a holder without a name */
	int in_image;        /* the holder is a type of the kernel image (not a module's, nor a program's): the
	                      * running kernel's BTF has it whether or not any module is loaded */
	int64_t offset;      /* bytes from the holder's start (through anonymous members) */
	TgShape shape;
} TgStepMember;

typedef struct TgStep {
	TgStepKind kind;
	int64_t n;
	int arg;
	SrcLoc loc;          /* the '->' or '[' that made it: where a read fault is reported */
	const char *op;      /* "->", "[" */
	PtrVec members;      /* TGS_ADD: the members it steps into, in order (TgStepMember*), none for an index:
	                      * n is their offsets' sum plus what literal indexes add */
	int fixed_stride;    /* TGS_ADD, TGS_INDEX: an index moves by a struct's or union's size, as this release
	                      * lays it out */
} TgStep;

typedef enum TgWhat {
	TGA_READ,            /* the value (integers, enums, pointers; arrays: their address) */
	TGA_ADDRESS,         /* &...: the address */
	TGA_PRETTY,          /* $ / $$: a string */
	TGA_VARS,            /* $$vars, $$parms, $$locals, $$return (and with $ / $$) */
	TGA_ENTRY,           /* @entry(e->left) or a target in a .return probe: saved at entry */
} TgWhat;

/* The type is named by the leaf that bound it: the DWARF leaf's in leaf (type.h asks it), or a BTF id
 * (btf, btf_type). */
typedef struct TgAccess {
	TgWhat what;
	TgBase base;
	struct TgLeafAccess *leaf;   /* the DWARF leaf's own part (dwarf/dwvars.h): its file, DIEs; NULL from BTF */
	TgSite *site;            /* NULL for @cast outside probes; TGA_ENTRY: whose entry_size places the slot */
	uint64_t pc;             /* where the location is evaluated (the site's pc, 0 for none) */
	TgLoc loc;               /* TGB_LOCATION */
	int64_t const_value;     /* TGB_CONST */
	uint64_t sym_addr;       /* TGB_SYMBOL (link address) */
	char *sym_c, *sym_err;   /* TGB_SYMBOL compiled: its run-time address as C, or why there is none */
	char *sym_name;          /* TGB_SYMBOL: the symbol's name (a runtime may find it at load) */
	int in_user_file;        /* its module is a user binary (its memory the current process's) */
	int compiled;            /* tg_compile_locations done */
	int arg_index;           /* TGB_ARG */
	PtrVec steps;            /* TgStep* */
	const struct Btf *btf;   /* typed from BTF (btf/btfvars.c): the BTF of btf_type, for pretty printing */
	uint32_t btf_type;       /* ... the object's BTF type (unstripped; 0: void) */
	int bit_size, bit_offset;    /* a bit field (after the last step) */
	int size, is_signed;     /* TGA_READ of a scalar: bytes read */
	int array_address;       /* TGA_READ of an array: its address */
	int pretty_full;         /* $$ rather than $ */
	int user_mem;            /* its memory is the current process's (@param's __user pointers) */
	char *name;              /* "$file", "@cast" ...: for messages */
	SrcLoc loc_base;         /* the target's own location ($var) */
	const char *op_base;     /* "@var" for @var(...), NULL for $var (named as an identifier) */
	SrcLoc loc_last;         /* where the final read is reported */
	const char *op_last;     /* operator of the final read, NULL = the identifier */
	/* TGA_VARS */
	PtrVec var_names;        /* char* */
	PtrVec var_access;       /* TgAccess* (NULL: "?") */
	/* TGA_ENTRY */
	int slot;                /* offset in the entry data, -1 until code generation places it */
	int slot_size;
	struct DerivedProbe *dp; /* the .return probe it belongs to */
} TgAccess;

/* How a target expression is used: read, addressed (&...), or assigned (guru mode). */
typedef enum BindMode { BM_VALUE, BM_ADDRESS, BM_WRITE } BindMode;

/* A new access (slot -1); a step appended (TGS_ADD steps in a row merged). */
TgAccess *tg_access_new(TgWhat what);
void tg_access_step(TgAccess *a, TgStepKind kind, int64_t n, int arg, SrcLoc loc, const char *op);
/* The member the last step, a TGS_ADD, just stepped into (m's strings taken over): the chain names its
 * members, not only their offsets (what a relocating runtime, BPF's CO-RE, needs). */
void tg_access_member(TgAccess *a, const TgStepMember *m);
/* The last step, an index, moved by the size of elements whose layout is this release's. */
void tg_access_fixed_stride(TgAccess *a);

/* Code of a compiled location with pass 3's names: prefix of its temporaries, destination, fault label. */
char *tg_code_fill(const char *code, const char *pfx, const char *dst, const char *fail);
/* Compiles the locations of every bound access of the program (bind.c, once bound): DWARF's location
 * expressions, registers' names, symbols' addresses, so that pass 3 asks no leaf. */
void tg_compile_locations(Session *s);

/* ---- the values a .return probe saves at entry ---- */

/* Records e (EX_BOUND, TGA_ENTRY) as saved at the entry of derived probe dp (the binding pass). */
void tg_add_entry_expr(Session *s, const struct DerivedProbe *dp, Expr *e);
/* The entry expressions (Expr* of TGA_ENTRY nodes) of derived probe dp; NULL when none (codegen). */
PtrVec *tg_entry_list(Session *s, const struct DerivedProbe *dp);
/* The same for pass 3: NULL unless dp's site (or dp, without one) saves something at entry. */
PtrVec *tg_entry_exprs(Session *s, const struct DerivedProbe *dp);

#endif
