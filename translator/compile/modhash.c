/* modhash.c - pass 4's module fingerprint: its SHA-256 recorded when kbuild (or the cache) gave it, so that
 * only that object is signed, stored in the cache, kept (-p4) or run.  Used by compile.c, sign.c, cache.c, main.c. */
#include "compile/modhash.h"
#include "lib/sha256.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void digest_of(const void *data, size_t len, unsigned char d[SHA256_DIGEST_LEN])
{
	Sha256 c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, d);
}

void modhash_set(Session *s, const void *data, size_t len)
{
	digest_of(data, len, s->ko_sha256);
	s->ko_sha256_set = 1;
}

int modhash_take(Session *s)
{
	size_t len = 0;
	char *data = read_file(s->ko_file, &len);

	if (!data) {
		diag_plain(&s->diag, "error", "cannot read the module %s: %s", s->ko_file, strerror(errno));
		return -1;
	}
	modhash_set(s, data, len);
	free(data);
	return 0;
}

int modhash_matches(const Session *s, const void *data, size_t len)
{
	unsigned char d[SHA256_DIGEST_LEN];

	if (!s->ko_sha256_set)
		return 0;
	digest_of(data, len, d);
	return memcmp(d, s->ko_sha256, sizeof d) == 0;
}

void modhash_refuse(Session *s, const char *doing)
{
	diag_plain(&s->diag, "error", "the module %s is not the one pass 4 built (its SHA-256 changed): not %s; "
		   "something else wrote in the temporary directory, run stap again", s->ko_file, doing);
}

int modhash_check(Session *s, const char *doing)
{
	size_t len = 0;
	char *data = read_file(s->ko_file, &len);
	int ok = data && modhash_matches(s, data, len);

	free(data);
	if (!ok)
		modhash_refuse(s, doing);
	return ok ? 0 : -1;
}
