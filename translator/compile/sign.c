/* sign.c - the module signing key (made with openssl, enrolled as a MOK) and signing pass 4's module with
 * kbuild's scripts/sign-file, keeping the cache entry signed.  Used by main.c (options and pass 4). */
#include "compile/sign.h"
#include "compile/cache.h"
#include "compile/modhash.h"
#include "compile/signkey.h"
#include "lib/diag.h"
#include "kernel.h"
#include "compile/secureboot.h"
#include "driver/spawn.h"
#include "../common/der.h"   /* DER elements, shared with staprun */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIG_MAGIC "~Module signature appended~\n"
#define SIG_INFO_LEN 12          /* struct module_signature: 5 bytes, 3 of padding, be32 sig_len */

/* ---- where the key is ---- */

char *sign_default_dir(void)
{
	const char *home = getenv("HOME");

	if (getenv("SYSTEMTAP_DIR") && *getenv("SYSTEMTAP_DIR"))
		return xstrdup(getenv("SYSTEMTAP_DIR"));
	if (geteuid() == 0)
		return xstrdup("/etc/systemtap");
	return path_join(home && *home ? home : "/", ".systemtap");
}

static void say_enroll_step(const char *dir, const char *cert)
{
	printf("To let a Secure Boot machine load the modules signed with it, enroll the certificate once as root:\n"
	       "  mokutil --import %s\n"
	       "then reboot and confirm the enrollment in MokManager (\"Enroll MOK\") with the password mokutil asked for.\n"
	       "Sign modules with: stap --sign-module=%s ...\n", cert, dir);
}

int sign_make_key(Diag *d, const char *dir_arg)
{
	char *dir = dir_arg && *dir_arg ? xstrdup(dir_arg) : sign_default_dir();
	char *key = path_join(dir, SIGN_KEY_NAME), *cert = path_join(dir, SIGN_CERT_NAME);
	int dirfd = signkey_open_dir(d, dir, 1, "error"), rc = 1;
	enum signkey_state state = dirfd < 0 ? SIGNKEY_REFUSED : signkey_check(d, dirfd, dir, "error");

	if (state == SIGNKEY_OK) {
		printf("The signing key is %s, its certificate %s.\n", key, cert);
		rc = 0;
	} else if (state == SIGNKEY_NONE) {
		rc = signkey_make(d, dirfd, dir) != 0;
		if (rc == 0)
			printf("Made the signing key %s (mode 0600) and its certificate %s.\n", key, cert);
	}
	if (rc == 0)
		say_enroll_step(dir, cert);
	if (dirfd >= 0)
		close(dirfd);
	free(key);
	free(cert);
	free(dir);
	return rc;
}

/* ---- what a signed module says ---- */

/* The module's signature (the PKCS#7 blob) in data, or NULL when unsigned; *sig_len its length and
 * *unsigned_len the module's length without it. */
static const unsigned char *module_signature(const unsigned char *data, size_t len, size_t *sig_len,
					       size_t *unsigned_len)
{
	size_t magic = sizeof SIG_MAGIC - 1, n;
	const unsigned char *info;

	if (len < magic + SIG_INFO_LEN || memcmp(data + len - magic, SIG_MAGIC, magic))
		return NULL;
	info = data + len - magic - SIG_INFO_LEN;
	n = (size_t)info[8] << 24 | (size_t)info[9] << 16 | (size_t)info[10] << 8 | info[11];
	if (n > len - magic - SIG_INFO_LEN)
		return NULL;
	*sig_len = n;
	*unsigned_len = len - magic - SIG_INFO_LEN - n;
	return info - n;
}

/* The certificate's serial number as a DER INTEGER (tag, length, value): the signer's key id in a module
 * signature made by sign-file (issuer and serial).  NULL if the file is not a DER certificate. */
static unsigned char *cert_serial(const char *cert_path, size_t *len)
{
	size_t n = 0, clen;
	unsigned char *der = (unsigned char *)read_file(cert_path, &n), *out = NULL;
	const unsigned char *p, *end, *c;
	int tag;

	if (!der)
		return NULL;
	p = der;
	end = der + n;
	/* Certificate SEQUENCE, then tbsCertificate SEQUENCE: step into both */
	for (int depth = 0; depth < 2; depth++) {
		if (der_next(p, end, &tag, &c, &clen) != 0 || tag != 0x30)
			goto out;
		p = c;
		end = c + clen;
	}
	if (der_next(p, end, &tag, &c, &clen) == 0 && tag == 0xa0)   /* [0] version */
		p = c + clen;
	if (der_next(p, end, &tag, &c, &clen) == 0 && tag == 0x02) {
		*len = (size_t)(c + clen - p);
		out = xmalloc(*len);
		memcpy(out, p, *len);
	}
out:
	free(der);
	return out;
}

/* The DER of a hash algorithm's OID, as a signature names it, into oid (11 bytes of room); its length, or 0 for a
 * hash not known here. */
static size_t hash_oid(const char *hash, unsigned char oid[11])
{
	static const unsigned char sha1[] = { 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a };
	static const unsigned char sha2[] = { 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02 };
	static const char *const sha2_names[] = { "sha256", "sha384", "sha512", "sha224" };   /* ...02.1 to .4 */

	if (!strcmp(hash, "sha1")) {
		memcpy(oid, sha1, sizeof sha1);
		return sizeof sha1;
	}
	for (int i = 0; i < 4; i++)
		if (!strcmp(hash, sha2_names[i])) {
			memcpy(oid, sha2, sizeof sha2);
			oid[sizeof sha2] = (unsigned char)(i + 1);
			return sizeof sha2 + 1;
		}
	return 0;
}

static int contains(const unsigned char *hay, size_t n, const unsigned char *needle, size_t m)
{
	return needle && m && memmem(hay, n, needle, m) != NULL;
}

/* ---- signing ---- */

/* The hash to sign with: the target kernel's CONFIG_MODULE_SIG_HASH, else SHA-256. */
static char *sign_hash(Session *s)
{
	const char *h = kernel_config_value(s, "CONFIG_MODULE_SIG_HASH");

	return xstrdup(h && *h ? h : "sha256");
}

/* Writes the first len bytes of data as path, atomically (the module may be a hard link to the cache's). */
static int replace_file(const char *path, const unsigned char *data, size_t len)
{
	char *tmp = xasprintf("%s.unsigned", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), rc = -1;

	if (fd >= 0 && write(fd, data, len) == (ssize_t)len && close(fd) == 0)
		rc = rename(tmp, path);
	else if (fd >= 0)
		close(fd);
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

typedef struct SignJob {
	char *dir, *key, *cert, *hash;
	unsigned char *serial;
	size_t serial_len;
} SignJob;

/* Whether the signature (sig_len bytes, NULL: none) is by the job's key, in its hash. */
static int signed_by(const unsigned char *sig, size_t sig_len, const SignJob *j)
{
	unsigned char oid[11];
	size_t oid_len = hash_oid(j->hash, oid);

	return sig && contains(sig, sig_len, j->serial, j->serial_len) && contains(sig, sig_len, oid, oid_len);
}

static int run_sign_file(Session *s, const SignJob *j)
{
	char *tool = path_join(s->kbuild_dir, "scripts/sign-file");
	char *log = path_join(s->tmp_dir, "sign.log");
	char *argv[] = { tool, j->hash, j->key, j->cert, s->ko_file, NULL };
	SpawnOpts o = { .log_path = log };
	int rc;

	if (access(tool, X_OK) != 0) {
		diag_plain(&s->diag, "error", "cannot sign the module: %s is missing (the kernel's headers package has it)", tool);
		rc = 1;
	} else if ((rc = spawn_wait(argv, &o)) != 0) {
		char *text = read_file(log, NULL);
		diag_plain(&s->diag, "error", "cannot sign the module with %s (%s): sign-file failed: %s", j->key, j->hash,
			   text && *text ? text : "no message");
		free(text);
		rc = 1;
	}
	free(tool);
	free(log);
	return rc;
}

/* The module as read now: data, its length, its signature (NULL: unsigned) and the length without it. */
typedef struct ModuleBytes {
	unsigned char *data;
	size_t len, sig_len, unsigned_len;
	const unsigned char *sig;
} ModuleBytes;

static int read_module(Session *s, ModuleBytes *m)
{
	m->data = (unsigned char *)read_file(s->ko_file, &m->len);
	if (!m->data) {
		diag_plain(&s->diag, "error", "cannot read %s: %s", s->ko_file, strerror(errno));
		return -1;
	}
	m->sig = module_signature(m->data, m->len, &m->sig_len, &m->unsigned_len);
	if (!m->sig)
		m->unsigned_len = m->len;
	return 0;
}

/* Signs the module pass 4 built (the bytes modhash recorded, an old signature stripped first); after
 * sign-file, the module must still be those bytes with one signature by the job's key appended. */
static int sign_with(Session *s, SignJob *j)
{
	ModuleBytes before, after = { 0 };
	unsigned char body[SHA256_DIGEST_LEN], now[SHA256_DIGEST_LEN];
	Sha256 c;
	int rc = 1;

	if (read_module(s, &before) != 0)
		return 1;
	if (!modhash_matches(s, before.data, before.len)) {
		modhash_refuse(s, "signing it");
		goto out;
	}
	if (signed_by(before.sig, before.sig_len, j)) {
		if (s->verbose)
			fprintf(stderr, "Pass 4: the module is signed with %s (%s) already\n", j->cert, j->hash);
		rc = 0;
		goto out;
	}
	sha256_init(&c);
	sha256_update(&c, before.data, before.unsigned_len);
	sha256_final(&c, body);
	if (before.sig && replace_file(s->ko_file, before.data, before.unsigned_len) != 0) {
		diag_plain(&s->diag, "error", "cannot strip the old signature of %s: %s", s->ko_file, strerror(errno));
		goto out;
	}
	if (run_sign_file(s, j) != 0 || read_module(s, &after) != 0)
		goto out;
	if (!signed_by(after.sig, after.sig_len, j)) {
		diag_plain(&s->diag, "error", "signing left %s without a signature by %s (%s)", s->ko_file, j->cert, j->hash);
		goto out;
	}
	sha256_init(&c);
	sha256_update(&c, after.data, after.unsigned_len);
	sha256_final(&c, now);
	if (after.unsigned_len != before.unsigned_len || memcmp(now, body, sizeof now)) {
		modhash_refuse(s, "taking it as signed (its code changed while sign-file ran)");
		goto out;
	}
	modhash_set(s, after.data, after.len);
	if (cache_update_module(s) != 0)
		goto out;
	if (s->verbose)
		fprintf(stderr, "Pass 4: signed the module with %s (%s)\n", j->key, j->hash);
	rc = 0;
out:
	free(before.data);
	free(after.data);
	return rc;
}

int sign_after_pass4(Session *s)
{
	int asked = s->sign_module != NULL, rc = 0, dirfd = -1;
	enum signkey_state state;
	SignJob j = { 0 };

	if (!asked && !secureboot_target_may_enforce(s))
		return 0;
	j.dir = asked && *s->sign_module ? xstrdup(s->sign_module) : sign_default_dir();
	j.key = path_join(j.dir, SIGN_KEY_NAME);
	j.cert = path_join(j.dir, SIGN_CERT_NAME);
	/* asked: a key that may not be used is an error; unasked (the default key for a kernel that may
	 * enforce signatures), a warning and an unsigned module */
	dirfd = signkey_open_dir(&s->diag, j.dir, 0, asked ? "error" : "warning");
	if (dirfd >= 0)
		state = signkey_check(&s->diag, dirfd, j.dir, asked ? "error" : "warning");
	else
		state = errno == ENOENT ? SIGNKEY_NONE : SIGNKEY_REFUSED;
	if (state == SIGNKEY_REFUSED) {
		rc = asked;
		goto out;
	}
	if (state == SIGNKEY_NONE) {
		if (asked) {
			diag_plain(&s->diag, "error", "--sign-module: no signing key in %s (%s and %s): make one with "
				   "stap --make-signing-key%s%s", j.dir, SIGN_KEY_NAME, SIGN_CERT_NAME,
				   *s->sign_module ? "=" : "", s->sign_module);
			rc = 1;
		} else if (s->target_is_running && secureboot_target_enforces(s))
			diag_plain(&s->diag, "warning", "this kernel loads only signed modules and there is no signing key in %s: "
				   "make one with stap --make-signing-key, enroll it with mokutil, then use --sign-module",
				   j.dir);
		goto out;
	}
	j.hash = sign_hash(s);
	j.serial = cert_serial(j.cert, &j.serial_len);
	if (!j.serial) {
		diag_plain(&s->diag, "error", "cannot sign the module: %s is not a DER X.509 certificate", j.cert);
		rc = 1;
		goto out;
	}
	rc = sign_with(s, &j);
out:
	if (dirfd >= 0)
		close(dirfd);
	free(j.dir);
	free(j.key);
	free(j.cert);
	free(j.hash);
	free(j.serial);
	return rc;
}
