/* btf-driver.c - prints what translator/btf/reader.c finds in a BTF blob: a function's prototype and
 * struct members' offsets and sizes. Used by tests/unit/btf.t. */
#include "btf/btf.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

/* btf-driver BLOB FUNC [STRUCT MEMBER...] */
int main(int argc, char **argv)
{
	size_t size;
	char *data, *err = NULL, *tn;
	Btf *btf;
	uint32_t fn, proto, type, su;
	const char *name;

	if (argc < 3 || !(data = read_file(argv[1], &size))) {
		fprintf(stderr, "usage: btf-driver BLOB FUNC [STRUCT MEMBER...]\n");
		return 2;
	}
	if (!(btf = btf_parse(data, size, &err))) {
		fprintf(stderr, "btf_parse: %s\n", err);
		return 1;
	}
	if (!(fn = btf_find(btf, argv[2], BTF_K_FUNC))) {
		fprintf(stderr, "no FUNC %s\n", argv[2]);
		return 1;
	}
	proto = btf_ref(btf, fn);
	printf("kernel.function(\"%s\")", argv[2]);
	for (int i = 0; btf_param(btf, proto, i, &name, &type) == 0; i++) {
		tn = btf_type_name(btf, type);
		printf(" $%s:%s", name, tn);
		free(tn);
	}
	tn = btf_type_name(btf, btf_ref(btf, proto));
	printf(" -> %s\n", tn);
	free(tn);
	if (argc > 3) {
		if (!(su = btf_find(btf, argv[3], BTF_K_STRUCT))) {
			fprintf(stderr, "no struct %s\n", argv[3]);
			return 1;
		}
		for (int i = 4; i < argc; i++) {
			BtfMember m;
			if (btf_member(btf, su, argv[i], &m) != 0) {
				fprintf(stderr, "struct %s has no member %s\n", argv[3], argv[i]);
				return 1;
			}
			printf("%s %lld %lld\n", argv[i], (long long)m.offset, (long long)btf_size(btf, m.type));
		}
	}
	btf_free(btf);
	free(data);
	return 0;
}
