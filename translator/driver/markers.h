/* markers.h - stap's own SDT markers (provider "stap"), SystemTap's names and arguments: probed
 * through tapset/stap_staticmarkers.stp (stap.pass0...). Used by main.c, cache.c and spawn.c. */
#ifndef STAP_MARKERS_H
#define STAP_MARKERS_H

#include <sys/sdt.h>

/* the start and end of pass N (0: the command line, 1a/1b: the script and the library, 6: the
 * clean-up); the argument is the session */
#define STAP_MARK_PASS(n, edge, session) STAP_PROBE1(stap, pass##n##__##edge, (session))
/* cache__clean(path), cache__add__module(src, dest), cache__add__source(src, dest),
 * cache__get(c_path, ko_path) */
#define STAP_MARK_CACHE1(what, a) STAP_PROBE1(stap, cache__##what, (a))
#define STAP_MARK_CACHE2(what, a, b) STAP_PROBE2(stap, cache__##what, (a), (b))
/* stap_system__start(command), __spawn(status, pid), __complete(status) */
#define STAP_MARK_SYSTEM_START(cmd) STAP_PROBE1(stap, stap_system__start, (cmd))
#define STAP_MARK_SYSTEM_SPAWN(rc, pid) STAP_PROBE2(stap, stap_system__spawn, (rc), (pid))
#define STAP_MARK_SYSTEM_COMPLETE(rc) STAP_PROBE1(stap, stap_system__complete, (rc))

#endif
