/* secureboot.c - whether the kernel loads only signed modules (lockdown, module.sig_enforce, Secure Boot), who
 * signed a module file, and the one-line refusals that name the key and the MOK enrollment step.  Used by module.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "staprun.h"
#include "../common/der.h"

#define LOCKDOWN_PATH "/sys/kernel/security/lockdown"
#define SIG_ENFORCE_PATH "/sys/module/module/parameters/sig_enforce"
#define EFI_SECUREBOOT_PATH "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define SIG_MAGIC "~Module signature appended~\n"
#define SIG_INFO_LEN 12          /* struct module_signature: 5 bytes, 3 of padding, be32 sig_len */
#define SIG_MAX (64 * 1024)      /* a PKCS#7 module signature is a few hundred bytes */

/* The first bytes of a small /sys file, NUL-terminated ("" when unreadable); its length. */
static size_t read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return n;
}

/* What makes the kernel refuse unsigned modules, in words ("" when nothing does). */
static void enforcement(char *why, size_t size)
{
	char buf[128];
	int efi;

	char enforce[8];

	why[0] = '\0';
	/* no sig_enforce parameter: a kernel without CONFIG_MODULE_SIG, which checks no signature at all */
	if (!read_small(SIG_ENFORCE_PATH, enforce, sizeof(enforce)))
		return;
	efi = read_small(EFI_SECUREBOOT_PATH, buf, sizeof(buf)) >= 5 && buf[4] == 1;
	read_small(LOCKDOWN_PATH, buf, sizeof(buf));
	if (strstr(buf, "[integrity]") || strstr(buf, "[confidentiality]"))
		snprintf(why, size, "%s lockdown: %s", efi ? "Secure Boot" : "kernel",
			 strstr(buf, "[integrity]") ? "integrity" : "confidentiality");
	else if (enforce[0] == 'Y')
		snprintf(why, size, "module.sig_enforce%s", efi ? ", Secure Boot" : "");
}

/* ---- who signed the module ---- */

struct signer {
	char name[128];     /* the signing certificate issuer's CN, as modinfo's "signer" */
	char key[160];      /* its serial number, as modinfo's "sig_key" (AA:BB:...) */
};

/* Steps into the element at *p (which must have tag want) or over it (skip); -1 when it is not there. */
static int der_take(const unsigned char **p, const unsigned char **end, int want, int skip)
{
	const unsigned char *c;
	size_t n;
	int tag;

	if (der_next(*p, *end, &tag, &c, &n) != 0 || tag != want)
		return -1;
	if (skip)
		*p = c + n;
	else {
		*p = c;
		*end = c + n;
	}
	return 0;
}

/* The CN in an X.501 Name's content [p, end) */
static void name_cn(const unsigned char *p, const unsigned char *end, char *out, size_t size)
{
	static const unsigned char cn_oid[] = { 0x06, 0x03, 0x55, 0x04, 0x03 };
	const unsigned char *hit = memmem(p, (size_t)(end - p), cn_oid, sizeof(cn_oid)), *c;
	size_t n;
	int tag;

	if (hit && der_next(hit + sizeof(cn_oid), end, &tag, &c, &n) == 0)
		snprintf(out, size, "%.*s", (int)n, (const char *)c);
}

/* The signer of a PKCS#7 signature (ContentInfo of SignedData, its first SignerInfo by issuer and serial). */
static void pkcs7_signer(const unsigned char *p, const unsigned char *end, struct signer *s)
{
	const unsigned char *c;
	size_t n, i, at = 0;
	int tag;

	if (der_take(&p, &end, 0x30, 0) || der_take(&p, &end, 0x06, 1) || der_take(&p, &end, 0xa0, 0) ||
	    der_take(&p, &end, 0x30, 0) || der_take(&p, &end, 0x02, 1) || der_take(&p, &end, 0x31, 1) ||
	    der_take(&p, &end, 0x30, 1))
		return;
	if (der_next(p, end, &tag, &c, &n) == 0 && tag == 0xa0)   /* certificates: sign-file adds none */
		p = c + n;
	if (der_next(p, end, &tag, &c, &n) == 0 && tag == 0xa1)   /* crls */
		p = c + n;
	if (der_take(&p, &end, 0x31, 0) || der_take(&p, &end, 0x30, 0) || der_take(&p, &end, 0x02, 1) ||
	    der_take(&p, &end, 0x30, 0))   /* signerInfos, the first, its version, issuerAndSerialNumber */
		return;
	if (der_next(p, end, &tag, &c, &n) != 0 || tag != 0x30)
		return;
	name_cn(c, c + n, s->name, sizeof(s->name));
	p = c + n;
	if (der_next(p, end, &tag, &c, &n) != 0 || tag != 0x02)
		return;
	for (i = 0; i < n && at + 4 < sizeof(s->key); i++)
		at += (size_t)snprintf(s->key + at, sizeof(s->key) - at, "%s%02X", i ? ":" : "", c[i]);
}

/* 1 when the module file open as fd carries a signature (its signer in s, as far as it says), else 0. */
static int module_signer(int fd, struct signer *s)
{
	size_t magic = sizeof(SIG_MAGIC) - 1, n;
	unsigned char tail[SIG_INFO_LEN + sizeof(SIG_MAGIC)], *sig;
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < magic + SIG_INFO_LEN ||
	    pread(fd, tail, SIG_INFO_LEN + magic, st.st_size - (off_t)(SIG_INFO_LEN + magic)) != (ssize_t)(SIG_INFO_LEN + magic) ||
	    memcmp(tail + SIG_INFO_LEN, SIG_MAGIC, magic))
		return 0;
	n = (size_t)tail[8] << 24 | (size_t)tail[9] << 16 | (size_t)tail[10] << 8 | tail[11];
	if (n == 0 || n > SIG_MAX || n > (size_t)st.st_size - magic - SIG_INFO_LEN)
		return 1;
	sig = malloc(n);
	if (sig && pread(fd, sig, n, st.st_size - (off_t)(SIG_INFO_LEN + magic + n)) == (ssize_t)n)
		pkcs7_signer(sig, sig + n, s);
	free(sig);
	return 1;
}

/* ---- the messages ---- */

/* Everything they say comes from the module file itself and /sys: as setuid root, staprun opens nothing that the
 * caller's environment names (SYSTEMTAP_DIR, HOME), and the signer's certificate is named by its CN and serial
 * number, as modinfo's signer and sig_key print them. */

/* the other way: Secure Boot's default lockdown (integrity) allows BPF tracing, not unsigned modules; confidentiality
 * refuses that too (why: enforcement()'s words) */
static const char *bpf_way_out(const char *why)
{
	return strstr(why, "confidentiality") ? "; BPF tracing is refused too under lockdown=confidentiality (a kernel "
						  "booted with lockdown=integrity runs the script as BPF: stap --runtime=bpf)"
					      : "; or run the script as BPF, which lockdown=integrity allows: stap --runtime=bpf";
}

static void say_untrusted(const char *name, const char *path, const struct signer *s, const char *why)
{
	err("cannot load module %s: the kernel (%s) does not trust the key that signed %s (signer \"%s\", key %s):"
	    " enroll that key's certificate once as a MOK (mokutil --import KEYDIR/signing_key.x509, KEYDIR the"
	    " stap --sign-module directory of that key; then reboot and confirm in MokManager), or sign it with an"
	    " enrolled key (stap --sign-module=KEYDIR)", name, why[0] ? why : "module signatures enforced", path,
	    s->name[0] ? s->name : "unknown", s->key[0] ? s->key : "unknown");
}

int secureboot_check_before_load(int fd, const char *path, const char *name)
{
	char why[96];
	struct signer s;

	enforcement(why, sizeof(why));
	if (!why[0] || module_signer(fd, &s))
		return 0;
	err("cannot load module %s: the kernel loads only signed modules (%s) and %s is unsigned: build it with"
	    " stap --sign-module=KEYDIR, whose key is enrolled once as a MOK (mokutil --import KEYDIR/signing_key.x509,"
	    " then reboot and confirm in MokManager)%s", name, why, path, bpf_way_out(why));
	return -1;
}

int secureboot_explain_load_error(int fd, const char *path, const char *name, int e)
{
	char why[96];
	struct signer s;
	int is_signed;

	if (e != EKEYREJECTED && e != ENOKEY && e != EBADMSG && e != EPERM)
		return 0;
	enforcement(why, sizeof(why));
	is_signed = module_signer(fd, &s);
	if (e == EPERM && !(why[0] && is_signed))
		return 0;     /* not a signature matter: no privilege, or loading disabled */
	if (!is_signed) {
		err("cannot load module %s: the kernel (%s) loads only signed modules and %s is unsigned: build it with"
		    " stap --sign-module (see Secure Boot in staprun(8))%s", name,
		    why[0] ? why : "module signatures enforced", path, bpf_way_out(why));
	} else if (e == EBADMSG) {
		err("cannot load module %s: the signature of %s is malformed or does not match the module"
		    " (signer \"%s\", key %s): build it again with stap --sign-module", name, path,
		    s.name[0] ? s.name : "unknown", s.key[0] ? s.key : "unknown");
	} else
		say_untrusted(name, path, &s, why);
	return 1;
}
