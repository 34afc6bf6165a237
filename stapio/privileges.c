/* privileges.c - stapio gives up the privileges of a setuid staprun once the module's files are open.
 * Used by stapio/main.c: output files, -c commands and everything after run as the calling user. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

/* staprun, when installed setuid root, runs stapio with its effective
 * root: enough to open /proc/systemtap/NAME (root's alone).  Then stapio
 * becomes the real user for good (real, effective and saved ids), so that
 * -o FILE and -c CMD never get more rights than the caller has. */
int drop_privileges(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (geteuid() == uid && getegid() == gid)
		return 0;
	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
		warnx_("cannot drop privileges: %s", strerror(errno));
		return -1;
	}
	if (uid != 0 && (setresuid(-1, 0, -1) == 0 || geteuid() == 0)) {
		warnx_("privileges still there after dropping them");
		return -1;
	}
	say("running as uid %ld, gid %ld from now on", (long)uid, (long)gid);
	return 0;
}
