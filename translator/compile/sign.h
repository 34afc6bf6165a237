/* sign.h - the module signing key (a private key and its X.509 certificate, enrolled as a MOK) and
 * signing modules with kbuild's sign-file.  Used by main.c (--make-signing-key, --sign-module, pass 4). */
#ifndef STAP_SIGN_H
#define STAP_SIGN_H

#include "session.h"

#define SIGN_KEY_NAME "signing_key.priv"
#define SIGN_CERT_NAME "signing_key.x509"

/* Where the key lives without --sign-module=KEYDIR: $SYSTEMTAP_DIR, else /etc/systemtap for root,
 * else ~/.systemtap.  To free. */
char *sign_default_dir(void);

/* --make-signing-key[=KEYDIR]: makes the key and certificate in dir (NULL: the default) unless they
 * exist, then prints where they are and the mokutil step that enrolls the certificate.  Exit status. */
int sign_make_key(Diag *d, const char *dir);

/* After pass 4: signs s->ko_file when asked (--sign-module) or when the target kernel may enforce
 * signatures and the default key exists; a cached module already signed with that key and hash is
 * kept as it is, one signed with another is signed again, and the cache entry takes the signed
 * module.  0, or 1 after an error. */
int sign_after_pass4(Session *s);

#endif
