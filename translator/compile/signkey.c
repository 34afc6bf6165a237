/* signkey.c - the signing key's directory and files: used only when nobody else can change them, made with openssl in a
 * fresh private directory and renamed into place, never written through a name someone planted.  Used by sign.c. */
#include "compile/signkey.h"
#include "compile/sign.h"
#include "lib/trustwalk.h"
#include "driver/spawn.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_BITS 2048
#define WORK_CONF "openssl.cnf"
#define WORK_LOG "openssl.log"

/* ---- the directory ---- */

int signkey_open_dir(Diag *d, const char *dir, int create, const char *kind)
{
	const char *verdict = "not using it for the signing key (keep the key in a directory only you and root can change)";
	int fd = trustwalk_open_as(d, dir, create, "signing key directory", verdict, kind);
	struct stat st;

	if (fd < 0) {
		if (errno == EPERM || (errno == ENOENT && !create))
			return -1;     /* said, or not there */
		diag_plain(d, kind, "signing key directory %s cannot be %s: %s", dir, create ? "made" : "opened",
			   strerror(errno));
		errno = EPERM;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		diag_plain(d, kind, "signing key directory %s cannot be checked: %s", dir, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		diag_plain(d, kind, "signing key directory %s is owned by uid %u, not by uid %u: %s", dir,
			   (unsigned)st.st_uid, (unsigned)geteuid(), verdict);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		diag_plain(d, kind, "signing key directory %s is writable by group or others (mode %04o): %s", dir,
			   (unsigned)(st.st_mode & 07777), verdict);
	} else
		return fd;
	close(fd);
	errno = EPERM;
	return -1;
}

/* ---- the files ---- */

/* Why the file name in dirfd may not be used as the key pair's part (private: the private key), in why, and
 * *fix what to do then; NULL when it may be used.  *missing set when it does not exist (not a refusal). */
static const char *distrust_file(int dirfd, const char *name, int private, int *missing, char *why, size_t n,
				 const char **fix)
{
	struct stat st;

	*missing = 0;
	*fix = "move it away and make a new key with stap --make-signing-key";
	/* lstat's view: a symbolic link is refused as itself, nothing is opened (a FIFO, a device) */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		*missing = errno == ENOENT;
		snprintf(why, n, "cannot be checked: %s", strerror(errno));
	} else if (S_ISLNK(st.st_mode))
		snprintf(why, n, "is a symbolic link");
	else if (!S_ISREG(st.st_mode))
		snprintf(why, n, "is not a regular file");
	else if (st.st_uid != geteuid())
		snprintf(why, n, "is owned by uid %u, not by uid %u", (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_nlink != 1)
		snprintf(why, n, "has %lu hard links (another name could change it)", (unsigned long)st.st_nlink);
	else if (private && (st.st_mode & 077)) {
		snprintf(why, n, "is open to group or others (mode %04o)", (unsigned)(st.st_mode & 07777));
		*fix = "chmod 600 it if nobody else can have read it, else make a new key";
	} else if (!private && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, n, "is writable by group or others (mode %04o)", (unsigned)(st.st_mode & 07777));
		*fix = "chmod 644 it if nobody else has changed it, else make a new key";
	} else
		return NULL;
	return why;
}

enum signkey_state signkey_check(Diag *d, int dirfd, const char *dir, const char *kind)
{
	static const char *const names[2] = { SIGN_KEY_NAME, SIGN_CERT_NAME };
	const char *fix[2];
	char why[2][128];
	int missing[2], bad[2];

	for (int i = 0; i < 2; i++)
		bad[i] = distrust_file(dirfd, names[i], i == 0, &missing[i], why[i], sizeof why[i], &fix[i]) != NULL;
	if (missing[0] && missing[1])
		return SIGNKEY_NONE;
	for (int i = 0; i < 2; i++) {
		if (missing[i]) {
			diag_plain(d, kind, "signing key directory %s has %s but no %s: move %s away and make a new key "
				   "with stap --make-signing-key=%s", dir, names[!i], names[i], names[!i], dir);
			return SIGNKEY_REFUSED;
		}
		if (bad[i]) {
			diag_plain(d, kind, "signing key file %s/%s %s: not using it (%s)", dir, names[i], why[i], fix[i]);
			return SIGNKEY_REFUSED;
		}
	}
	return SIGNKEY_OK;
}

/* ---- making a key ---- */

/* openssl's configuration, written as WORK_CONF in the work directory workfd.  0 or -1. */
static int write_config(int workfd)
{
	char host[256] = "localhost";
	int fd = openat(workfd, WORK_CONF, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	gethostname(host, sizeof host - 1);
	fprintf(f, "[ req ]\ndefault_bits = %d\ndistinguished_name = dn\nprompt = no\nstring_mask = utf8only\n"
		"x509_extensions = exts\n\n[ dn ]\nO = SystemTap\nCN = SystemTap module signing key (%s)\n\n"
		"[ exts ]\nbasicConstraints = critical,CA:FALSE\nkeyUsage = digitalSignature\n"
		"extendedKeyUsage = codeSigning\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\n",
		KEY_BITS, host);
	return fclose(f) == 0 ? 0 : -1;
}

/* Runs openssl writing into the work directory work, which then holds the pair; 0, or -1 with its output in *log
 * (to free). */
static int run_openssl(const char *work, char **log)
{
	char *conf = path_join(work, WORK_CONF), *log_path = path_join(work, WORK_LOG);
	char *key = path_join(work, SIGN_KEY_NAME), *cert = path_join(work, SIGN_CERT_NAME);
	char *argv[] = { "openssl", "req", "-new", "-nodes", "-utf8", "-sha256", "-days", "36500", "-batch", "-x509",
			 "-config", conf, "-outform", "DER", "-out", cert, "-keyout", key, NULL };
	SpawnOpts o = { .log_path = log_path };
	mode_t old = umask(077);   /* the private key is born 0600 */
	int rc = spawn_wait(argv, &o) == 0 ? 0 : -1;

	umask(old);
	*log = rc ? read_file(log_path, NULL) : NULL;
	free(conf);
	free(log_path);
	free(key);
	free(cert);
	return rc;
}

/* The made file name in workfd: a regular file of ours (openssl made it in our private directory), given mode. */
static int settle(int workfd, const char *name, mode_t mode)
{
	struct stat st;

	if (fstatat(workfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		errno = EPERM;
		return -1;
	}
	return fchmodat(workfd, name, mode, 0);
}

/* Moves the made pair from workfd into dirfd, replacing nothing (RENAME_NOREPLACE); the certificate first,
 * taken back when the key cannot follow.  0 or -1. */
static int move_into_place(int workfd, int dirfd)
{
	if (renameat2(workfd, SIGN_CERT_NAME, dirfd, SIGN_CERT_NAME, RENAME_NOREPLACE) != 0)
		return -1;
	if (renameat2(workfd, SIGN_KEY_NAME, dirfd, SIGN_KEY_NAME, RENAME_NOREPLACE) != 0) {
		int e = errno;
		renameat2(dirfd, SIGN_CERT_NAME, workfd, SIGN_CERT_NAME, RENAME_NOREPLACE);
		errno = e;
		return -1;
	}
	return 0;
}

/* The pair made in the work directory work (open as workfd) and moved into dirfd; 0, or -1 after an error. */
static int make_in(Diag *d, int workfd, const char *work, int dirfd, const char *dir)
{
	const char *failed;
	char *log = NULL;

	if (write_config(workfd) != 0)
		failed = "cannot write openssl's configuration";
	else if (run_openssl(work, &log) != 0) {
		diag_plain(d, "error", "cannot make the signing key in %s: openssl failed: %s", dir,
			   log && *log ? log : "no message");
		free(log);
		return -1;
	} else if (settle(workfd, SIGN_KEY_NAME, 0600) != 0 || settle(workfd, SIGN_CERT_NAME, 0644) != 0)
		failed = "openssl did not leave the key and certificate";
	else if (move_into_place(workfd, dirfd) != 0)
		failed = "cannot move the key and certificate into place";
	else
		return 0;
	diag_plain(d, "error", "cannot make the signing key in %s: %s: %s", dir, failed, strerror(errno));
	return -1;
}

int signkey_make(Diag *d, int dirfd, const char *dir)
{
	static const char *const leftovers[] = { SIGN_KEY_NAME, SIGN_CERT_NAME, WORK_CONF, WORK_LOG };
	char *work = path_join(dir, ".signing_key.XXXXXX");
	int workfd, rc = -1;
	struct stat st;

	/* mkdtemp by path: dir was walked and is ours alone, so the name reaches the directory checked as dirfd */
	if (!mkdtemp(work)) {
		diag_plain(d, "error", "cannot make the signing key in %s: cannot make a private work directory: %s", dir,
			   strerror(errno));
		free(work);
		return -1;
	}
	workfd = openat(dirfd, strrchr(work, '/') + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (workfd >= 0 && fstat(workfd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0777) == 0700)
		rc = make_in(d, workfd, work, dirfd, dir);
	else
		diag_plain(d, "error", "cannot make the signing key in %s: its work directory %s is not the one made", dir, work);
	if (workfd >= 0) {
		for (size_t i = 0; i < sizeof leftovers / sizeof *leftovers; i++)
			unlinkat(workfd, leftovers[i], 0);
		close(workfd);
	}
	unlinkat(dirfd, strrchr(work, '/') + 1, AT_REMOVEDIR);
	free(work);
	return rc;
}
