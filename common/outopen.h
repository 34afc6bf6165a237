/* outopen.h - opening one output file safely (outopen.c); its own header, as it needs <sys/stat.h>,
 * whose kernel types clash with protocol.h's.  Used by stapio/outfile.c and translator/driver/ (main.c, remote.c). */
#ifndef COMMON_OUTOPEN_H
#define COMMON_OUTOPEN_H

#include <stddef.h>

/* One output file opened for writing: new (O_EXCL), or existing and not a symbolic link, emptied
 * only if it is the caller's own regular file with one link, never in a sticky directory everybody
 * may write to.  The fd, or -1 with errno; why gets the refusal ("" when it just cannot be opened). */
int output_file_open(const char *path, char *why, size_t size);

/* data written whole as the file output_file_open opens (stap -p4 -m NAME's NAME.ko, --remote's modules):
 * 0, or -1 with errno and why as output_file_open gives them. */
int output_file_write(const char *path, const void *data, size_t len, char *why, size_t size);

#endif
