/* modparam.h - a loaded module's parameter as /sys/module/NAME/parameters/PARAM shows it.
 * Used by staprun (its load id, the buffer size) and stapio (bulk mode, the ring size). */
#ifndef COMMON_MODPARAM_H
#define COMMON_MODPARAM_H

#include <stddef.h>

/* The parameter's first line (newline kept) into value; 0, or -1 when it cannot be read
 * (value then ""). */
int module_param_read(const char *name, const char *param, char *value, size_t size);

/* The _stp_bufsize of the loaded module name: its trace ring per CPU in MB, 0 when it cannot be
 * read or is out of bounds. */
unsigned long module_bufsize_mb(const char *name);

#endif
