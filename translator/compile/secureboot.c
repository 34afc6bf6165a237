/* secureboot.c - reads the running kernel's lockdown, module.sig_enforce and the EFI SecureBoot variable.
 * Used by sign.c (automatic signing) and main.c (features refused under lockdown, before pass 3). */
#include "compile/secureboot.h"
#include "lib/diag.h"
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOCKDOWN_PATH "/sys/kernel/security/lockdown"
#define SIG_ENFORCE_PATH "/sys/module/module/parameters/sig_enforce"
#define EFI_SECUREBOOT_PATH "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

const char *secureboot_lockdown_mode(void)
{
	char *text = read_file(LOCKDOWN_PATH, NULL);
	const char *mode = "none";

	if (text) {
		if (strstr(text, "[integrity]"))
			mode = "integrity";
		else if (strstr(text, "[confidentiality]"))
			mode = "confidentiality";
		free(text);
	}
	return mode;
}

int secureboot_efi_enabled(void)
{
	size_t len = 0;
	char *v = read_file(EFI_SECUREBOOT_PATH, &len);   /* 4 bytes of attributes, then the value */
	int on = v && len >= 5 && v[4] == 1;

	free(v);
	return on;
}

static int sig_enforced(void)
{
	char *v = read_file(SIG_ENFORCE_PATH, NULL);
	int on = v && v[0] == 'Y';

	free(v);
	return on;
}

int secureboot_target_enforces(Session *s)
{
	const char *force;

	if (s->target_is_running && (strcmp(secureboot_lockdown_mode(), "none") || sig_enforced() ||
				     secureboot_efi_enabled()))
		return 1;
	force = kernel_config_value(s, "CONFIG_MODULE_SIG_FORCE");
	return force && !strcmp(force, "y");
}

int secureboot_target_may_enforce(Session *s)
{
	const char *sig;

	if (secureboot_target_enforces(s))
		return 1;
	if (s->target_is_running)
		return 0;
	sig = kernel_config_value(s, "CONFIG_MODULE_SIG");
	return sig && !strcmp(sig, "y");
}

int secureboot_check_features(Session *s)
{
	const char *mode;

	if (!s->guru || !s->target_is_running)
		return 0;
	mode = secureboot_lockdown_mode();
	if (!strcmp(mode, "none"))
		return 0;
	diag_plain(&s->diag, "error", "guru mode (-g) is refused: the kernel is locked down (%s, %s), which forbids "
		   "writing kernel memory; boot without Secure Boot lockdown to use -g", mode, LOCKDOWN_PATH);
	return 1;
}
