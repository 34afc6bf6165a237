/* targets.c - binds target variables ($var, @cast, @entry, $return, $$vars) to DWARF (pass 2)
 * and writes their pass-3 support code.  Called by elaborate.c and translate.c. */
#include "dwarf.h"

/* Placeholder until target variables land: leaves every target expression unbound, so
 * elaborate.c's check_supported() reports it. */
int dwarf_bind_program(Session *s)
{
	(void)s;
	return 0;
}

char *dwarf_type_name(Dwarf_Die *type)
{
	(void)type;
	return xstrdup("?");
}

void dwarf_emit_support(Session *s, StrBuf *out)
{
	(void)s;
	(void)out;
}
