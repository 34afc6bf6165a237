/* embedded.c - the module's C functions for functions written in embedded C (guru mode, the tapsets):
 * the script functions' frame and calling convention, SystemTap's macros; the module backend's hook. */
#include "kmodule/kmodule.h"
#include "codegen/gen.h"

/* An embedded-C function: the script functions' frame and calling convention, SystemTap's macros; its
 * STAP_ERROR formats the message into the context's buffer. */
void km_embedded_function(Session *s, Function *f, StrBuf *frames, StrBuf *code)
{
	(void)s;
	cg_embedded_function(f, frames, code,
			     "#define STAP_ERROR(...) do { if (!c->last_error) { snprintf(c->error_buf, sizeof(c->error_buf), "
			     "__VA_ARGS__); stp_error(c, c->error_buf); } goto stp_out; } while (0)\n");
}
