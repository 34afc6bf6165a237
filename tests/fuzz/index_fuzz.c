/* index_fuzz.c - libFuzzer target for the DWARF index file reader (translator/dwarf/indexcache.c): each input is
 * an index file, checked by dwarf_index_check() and, when accepted, searched.  Built by `make fuzz`; see tests/fuzz/README.md. */
#include "dwarf/dwarf.h"
#include "fuzz_env.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Touches every byte of a string the index hands out (ASan sees a read past its end). */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static int visit(const DwarfName *n, void *arg)
{
	DwarfModule *m = arg;
	DwarfNameInfo info;

	touch(n->name);
	dwarf_name_info(m, n, &info);
	touch(info.decl_file);
	touch(info.cu_name);
	return 0;
}

static int verbose;   /* STAP_FUZZ_STDERR=1: say whether each input was accepted, or why not */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	verbose = fuzz_stderr_wanted();
	return 0;
}

static int first_name(const DwarfName *n, void *arg)
{
	*(const char **)arg = n->name;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the reader wants the alignment of a mapping: malloc's is enough (8 or 16) */
	char *buf = malloc(size ? size : 1);
	static const char *const globs[] = { "*", "vfs_read", "stm_*", "a*b", "[a-m]*", "", "\\*" };
	const char *why, *first = NULL;
	DwarfModule m;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	memset(&m, 0, sizeof m);
	m.index = dwarf_index_from_buffer(buf, size, &why);
	if (verbose)
		fprintf(stderr, "index_fuzz: %s\n", m.index ? "accepted" : why);
	if (m.index) {
		for (size_t i = 0; i < sizeof globs / sizeof *globs; i++)
			dwarf_index_each(&m, globs[i], visit, &m);
		/* the first entry's name, looked up exactly and as a prefix */
		if (dwarf_index_each(&m, "*", first_name, &first) > 0) {
			char exact[64], prefix[64];
			snprintf(exact, sizeof exact, "%s", first);
			snprintf(prefix, sizeof prefix, "%.8s*", first);
			if (!strchr(exact, '*') && !strchr(exact, '?') && !strchr(exact, '[') && !strchr(exact, '\\') &&
			    strlen(first) < sizeof exact && dwarf_index_each(&m, exact, visit, &m) < 1)
				abort();   /* a name the index holds is not found */
			dwarf_index_each(&m, prefix, visit, &m);
		}
		dwarf_index_free(m.index);
	} else if (!why) {
		abort();   /* refused without a reason */
	}
	free(buf);
	return 0;
}
