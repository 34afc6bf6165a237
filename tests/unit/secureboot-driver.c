/* secureboot-driver.c - runs staprun/secureboot.c's message for a module the kernel refused (errno EKEYREJECTED,
 * EBADMSG or ENOKEY) on the module file given, as module.c does after init_module fails.  For tests/unit/sign-attacks.t. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"

const char log_program[] = "staprun";

int main(int argc, char **argv)
{
	int e, fd, said;

	if (argc != 4) {
		fprintf(stderr, "usage: secureboot-driver MODULE.ko NAME EKEYREJECTED|EBADMSG|ENOKEY\n");
		return 2;
	}
	e = !strcmp(argv[3], "EBADMSG") ? EBADMSG : !strcmp(argv[3], "ENOKEY") ? ENOKEY : EKEYREJECTED;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	said = secureboot_explain_load_error(fd, argv[1], argv[2], e);
	close(fd);
	return said ? 0 : 1;
}
