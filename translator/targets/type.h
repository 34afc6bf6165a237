/* type.h - the type of a bound target in neutral words (type.c): what pass 3's printers ask of it (kind, size,
 * sign, pointee, array, members), answered by the leaf that typed it (DWARF or BTF). Used by codegen/targetvars.c. */
#ifndef STAP_TARGETS_TYPE_H
#define STAP_TARGETS_TYPE_H

#include "targets/access.h"

#include <stdint.h>

/* What a stripped type (no typedefs or qualifiers) is to a printer. */
typedef enum TgKind {
	TK_NONE, TK_INT, TK_CHAR, TK_FLOAT, TK_ENUM, TK_PTR, TK_ARRAY, TK_STRUCT, TK_FUNC, TK_OTHER
} TgKind;

struct TgLeafType;   /* the leaf's own description (type.c): a DWARF DIE with its file, or a BTF id */

/* A type, copied by value; its description belongs to the leaf that typed the access. */
typedef struct TgType {
	const struct TgLeafType *leaf;
} TgType;

/* A struct's or union's member: anon (a struct/union without a name) 1 for a struct, 2 for a union. */
typedef struct TgMember {
	TgType type;
	int64_t offset;          /* bytes from the start of the outer object */
	int bit_size, bit_offset;
	const char *name;        /* NULL for an anonymous member */
	int anon;
} TgMember;

/* The access's type into *t: 1, or 0 when it has none (void, or no type known). */
int tg_type_of(const TgAccess *a, TgType *t);
/* t without typedefs and qualifiers into *out, and what it is. */
TgKind tg_type_strip(const TgType *t, TgType *out);
/* Size in bytes of a stripped type; -1 when unknown. */
int64_t tg_type_size(const TgType *stripped);
/* Signedness of a stripped integer or enumeration type. */
int tg_type_signed(const TgType *stripped);
/* What the stripped pointer ptr points to into *to: 0 when unknown (void). */
int tg_type_pointee(const TgType *ptr, TgType *to);
/* An array's element type and the count of its first dimension; returns its dimensions (0: none described). */
int tg_type_array(const TgType *t, TgType *elem, int64_t *count);
/* The members of the stripped struct/union t, in order (*out malloc'd, *n of them); -1 when it is only
 * declared (no definition found). */
int tg_type_members(const TgType *t, TgMember **out, int *n);

/* How $$vars (without $ or $$) prints an entry typed from DWARF: TK_NONE when the access has no DWARF type
 * (then a BTF-typed one prints a->size bytes), TK_INT with *size and *is_signed to print as hex, TK_STRUCT
 * for "{...}", TK_ARRAY for "[...]", TK_OTHER for "?". */
TgKind tg_type_vars_entry(const TgAccess *a, int64_t *size, int *is_signed);

#endif
