/* bpfglobals.c - a BPF run's NAME=VALUE settings of the script's globals (stap -G, staprun NAME.bo NAME=VALUE, as a
 * module's parameters): written into the object's global data before it loads.  Used by bpfrun.c. */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfglue.h"
#include "../common/log.h"

/* Where the global g_NAME lives: its data section's map, its offset and bytes there, and whether it is a string (an
 * array of char) or a number (8 bytes); 0, or -1 when the object has no such global. */
static int find_global(struct bpf_object *obj, const char *name, struct bpf_map **map, size_t *offset, size_t *size,
		       int *is_string)
{
	static const char *const sections[] = { ".data", ".bss" };
	const struct btf *btf = bpf_object__btf(obj);
	char var[256];

	if (!btf || snprintf(var, sizeof(var), "g_%s", name) >= (int)sizeof(var))
		return -1;
	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		int id = btf__find_by_name_kind(btf, sections[s], BTF_KIND_DATASEC);
		const struct btf_type *sec = id > 0 ? btf__type_by_id(btf, id) : NULL;
		const struct btf_var_secinfo *vs;
		size_t bytes = 0;

		*map = bpf_object__find_map_by_name(obj, sections[s]);
		if (!*map || !sec || !bpf_map__initial_value(*map, &bytes))
			continue;
		vs = btf_var_secinfos(sec);
		for (unsigned i = 0; i < btf_vlen(sec); i++, vs++) {
			const struct btf_type *v = btf__type_by_id(btf, vs->type), *t;

			if (!v || strcmp(btf__name_by_offset(btf, v->name_off), var) || vs->offset + vs->size > bytes)
				continue;
			t = btf__type_by_id(btf, btf__resolve_type(btf, v->type));
			*offset = vs->offset;
			*size = vs->size;
			*is_string = t && btf_is_array(t);
			return (*is_string || vs->size == 8) ? 0 : -1;
		}
	}
	return -1;
}

/* value into the global's bytes of its section's initial value (a copy, set again) */
static int write_global(struct bpf_map *map, size_t offset, const void *value, size_t len, size_t size)
{
	size_t bytes = 0;
	const void *now = bpf_map__initial_value(map, &bytes);
	char *copy = now ? malloc(bytes) : NULL;
	int rc;

	if (!copy)
		return -1;
	memcpy(copy, now, bytes);
	memset(copy + offset, 0, size);
	memcpy(copy + offset, value, len);
	rc = bpf_map__set_initial_value(map, copy, bytes);
	free(copy);
	return rc;
}

int bpf_globals_set(struct bpf_object *obj, char *const *settings, int n)
{
	for (int i = 0; i < n; i++) {
		const char *eq = strchr(settings[i], '='), *value;
		char name[256], *end;
		struct bpf_map *map;
		size_t offset, size;
		int is_string, rc;

		if (!eq || eq == settings[i] || (size_t)(eq - settings[i]) >= sizeof(name)) {
			err("a global's setting is NAME=VALUE, not \"%s\"", settings[i]);
			return -1;
		}
		memcpy(name, settings[i], (size_t)(eq - settings[i]));
		name[eq - settings[i]] = 0;
		value = eq + 1;
		if (find_global(obj, name, &map, &offset, &size, &is_string) < 0) {
			err("cannot set %s: the script has no global %s that it reads", settings[i], name);
			return -1;
		}
		if (is_string) {
			if (strlen(value) >= size) {
				err("cannot set %s: a string global holds at most %zu bytes (MAXSTRINGLEN - 1)", name, size - 1);
				return -1;
			}
			rc = write_global(map, offset, value, strlen(value), size);
		} else {
			long long v;

			errno = 0;
			v = strtoll(value, &end, 0);
			if (!*value || *end || errno) {
				err("cannot set %s: %s is a number, not \"%s\"", name, name, value);
				return -1;
			}
			rc = write_global(map, offset, &v, sizeof(v), size);
		}
		if (rc < 0) {
			err("cannot set %s: %s", settings[i], strerror(errno ? errno : EINVAL));
			return -1;
		}
	}
	return 0;
}
