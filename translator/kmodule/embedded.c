/* embedded.c - the module's C functions for functions written in embedded C (guru mode, the tapsets):
 * the script functions' frame and calling convention, SystemTap's macros; the module backend's hook. */
#include "kmodule/kmodule.h"
#include "codegen/gen.h"

#include <string.h>

/* Whether an embedded-C function's frame member may also carry the script name NAME: not one of
 * the frame's own names, nor a C keyword (SystemTap identifiers may be). */
static int embedded_name_is_free(const char *name)
{
	static const char *const taken[] = {
		"unused_", "retval", "__retvalue", "auto", "break", "case", "char", "const", "continue",
		"default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
		"int", "long", "register", "restrict", "return", "short", "signed", "sizeof", "static",
		"struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "current",
	};

	if (!strncmp(name, "l_", 2))
		return 0;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (!strcmp(name, taken[i]))
			return 0;
	return 1;
}

/* The frame of an embedded-C function written for SystemTap's older interface, which names its
 * arguments and result through THIS (THIS->name, THIS->__retvalue): each member also carries
 * that name, in an anonymous union with ours (l_name, retval). */
static void embedded_old_api_members(StrBuf *frame, Function *f, int is_str)
{
	for (int i = 0; i < f->params.len; i++) {
		Symbol *sym = f->params.items[i];
		const char *ty = sym->type == TY_STRING ? "char" : "int64_t";
		const char *dim = sym->type == TY_STRING ? "[MAXSTRINGLEN]" : "";

		if (embedded_name_is_free(sym->name))
			sb_printf(frame, "\tunion { %s l_%s%s; %s %s%s; };\n", ty, sym->name, dim, ty, sym->name, dim);
		else
			sb_printf(frame, "\t%s l_%s%s;\n", ty, sym->name, dim);
	}
	if (is_str)
		sb_puts(frame, "\tunion { char retval[MAXSTRINGLEN]; char __retvalue[MAXSTRINGLEN]; };\n");
	else
		sb_puts(frame, "\tunion { int64_t retval; int64_t __retvalue; };\n");
}

/* An embedded-C function: the same frame and calling convention as script
 * functions, with SystemTap's macros for its arguments and result. */
void km_embedded_function(Session *s, Function *f, StrBuf *frames, StrBuf *code)
{
	(void)s;
	int is_str = f->ret == TY_STRING;

	sb_printf(frames, "struct frame_fn_%s {\n\tchar unused_;\n", f->cname);
	if (strstr(f->embedded, "THIS->"))
		embedded_old_api_members(frames, f, is_str);
	else {
		cg_frame_members(frames, &f->params, f);
		sb_puts(frames, is_str ? "\tchar retval[MAXSTRINGLEN];\n" : "\tint64_t retval;\n");
	}
	sb_puts(frames, "};\n\n");
	sb_printf(code, "static void fn_%s(struct stp_context *c, struct frame_fn_%s *f)\n{\n", f->cname, f->cname);
	sb_puts(code, "#define CONTEXT c\n#define THIS f\n#define STAP_RETVALUE (f->retval)\n");
	for (int i = 0; i < f->params.len; i++) {
		Symbol *p = f->params.items[i];
		sb_printf(code, "#define STAP_ARG_%s (f->l_%s)\n", p->name, p->name);
	}
	if (is_str)
		sb_puts(code, "#define STAP_RETURN(v) do { stp_strlcpy(f->retval, (v), MAXSTRINGLEN); goto stp_out; } while (0)\n");
	else
		sb_puts(code, "#define STAP_RETURN(v) do { f->retval = (v); goto stp_out; } while (0)\n");
	sb_puts(code, "#define STAP_ERROR(...) do { if (!c->last_error) { snprintf(c->error_buf, sizeof(c->error_buf), "
		      "__VA_ARGS__); stp_error(c, c->error_buf); } goto stp_out; } while (0)\n");
	sb_puts(code, is_str ? "\tf->retval[0] = 0;\n" : "\tf->retval = 0;\n");
	sb_printf(code, "\t{\n%s\n\t}\n\tgoto stp_out;\nstp_out:\n\t;\n", f->embedded);
	sb_puts(code, "#undef CONTEXT\n#undef THIS\n#undef STAP_RETVALUE\n#undef STAP_RETURN\n#undef STAP_ERROR\n");
	for (int i = 0; i < f->params.len; i++)
		sb_printf(code, "#undef STAP_ARG_%s\n", ((Symbol *)f->params.items[i])->name);
	sb_puts(code, "}\n\n");
}
