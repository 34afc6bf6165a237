/* kbuild_nm.c - the NM that pass 4 gives kbuild: the kernel's nm (its compiler's prefix) with only that GCC's
 * LTO plugin, as gcc-nm runs it.  Plain nm loads every plugin in bfd-plugins (LLVMgold pulls in libLLVM: 0.1 s a
 * run, twice a module).  Used by kbuild_steps.c and kfeatures.c. */
#include "compile/kbuild_nm.h"
#include "kernel.h"
#include "driver/spawn.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel's compiler, as its configuration names it ("x86_64-linux-gnu-gcc-12 (Debian ...) 12.2.0"): its
 * first word, or NULL unless the kernel was built by GCC. */
static char *kbnm_compiler(Session *s)
{
	const char *gcc = kernel_config_value(s, "CONFIG_CC_IS_GCC"), *text;

	if (!gcc || strcmp(gcc, "y") != 0 || !(text = kernel_config_value(s, "CONFIG_CC_VERSION_TEXT")))
		return NULL;
	size_t n = strcspn(text, " ");
	/* a program name, nothing a shell or make would read otherwise */
	if (n == 0 || text[strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")] != ' ')
		return NULL;
	return xstrndup(text, n);
}

/* Runs argv (its stderr discarded): the first line of its stdout, or NULL when it failed. */
static char *kbnm_output(char *const argv[])
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	StrBuf out;
	int rc = spawn_capture(argv, NULL, -1, null, &out);

	if (null >= 0)
		close(null);
	if (rc != 0) {
		sb_free(&out);
		return NULL;
	}
	char *text = sb_steal(&out);
	text[strcspn(text, "\n")] = 0;
	return text;
}

/* The NM= argument, or "" for none. */
static char *kbnm_find(Session *s)
{
	/* the user's or a cross or LLVM build's own choice stands */
	if (getenv("NM") || getenv("LLVM") || getenv("CROSS_COMPILE"))
		return xstrdup("");
	char *compiler = kbnm_compiler(s), *arg = NULL;
	const char *gcc = compiler ? strstr(compiler, "gcc") : NULL;
	if (!gcc) {
		free(compiler);
		return xstrdup("");
	}
	/* the kernel's nm is its compiler's prefix and nm (its Makefile: $(CROSS_COMPILE)nm) */
	char *nm = xasprintf("%.*snm", (int)(gcc - compiler), compiler);
	char *nm_argv[] = { nm, "--version", NULL }, *cc_argv[] = { compiler, "-print-file-name=liblto_plugin.so", NULL };
	char *version = kbnm_output(nm_argv), *plugin = version ? kbnm_output(cc_argv) : NULL;
	if (plugin && plugin[0] == '/' && !strpbrk(plugin, " \t'\"\\$`") && access(plugin, R_OK) == 0)
		arg = xasprintf("NM=%s --plugin=%s", nm, plugin);
	free(plugin);
	free(version);
	free(nm);
	free(compiler);
	return arg ? arg : xstrdup("");
}

const char *kbuild_nm_arg(Session *s)
{
	if (!s->kbuild_nm)
		s->kbuild_nm = kbnm_find(s);
	return s->kbuild_nm[0] ? s->kbuild_nm : NULL;
}
