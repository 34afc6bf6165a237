/* kernelid.c - the build id of the kernel the probes were placed or typed with: the DWARF's when a probe's site
 * is in the kernel, else the BTF's. Used by kmodule/skeleton.c for MODULE_INFO(stap_kernel_build_id). */
#include "targets/kernelid.h"
#include "btf/btf.h"
#include "dwarf/dwarf.h"
#include "providers/provider.h"

const char *tg_kernel_build_id(Session *s)
{
	int any_kernel = 0;

	/* probes placed or typed with the kernel's DWARF: staprun checks the running kernel is that one */
	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		if (dp->site && dp->site->mod && dp->site->mod->is_kernel)
			any_kernel = 1;
	}
	if (any_kernel && dwarf_kernel_build_id(s)[0])
		return dwarf_kernel_build_id(s);
	return btf_kernel_build_id(s);   /* probes typed from the kernel's BTF: that kernel's */
}
