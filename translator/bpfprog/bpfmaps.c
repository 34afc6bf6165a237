/* bpfmaps.c - a global array on the BPF runtime: a BPF hash map (a wrapping a% numbered by insertion) of a key struct and a
 * value, and its gm_NAME__ functions (find, get, slot, delete: what codegen/maps.c and expr.c call), keys built
 * in the context's scratch; written with the globals by object.c. */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "elaborate/builtins.h"

#include <stdlib.h>
#include <string.h>

/* A BPF hash map's key is at most 512 bytes (the kernel's MAX_BPF_STACK): each string key gets an equal
 * share of what the long keys leave, a multiple of 8, at most MAXSTRINGLEN (a longer string is cut there);
 * less when every key the program gives the array is shorter (execname(), literals): the kernel hashes and
 * compares the whole key at each lookup. */
#define BPF_KEY_MAX 512

typedef struct KeyBound {
	const Symbol *arr;
	int bytes;              /* the longest string key given, with its NUL */
	PtrVec own;             /* Symbol*: foreach's key variables over arr: its own keys */
	PtrVec assigned;        /* Symbol*: variables assigned (an own key assigned is no longer one) */
} KeyBound;

static int listed(const PtrVec *v, const void *p)
{
	for (int i = 0; i < v->len; i++)
		if (v->items[i] == p)
			return 1;
	return 0;
}

/* the most bytes, with the NUL, a string key can have: execname()'s 16, a literal's, one of arr's own keys
 * (a foreach's variable, never assigned) nothing new, else unbounded */
static int string_bound(const KeyBound *kb, const Expr *k)
{
	if (k->kind == EX_STRING)
		return (int)strlen(k->str) + 1;
	if (k->kind == EX_WILDCARD)
		return 0;
	if (k->kind == EX_IDENT && listed(&kb->own, k->sym) && !listed(&kb->assigned, k->sym))
		return 0;
	if (k->kind == EX_CALL && !k->fn && k->builtin && !strcmp(k->builtin->name, "execname"))
		return 16;
	return BPF_KEY_MAX;
}

static void bound_keys(KeyBound *kb, const PtrVec *keys)
{
	for (int i = 0; i < keys->len && i < kb->arr->nkeys; i++) {
		int b = kb->arr->keytypes[i] == TY_STRING ? string_bound(kb, keys->items[i]) : 0;
		if (b > kb->bytes)
			kb->bytes = b;
	}
}

static int bound_expr(Expr *e, void *ctx)
{
	KeyBound *kb = ctx;

	if (e->kind == EX_INDEX && e->sym == kb->arr)
		bound_keys(kb, &e->args);
	if (e->kind == EX_BINARY && e->op == OP_IN && e->right && e->right->sym == kb->arr) {
		if (e->left->kind == EX_CALL && !e->left->str) {
			bound_keys(kb, &e->left->args);
		} else {
			PtrVec one = { 0 };
			vec_push(&one, e->left);
			bound_keys(kb, &one);
			free(one.items);
		}
	}
	return 0;
}

/* the first walk: arr's own keys, and what is assigned */
static int own_expr(Expr *e, void *ctx)
{
	KeyBound *kb = ctx;

	if (e->kind == EX_ASSIGN && e->left->kind == EX_IDENT)
		vec_push(&kb->assigned, e->left->sym);
	return 0;
}

static int own_stmt(Stmt *st, void *ctx)
{
	KeyBound *kb = ctx;

	if (st->kind == ST_FOREACH && st->array && st->array->sym == kb->arr)
		for (int i = 0; i < st->keys.len; i++)
			vec_push(&kb->own, ((Expr *)st->keys.items[i])->sym);
	return 0;
}

static int bound_stmt(Stmt *st, void *ctx)
{
	KeyBound *kb = ctx;

	if (st->kind == ST_FOREACH && st->array && st->array->sym == kb->arr)
		bound_keys(kb, &st->slice);
	return 0;
}

int bpf_key_string_bytes(Session *s, const Symbol *arr)
{
	int nstr = 0, nlong = 0, share;
	KeyBound kb = { .arr = arr };
	AstVisitor own = { .stmt = own_stmt, .expr = own_expr, .ctx = &kb };
	AstVisitor v = { .stmt = bound_stmt, .expr = bound_expr, .ctx = &kb };

	for (int i = 0; i < arr->nkeys; i++) {
		if (arr->keytypes[i] == TY_STRING)
			nstr++;
		else
			nlong++;
	}
	if (!nstr)
		return 0;
	share = ((BPF_KEY_MAX - 8 * nlong) / nstr) & ~7;
	ast_walk_program(&s->prog, &own);
	ast_walk_program(&s->prog, &v);
	free(kb.own.items);
	free(kb.assigned.items);
	kb.bytes = (kb.bytes + 7) & ~7;
	return kb.bytes > 0 && kb.bytes < share ? kb.bytes : share;
}

/* the map and its key and value types: with the globals */
void bpf_map_decl(Session *s, const Symbol *arr, int has_hist, StrBuf *d)
{
	const char *n = arr->name;
	int sbytes = bpf_key_string_bytes(s, arr);
	char *limit = arr->max_entries ? xasprintf("%lld", (long long)arr->max_entries) : xstrdup("MAXMAPENTRIES");

	sb_printf(d, "\n/* %s: a BPF hash map, its key and value, its gm_ functions (translator/bpfprog/bpfmaps.c) */\n", n);
	sb_printf(d, "struct gk_%s {\n", n);
	for (int i = 0; i < arr->nkeys; i++) {
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(d, "\tchar k%d[STP_KEY_STR(%d)];\n", i, sbytes);
		else
			sb_printf(d, "\tint64_t k%d;\n", i);
	}
	if (!arr->nkeys)
		sb_puts(d, "\tint64_t k0;\n");
	if (arr->type == TY_STATS) {   /* an accumulator per key and CPU (runtime/bpf/stats.h) */
		sb_printf(d, "};\nstruct {\n\t__uint(type, BPF_MAP_TYPE_PERCPU_HASH);\n\t__uint(max_entries, %s);\n"
			  "\t__type(key, struct gk_%s);\n\t__uint(value_size, STP_STAT_DATA_SIZE(%d));\n} g_%s SEC(\".maps\");\n",
			  limit, n, has_hist, n);
		/* wrapping: each entry's insertion number beside it, in a map every CPU sees (runtime/bpf/maps.h) */
		if (arr->wrap)
			sb_printf(d, "struct {\n\t__uint(type, BPF_MAP_TYPE_HASH);\n\t__uint(max_entries, %s);\n"
				  "\t__type(key, struct gk_%s);\n\t__type(value, u64);\n} g_%s__order SEC(\".maps\");\n", limit, n, n);
		sb_printf(d, "struct gv_%s {\n\tint64_t v;\n};   /* an aggregate foreach orders by (bpfprog/loops.c) */\n", n);
	} else {
		/* a wrapping array's entries carry their insertion's number: the oldest gives way (gm_NAME__slot_) */
		sb_printf(d, "};\nstruct gv_%s {\n\t%s;\n%s};\n", n, arr->type == TY_STRING ? "char v[MAXSTRINGLEN]" : "int64_t v",
			  arr->wrap ? "\tu64 seq;\n" : "");
		sb_printf(d, "struct {\n\t__uint(type, BPF_MAP_TYPE_HASH);\n\t__uint(max_entries, %s);\n\t__type(key, struct gk_%s);\n"
			  "\t__type(value, struct gv_%s);\n} g_%s SEC(\".maps\");\n", limit, n, n, n);
	}
	free(limit);
	sb_printf(d, "#define GM_%s__VAL 0\n", n);
}

/* its functions: after the context (runtime/bpf/context.h), whose scratch holds the keys */
void bpf_map_functions(const Symbol *arr, StrBuf *d)
{
	const char *n = arr->name;

	/* the key, in this CPU's scratch (a key may be larger than a BPF program's stack) */
	sb_printf(d, "static __always_inline struct gk_%s *gm_%s__key(const struct stp_key *k, unsigned int comm)\n{\n"
		  "\tstruct gk_%s *key = stp_key_scratch();\n\n\t(void)comm;\n\tif (!key)\n\t\treturn NULL;\n"
		  "\t__builtin_memset(key, 0, sizeof(*key));\n", n, n, n);
	for (int i = 0; i < arr->nkeys; i++) {
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(d, "\tif (bpf_probe_read_kernel_str(key->k%d, sizeof(key->k%d), k[%d].s) < 0)\n\t\tkey->k%d[0] = 0;\n",
				  i, i, i, i);
		else
			sb_printf(d, "\tkey->k%d = k[%d].n;\n", i, i);
	}
	sb_puts(d, "\treturn key;\n}\n");
	sb_printf(d, "static __always_inline struct stp_map_entry *gm_%s__find_(const struct stp_key *k, unsigned int comm)\n{\n"
		  "\tstruct gk_%s *key = gm_%s__key(k, comm);\n\n\treturn key ? bpf_map_lookup_elem(&g_%s, key) : NULL;\n}\n",
		  n, n, n, n);
	sb_printf(d, "#define gm_%s__find(m, k, comm) gm_%s__find_((k), (comm))\n", n, n);
	if (arr->type == TY_STRING)
		sb_printf(d, "#define gm_%s__get(m, k, comm) \\\n\t({ struct stp_map_entry *e_ = gm_%s__find_((k), (comm)); "
			  "e_ ? (const char *)e_ : \"\"; })\n", n, n);
	else
		sb_printf(d, "#define gm_%s__get(m, k, comm) \\\n\t({ struct stp_map_entry *e_ = gm_%s__find_((k), (comm)); "
			  "e_ ? *(int64_t *)e_ : 0; })\n", n, n);
	sb_printf(d, "static __always_inline void gm_%s__delete_(const struct stp_key *k, unsigned int comm)\n{\n"
		  "\tstruct gk_%s *key = gm_%s__key(k, comm);\n\n\tif (key)\n\t\tbpf_map_delete_elem(&g_%s, key);\n}\n",
		  n, n, n, n);
	sb_printf(d, "#define gm_%s__delete(m, k, comm) gm_%s__delete_((k), (comm))\n", n, n);
	/* the entry, created zeroed when absent; a full map is the MAXMAPENTRIES error near where, or for a wrapping
	 * array (not of statistics) the oldest entry's removal (runtime/bpf/maps.h's stp_map_wrap_insert) */
	sb_printf(d, "static __always_inline struct stp_map_entry *gm_%s__slot_(struct stp_context *c, const struct stp_key *k,\n"
		  "\t\t\t\t\t\t\t unsigned int comm, const char *where)\n{\n"
		  "\tstruct gk_%s *key = gm_%s__key(k, comm);\n\tstruct stp_map_entry *e;\n\n"
		  "\tif (!key)\n\t\treturn NULL;\n\te = bpf_map_lookup_elem(&g_%s, key);\n\tif (e)\n\t\treturn e;\n", n, n, n, n);
	if (arr->wrap && arr->type != TY_STATS)
		sb_printf(d, "\tstp_map_wrap_insert(c, &g_%s, key, sizeof(*key), sizeof(struct gv_%s));\n", n, n);
	else if (arr->wrap)
		sb_printf(d, "\tstp_pmap_wrap_insert(c, &g_%s, &g_%s__order, key, sizeof(*key));\n", n, n);
	else
		sb_printf(d, "\tbpf_map_update_elem(&g_%s, key, stp_zero_value(), BPF_NOEXIST);\n", n);
	sb_printf(d, "\te = bpf_map_lookup_elem(&g_%s, key);\n"
		  "\tif (!e)\n\t\tstp_error_near(c, \"Array overflow, check MAXMAPENTRIES\", where);\n\treturn e;\n}\n", n);
	sb_printf(d, "#define gm_%s__slot(c, m, k, comm, where) gm_%s__slot_((c), (k), (comm), (where))\n", n, n);
	/* the key of g_NAME, for the runtime's stp_pmap_* macros (stats.h); what they do beside a deletion: a wrapping
	 * array of statistics' insertion numbers follow its entries */
	sb_printf(d, "#define g_%s__key(k) gm_%s__key((k), 0)\n", n, n);
	if (arr->type == TY_STATS && arr->wrap)
		sb_printf(d, "#define g_%s__forget(k) bpf_map_delete_elem(&g_%s__order, (k))\n"
			  "#define g_%s__forget_all() stp_map_clear(g_%s__order)\n", n, n, n, n);
	else
		sb_printf(d, "#define g_%s__forget(k) ((void)0)\n#define g_%s__forget_all() ((void)0)\n", n, n);
	/* a slice a[k, *]: the fixed keys as a key (the others zero), entries matching them found or deleted by a
	 * callback of bpf_for_each_map_elem (runtime/bpf/maps.h's stp_map_*_slice) */
	sb_printf(d, "static __always_inline struct gk_%s *gm_%s__slice_key(const struct stp_key *k, const bool *want)\n{\n"
		  "\tstruct gk_%s *key = stp_key_scratch();\n\n\tif (!key)\n\t\treturn NULL;\n"
		  "\t__builtin_memset(key, 0, sizeof(*key));\n", n, n, n);
	for (int i = 0; i < arr->nkeys; i++) {
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(d, "\tif (want[%d] && bpf_probe_read_kernel_str(key->k%d, sizeof(key->k%d), k[%d].s) < 0)\n"
				  "\t\tkey->k%d[0] = 0;\n", i, i, i, i, i);
		else
			sb_printf(d, "\tif (want[%d])\n\t\tkey->k%d = k[%d].n;\n", i, i, i);
	}
	sb_puts(d, "\treturn key;\n}\n");
	sb_printf(d, "static long gm_%s__slice_one(void *map, struct gk_%s *key, void *value, struct stp_slice *x)\n{\n"
		  "\tconst struct gk_%s *fixed = x->fixed;\n\n\t(void)value;\n", n, n, n);
	for (int i = 0; i < arr->nkeys; i++) {
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(d, "\tif (x->want[%d] && stp_key_strcmp(key->k%d, fixed->k%d, sizeof(key->k%d)))\n\t\treturn 0;\n",
				  i, i, i, i);
		else
			sb_printf(d, "\tif (x->want[%d] && key->k%d != fixed->k%d)\n\t\treturn 0;\n", i, i, i);
	}
	sb_printf(d, "\tx->found = 1;\n\tif (!x->del)\n\t\treturn 1;\n\tbpf_map_delete_elem(map, key);\n\tg_%s__forget(key);\n"
		  "\treturn 0;\n}\n", n);
	sb_printf(d, "#define g_%s__slice(k, want, del) \\\n\tstp_map_slice(&g_%s, gm_%s__slice_key((k), (want)), (want), (del), gm_%s__slice_one)\n",
		  n, n, n, n);
}
