/* fuzz_env.h - what the fuzz targets read from their environment: STAP_FUZZ_STDERR=1 asks a target to say why
 * it refused each input. Included by index_fuzz.c and btf_fuzz.c; see tests/fuzz/README.md. */
#ifndef STAP_FUZZ_ENV_H
#define STAP_FUZZ_ENV_H

#include <stdlib.h>
#include <string.h>

static inline int fuzz_stderr_wanted(void)
{
	const char *v = getenv("STAP_FUZZ_STDERR");

	return v && *v && strcmp(v, "0") != 0;
}

#endif
