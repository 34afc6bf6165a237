/* modparam.c - reads a loaded module's parameter from sysfs (modparam.h).
 * The module name comes from the caller, already checked to be a module name. */
#include <stdio.h>
#include <stdlib.h>

#include "core/limits.h"   /* STP_BUFSIZE_MB_MIN, _MAX */
#include "modparam.h"

int module_param_read(const char *name, const char *param, char *value, size_t size)
{
	char path[160];
	FILE *f;
	int rc = -1;

	value[0] = '\0';
	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", name, param);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(value, (int)size, f))
		rc = 0;
	else
		value[0] = '\0';
	fclose(f);
	return rc;
}

unsigned long module_bufsize_mb(const char *name)
{
	char value[32];
	unsigned long mb;
	char *end;

	if (module_param_read(name, "_stp_bufsize", value, sizeof(value)) != 0)
		return 0;
	mb = strtoul(value, &end, 10);
	return end == value || mb < STP_BUFSIZE_MB_MIN || mb > STP_BUFSIZE_MB_MAX ? 0 : mb;
}
