/* tapsets.h - the tapset library: search path, an index of what each file
 * defines (cached on disk), and loading only the files a script needs. */
#ifndef STAP_TAPSETS_H
#define STAP_TAPSETS_H

#include "session.h"

/* Finds the library files (tapset directory, then every -I DIR, preferring
 * kernel-version and architecture subdirectories) and reads their @define
 * macros.  Returns the number of errors. */
int tapsets_init(Session *s);

/* Parses into s->prog the library files that define probe aliases, functions
 * or globals the program uses, until nothing more is needed. */
int tapsets_load_needed(Session *s);

/* Parses every library file into s->prog (--dump-functions, -l). */
int tapsets_load_all(Session *s);

/* Every probe alias name the library defines, sorted (char*). */
PtrVec tapsets_alias_names(Session *s);

/* How many library files have been parsed into the program. */
int tapsets_loaded_count(Session *s);
/* How many library files were parsed so far (indexing or loading). */
int tapsets_parsed_count(Session *s);

#endif
