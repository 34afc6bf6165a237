/* translate.c - pass 3's owner: the analyses every runtime's code needs (what codegen lacks, who reads
 * statistics while running, the call graph), the parts (bodies.c), then the runtime's writer. */
#include "codegen/translate.h"
#include "codegen/backend.h"
#include "codegen/gen.h"
#include "kmodule/kmodule.h"
#include "bpfprog/bpfprog.h"

int translate(Session *s, StrBuf *out)
{
	const CgBackend *be = s->bpf ? &bpf_backend : &km_backend;
	CgParts parts;
	CgState cg = { .be = be };     /* what the file's functions share, reached as s->cg while this runs */

	s->cg = &cg;
	if (cg_check_generated(s) || (be->refuse && be->refuse(s))) {
		s->cg = NULL;
		return diag_error_count(&s->diag);
	}
	cg_mark_running_readers(s);
	cg_calls_analyze(s);
	cg_generate_parts(s, be, &parts);
	be->write(s, &parts, out);
	cg_free_parts(&parts);
	s->cg = NULL;
	return 0;
}
