/* sha256-driver.c - checks translator/lib/sha256.c: the FIPS 180-4 example vectors, and with "-" the digest
 * of stdin fed in uneven pieces (compared with sha256sum). Built and run by tests/unit/sha256.t. */
#include "lib/sha256.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check(const char *what, const void *data, size_t len, size_t repeat, const char *want)
{
	Sha256 c;
	unsigned char d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];

	sha256_init(&c);
	for (size_t i = 0; i < repeat; i++)
		sha256_update(&c, data, len);
	sha256_final(&c, d);
	sha256_hex(d, hex);
	if (strcmp(hex, want)) {
		printf("FAIL %s: got %s, want %s\n", what, hex, want);
		failures++;
	}
}

/* stdin in pieces of 1, 2, 3 ... 70 bytes, then again, so every offset in a block is crossed */
static int hash_stdin(void)
{
	static unsigned char buf[1 << 20];
	size_t len = fread(buf, 1, sizeof buf, stdin), off = 0, piece = 1;
	Sha256 c;
	unsigned char d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];

	sha256_init(&c);
	while (off < len) {
		size_t n = piece < len - off ? piece : len - off;
		sha256_update(&c, buf + off, n);
		off += n;
		piece = piece % 70 + 1;
	}
	sha256_final(&c, d);
	sha256_hex(d, hex);
	printf("%s\n", hex);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-"))
		return hash_stdin();
	check("empty", "", 0, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check("abc", "abc", 3, 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check("448 bits", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 1,
	      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check("896 bits", "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	      112, 1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	check("a million 'a' (one by one)", "a", 1, 1000000,
	      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	{
		static char a[1000000];
		memset(a, 'a', sizeof a);
		check("a million 'a' (at once)", a, sizeof a, 1,
		      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	}
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
	return failures != 0;
}
