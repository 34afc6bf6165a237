/* sha256.h - SHA-256 (FIPS 180-4), incremental: init, update any number of times, final.
 * Used by the module cache (cache.c: cache keys, module names) and tests/unit/sha256.t. */
#ifndef STAP_SHA256_H
#define STAP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

typedef struct Sha256 {
	uint32_t h[8];          /* the chaining state */
	uint64_t total;         /* bytes hashed so far */
	unsigned char block[64];
	size_t used;            /* bytes waiting in block */
} Sha256;

void sha256_init(Sha256 *c);
void sha256_update(Sha256 *c, const void *data, size_t len);
void sha256_final(Sha256 *c, unsigned char digest[SHA256_DIGEST_LEN]);   /* c must be re-initialized after */
void sha256_hex(const unsigned char digest[SHA256_DIGEST_LEN], char hex[2 * SHA256_DIGEST_LEN + 1]);

#endif
