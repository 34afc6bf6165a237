/* signkey.h - the signing key's directory and files, used only when nobody else can change them, made without
 * writing through a name someone planted (signkey.c).  Used by sign.c. */
#ifndef STAP_SIGNKEY_H
#define STAP_SIGNKEY_H

#include "lib/diag.h"

enum signkey_state {
	SIGNKEY_REFUSED = -1,   /* an error said why */
	SIGNKEY_OK = 0,         /* the private key and its certificate are there and trusted */
	SIGNKEY_NONE = 1,       /* neither is there (or the directory is missing) */
};

/* dir (absolute or relative) opened as a directory when it may hold a key: walked from / (trustwalk.c: every
 * directory on the way root's or the effective user's, not writable by group or others unless sticky; missing
 * ones made when create), and dir itself the effective user's and writable by nobody else.  The fd; -1 with
 * errno ENOENT when it does not exist (and !create), or -1 with errno EPERM after a diag of kind (e.g. "error"). */
int signkey_open_dir(Diag *d, const char *dir, int create, const char *kind);

/* The key pair in the directory dirfd (opened as dir): OK when both are regular files of the effective user with
 * one link each, the private key without group or other bits, the certificate not writable by group or others;
 * NONE when neither exists; else REFUSED after a diag of kind naming the file and the reason. */
enum signkey_state signkey_check(Diag *d, int dirfd, const char *dir, const char *kind);

/* Makes the key pair in dirfd (opened as dir, which holds neither) with openssl, written into a fresh private
 * directory inside it and renamed into place without replacing anything.  0, or -1 after an error. */
int signkey_make(Diag *d, int dirfd, const char *dir);

#endif
