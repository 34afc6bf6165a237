/* btf.h - the kernel's BTF type information (the documented .BTF format): reading a blob (reader.c),
 * finding the target kernel's (source.c), typing target variables from it (btfvars.c). */
#ifndef STAP_BTF_H
#define STAP_BTF_H

#include <stddef.h>
#include <stdint.h>

enum {
	BTF_K_INT = 1, BTF_K_PTR, BTF_K_ARRAY, BTF_K_STRUCT, BTF_K_UNION, BTF_K_ENUM, BTF_K_FWD, BTF_K_TYPEDEF,
	BTF_K_VOLATILE, BTF_K_CONST, BTF_K_RESTRICT, BTF_K_FUNC, BTF_K_FUNC_PROTO, BTF_K_VAR, BTF_K_DATASEC,
	BTF_K_FLOAT, BTF_K_DECL_TAG, BTF_K_TYPE_TAG, BTF_K_ENUM64, BTF_K_MAX = BTF_K_ENUM64,
};

/* A FUNC's linkage (its vlen field). */
enum { BTF_FUNC_STATIC, BTF_FUNC_GLOBAL, BTF_FUNC_EXTERN };

/* One parsed BTF blob: the types indexed by id (1..ntypes; 0 is void). */
typedef struct Btf {
	const uint8_t *data;        /* the blob (header, types, strings) */
	size_t size;
	void *owned;                /* freed by btf_free (NULL when the caller owns data) */
	const char *strs;
	uint32_t str_len;
	uint32_t ntypes;            /* split: base's and its own */
	const uint32_t **types;     /* types[id]: the record (name_off, info, size/type, then its data) */
	const struct Btf *base;     /* a module's split BTF: the kernel's, whose ids and strings come first */
	uint32_t first_own;         /* the first id of this blob's own types (1 without a base) */
	uint32_t str_base;          /* name offsets from here are this blob's strings (0 without a base) */
	char *module;               /* a module's: its name ("nfs"); NULL for the kernel's */
	char **twice;               /* the functions its symbol table (a module's .ko, /proc/kallsyms for the running
				     * kernel or a loaded module) defines more than once, sorted */
	int ntwice;
	int twice_read;             /* the running kernel's: twice read (btf_kernel_functions) */
	char *origin;               /* where it came from ("/sys/kernel/btf/vmlinux", "/boot/vmlinuz-KVER") */
	char build_id[41];          /* source.c: the kernel's build id (hex), "" when unknown */
	struct TpCatalog *tracepoints;  /* btftracepoints.c: the kernel's tracepoints, read on first use */
} Btf;

/* A member found in a struct or union (anonymous members searched through). */
typedef struct BtfMember {
	uint32_t type;
	int64_t offset;             /* bytes from the start of the outer object */
	int bit_size;               /* 0: not a bit field */
	int bit_offset;             /* bit field: bits from the least significant bit of byte offset */
} BtfMember;

/* reader.c */
/* Parses a blob (checked: header, every record inside the type section, name offsets inside the
 * strings). The Btf points into data, which must outlive it. NULL with *err set. */
Btf *btf_parse(const void *data, size_t size, char **err);
/* A module's split BTF over base (the kernel's, which must outlive it). */
Btf *btf_parse_split(const void *data, size_t size, const Btf *base, char **err);
void btf_free(Btf *b);
int btf_kind(const Btf *b, uint32_t id);
int btf_vlen(const Btf *b, uint32_t id);
const char *btf_name(const Btf *b, uint32_t id);     /* "" when anonymous */
/* The id of the type named name of that kind (0 for any kind), 0 when there is none. */
uint32_t btf_find(const Btf *b, const char *name, int kind);
/* id under typedefs and const/volatile/restrict/type tags; 0 for void. */
uint32_t btf_strip(const Btf *b, uint32_t id);
/* id's target type: a pointer's pointee, a typedef's or qualifier's type, a FUNC's prototype, a
 * FUNC_PROTO's return type, an array's element. */
uint32_t btf_ref(const Btf *b, uint32_t id);
/* Size in bytes (typedefs and qualifiers followed, arrays counted), -1 when unknown. */
int64_t btf_size(const Btf *b, uint32_t id);
/* A stripped INT or ENUM is signed. */
int btf_is_signed(const Btf *b, uint32_t stripped);
/* An array's element type and count. */
int btf_array(const Btf *b, uint32_t id, uint32_t *elem, uint32_t *count);
/* The FUNC_PROTO of a FUNC, of a pointer to one or of a typedef of those (btf_trace_NAME); 0 if none. */
uint32_t btf_func_proto(const Btf *b, uint32_t id);
/* The type @cast names: "struct NAME", "union NAME", "enum NAME", or a bare name (a struct, union,
 * typedef, enum or base type of that name, in that order); 0 when there is none. */
uint32_t btf_find_type(const Btf *b, const char *spec);
/* A FUNC_PROTO's parameter i (0-based): its name and type; -1 when there is none. */
int btf_param(const Btf *b, uint32_t proto, int i, const char **name, uint32_t *type);
/* Member name of struct/union su (stripped), through anonymous members. 0 or -1. */
int btf_member(const Btf *b, uint32_t su, const char *name, BtfMember *out);
/* The i-th member (0-based) of struct/union su (stripped): its name ("" for an anonymous one) and place.
 * 0, or -1 past the last. */
int btf_member_at(const Btf *b, uint32_t su, int i, const char **name, BtfMember *out);
/* stripped is a char type (a 1-byte INT named char, signed char or unsigned char). */
int btf_is_char(const Btf *b, uint32_t stripped);
/* A struct/union that is only a FWD here: its definition by name; id itself otherwise. */
uint32_t btf_complete(const Btf *b, uint32_t id);
/* "struct file*"-style spelling; malloc'd. */
char *btf_type_name(const Btf *b, uint32_t id);

/* source.c */
struct Session;
/* The target kernel's BTF, found on first call (see source.c for where it looks): NULL with *err
 * set when there is none. Kept in the session. */
Btf *btf_kernel(struct Session *s, const char **err);
/* A module's BTF, split over the kernel's: module("NAME") or a .ko path; /sys/kernel/btf/NAME for the running
 * kernel, else the .BTF section of its .ko (.ko.xz, .ko.zst, .ko.gz) under /lib/modules/KVER. NULL with *err set. */
Btf *btf_module(struct Session *s, const char *name, const char **err);
/* name is a function a module defines more than once (static functions of one name: "MOD:NAME" finds one of
 * them, and BTF does not say which its FUNC describes). Read from the .ko's symbol table. */
int btf_function_twice(const Btf *b, const char *name);
/* btf_kernel, for probing its functions: for the running kernel, its functions defined twice too (from
 * /proc/kallsyms, read beside the BTF's parse, cached by build id); another kernel's BTF knows none. */
Btf *btf_kernel_functions(struct Session *s, const char **err);
/* For the running kernel: starts reading that list now (a thread; main.c, before pass 1). */
void btf_kernel_twice_prefetch(struct Session *s);
/* The build id of the kernel whose BTF was read ("" when none was, or it is unknown): recorded in
 * the module for staprun's check (targets/kernelid.c). */
const char *btf_kernel_build_id(struct Session *s);

/* btf_kernel read (its image found), then btf_kernel_build_id: the Session's kernel_image_build_id, which
 * the driver sets, for dwarf/debuginfo.c to ask debuginfod by when the running kernel's notes cannot say. */
const char *btf_kernel_image_build_id(struct Session *s);

/* btftracepoints.c */
struct PtrVec;
/* Pushes onto out (Tracepoint*, owned by the catalog) the kernel's tracepoints of BTF whose system
 * matches system_glob (NULL: any) and name name_glob, as dwarf_tracepoints does (a tracepoint in no
 * header has the system "": kernel.trace("NAME") finds it). Cached in $SYSTEMTAP_DIR/cache/btf/HASH.tp. */
int btf_tracepoints(struct Session *s, Btf *btf, const char *system_glob, const char *name_glob, struct PtrVec *out);
int btf_tracepoint_system_known(struct Session *s, Btf *btf, const char *system_glob);

/* tpsystems.c */
struct StrMap;
/* The kernel source tree holding the target's trace headers (include/trace/events): the build tree,
 * its "source", /lib/modules/KVER/source, or the tree Debian's build Makefile includes. NULL if none. */
char *btf_tp_headers_tree(struct Session *s);
/* Adds to systems (event name -> system, both malloc'd, the caller's) what tree's trace headers
 * declare: include/trace/events, include/ras, arch/x86/include/asm/trace and the trace headers of
 * arch/x86/include/asm (msr-trace.h). Returns
 * how many headers were read. */
int btf_tp_systems(const char *tree, struct StrMap *systems);
/* The running kernel's tracefs events directory (/sys/kernel/tracing/events, or under debugfs), when one is
 * mounted; NULL if none.  Adds to systems what it lists (events/SYSTEM/EVENT): how many, or -1. */
const char *btf_tp_tracefs_events(void);
int btf_tp_systems_tracefs(const char *events, struct StrMap *systems);

#endif
