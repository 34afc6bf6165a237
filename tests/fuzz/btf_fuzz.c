/* btf_fuzz.c - libFuzzer target for the BTF reader (translator/btf/reader.c): each input is a blob, or a base blob
 * and a module's split blob over it, parsed and then asked every question btf/btfvars.c asks.  Built by `make fuzz`; see tests/fuzz/README.md. */
#include "btf/btf.h"
#include "fuzz_env.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int verbose;   /* STAP_FUZZ_STDERR=1: say whether each blob was accepted, or why not */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	verbose = fuzz_stderr_wanted();
	return 0;
}

/* Every question of every type id (and a few past the last): ASan sees a read out of the blob, UBSan an
 * overflow, the fuzzer's timeout a loop through a cycle of references. */
static void ask(const Btf *b)
{
	static const char *const specs[] = { "file", "struct file", "union u", "enum color", "ulong", "int", "x" };

	for (uint32_t id = 0; id <= b->ntypes + 2; id++) {
		const char *name;
		uint32_t type, elem, count, strip = btf_strip(b, id);
		BtfMember m;
		char *spelled;

		(void)btf_kind(b, id);
		(void)btf_vlen(b, id);
		if (strlen(btf_name(b, id)) && btf_find(b, btf_name(b, id), btf_kind(b, id)) == 0)
			abort();   /* a named type is not found by its name */
		(void)btf_ref(b, id);
		(void)btf_size(b, id);
		(void)btf_is_signed(b, strip);
		(void)btf_is_char(b, strip);
		(void)btf_array(b, id, &elem, &count);
		(void)btf_complete(b, id);
		for (int i = 0; btf_param(b, btf_func_proto(b, id), i, &name, &type) == 0 && i < 300; i++)
			(void)strlen(name);
		for (int i = 0; btf_member_at(b, strip, i, &name, &m) == 0 && i < 70000; i++)
			if (*name)
				(void)btf_member(b, strip, name, &m);
		spelled = btf_type_name(b, id);
		free(spelled);
	}
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
		(void)btf_find_type(b, specs[i]);
}

/* Input: a little-endian u32 base length, the base blob, then a split blob over it (none when the length is
 * 0 or past the end: the rest is one blob). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t n = 0;
	size_t base_len;
	uint8_t *copy;
	char *err = NULL;
	Btf *base, *split = NULL;

	if (size < 4)
		return 0;
	memcpy(&n, data, 4);
	base_len = n && n <= size - 4 ? n : size - 4;
	/* an aligned copy, as read_file gives (the records are read as 32-bit words) */
	copy = malloc(size - 4 ? size - 4 : 1);
	if (!copy)
		abort();
	memcpy(copy, data + 4, size - 4);
	base = btf_parse(copy, base_len, &err);
	if (verbose)
		fprintf(stderr, "btf_fuzz: base %s\n", base ? "accepted" : err);
	if (!base && !err)
		abort();   /* refused without a reason */
	free(err);
	err = NULL;
	if (base) {
		ask(base);
		if (base_len < size - 4) {
			/* the split blob starts where the base ends: copied to an aligned place of its own */
			size_t len = size - 4 - base_len;
			uint8_t *s = malloc(len);
			if (!s)
				abort();
			memcpy(s, copy + base_len, len);
			split = btf_parse_split(s, len, base, &err);
			if (verbose)
				fprintf(stderr, "btf_fuzz: split %s\n", split ? "accepted" : err);
			if (!split && !err)
				abort();
			free(err);
			if (split) {
				ask(split);
				btf_free(split);
			}
			free(s);
		}
		btf_free(base);
	}
	free(copy);
	return 0;
}
