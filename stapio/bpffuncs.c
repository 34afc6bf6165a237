/* bpffuncs.c - the entry addresses of the kernel functions whose returns a BPF object probes (runtime/bpf/records.h's
 * STP_BPF_FUNCS_SECTION), read from /proc/kallsyms and written into the object before it loads, and whether
 * /proc/kallsyms lists the globals it reads by name (libbpf's __ksym externs); used by bpfrun.c. */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfglue.h"
#include "../runtime/bpf/records.h"

/* The function a kretprobe program returns from: its index N (program stp_kp_N), the symbol's offset, its name and
 * module ("" for the kernel) as its section "kretprobe/OFFSET/[MODULE:]NAME" gives them; 0 when p is none. */
static int return_point(const struct bpf_program *p, unsigned long *index, unsigned long long *offset, char *name,
			size_t name_size, char *module, size_t module_size)
{
	const char *sec = bpf_program__section_name(p), *prog = bpf_program__name(p), *sym, *colon;
	char *end;

	if (strncmp(prog, "stp_kp_", 7) || strncmp(sec, "kretprobe/", 10))
		return 0;
	*index = strtoul(prog + 7, &end, 10);
	if (*end)
		return 0;
	*offset = strtoull(sec + 10, &end, 16);
	if (*end != '/')
		return 0;
	sym = end + 1;
	colon = strchr(sym, ':');
	snprintf(module, module_size, "%.*s", colon ? (int)(colon - sym) : 0, sym);
	snprintf(name, name_size, "%s", colon ? colon + 1 : sym);
	return 1;
}

/* A function whose entry address is wanted, for program index */
struct wanted {
	char name[256], module[256];
	unsigned long long offset;
	unsigned long index;
};

static int by_name(const void *a, const void *b)
{
	const struct wanted *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}

/* One pass over /proc/kallsyms: each wanted symbol's address (in its module, "" the kernel image, or in any with
 * any_module; the first the list gives, as the kernel's lookup by name takes it) plus its offset into addrs[index] */
static void kallsyms_addresses(FILE *f, struct wanted *w, size_t nw, uint64_t *addrs, int any_module)
{
	char line[512];

	qsort(w, nw, sizeof(*w), by_name);
	while (fgets(line, sizeof(line), f)) {
		struct wanted key = { .module = "" }, *hit;
		unsigned long long a;
		char type;

		if (sscanf(line, "%llx %c %255s [%255[^]]]", &a, &type, key.name, key.module) < 3 || !a)
			continue;
		if (any_module)
			key.module[0] = 0;
		hit = bsearch(&key, w, nw, sizeof(*w), by_name);
		/* every program of that function (bsearch finds one of a run of equal names) */
		for (; hit && hit > w && !by_name(hit - 1, &key); hit--)
			;
		for (; hit && hit < w + nw && !by_name(hit, &key); hit++)
			if (!addrs[hit->index])
				addrs[hit->index] = a + hit->offset;
	}
}

int bpf_funcs_set(struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, STP_BPF_FUNCS_SECTION);
	struct bpf_program *p;
	struct wanted *w = NULL;
	size_t size = 0, n, nw = 0, cap = 0;
	uint64_t *addrs;
	FILE *f;
	int rc;

	if (!m)
		return 0;
	if (!bpf_map__initial_value(m, &size) || size % 8)
		return -1;
	n = size / 8;
	if (!(addrs = calloc(n ? n : 1, 8)))
		return -1;
	bpf_object__for_each_program(p, obj) {
		struct wanted one;

		if (!return_point(p, &one.index, &one.offset, one.name, sizeof(one.name), one.module, sizeof(one.module)) ||
		    one.index >= n)
			continue;
		if (nw == cap) {
			struct wanted *more = realloc(w, (cap = cap ? 2 * cap : 16) * sizeof(*w));

			if (!more)
				break;
			w = more;
		}
		w[nw++] = one;
	}
	/* unreadable: the returns' addr() stays their return site */
	if (nw && (f = fopen("/proc/kallsyms", "re")) != NULL) {
		kallsyms_addresses(f, w, nw, addrs, 0);
		fclose(f);
	}
	rc = bpf_map__set_initial_value(m, addrs, size);
	free(addrs);
	free(w);
	return rc;
}

int bpf_ksyms_missing(struct bpf_object *obj, char *missing, size_t size)
{
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *sec;
	const struct btf_var_secinfo *vs;
	struct wanted *w;
	uint64_t *found;
	size_t nw = 0;
	FILE *f;
	int id, rc = 0;

	if (!btf || (id = btf__find_by_name_kind(btf, ".ksyms", BTF_KIND_DATASEC)) <= 0 || !(sec = btf__type_by_id(btf, id)))
		return 0;
	vs = btf_var_secinfos(sec);
	if (!(w = calloc(btf_vlen(sec) + 1, sizeof(*w))) || !(found = calloc(btf_vlen(sec) + 1, 8))) {
		free(w);
		return 0;
	}
	for (int i = 0; i < btf_vlen(sec); i++) {
		const struct btf_type *v = btf__type_by_id(btf, vs[i].type);

		if (!v || !btf_is_var(v))
			continue;
		snprintf(w[nw].name, sizeof(w[nw].name), "%s", btf__name_by_offset(btf, v->name_off));
		w[nw].index = nw;
		nw++;
	}
	/* any module's symbol of that name: a name in the kernel image's list and a module's both resolve */
	if (nw && (f = fopen("/proc/kallsyms", "re")) != NULL) {
		kallsyms_addresses(f, w, nw, found, 1);
		fclose(f);
		for (size_t i = 0; i < nw && !rc; i++)
			if (!found[w[i].index]) {
				snprintf(missing, size, "%s", w[i].name);
				rc = 1;
			}
	}
	free(found);
	free(w);
	return rc;
}
