/* unpack.h - decompressing the kernel's compressed files (unpack.c): a bzImage's payload as it grows, a
 * compressed module whole. Used by btf/source.c (the BTF inside /boot/vmlinuz-KVER) and buildid.c. */
#ifndef STAP_IMAGE_UNPACK_H
#define STAP_IMAGE_UNPACK_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* What a decompressor has written so far (buf malloc'd, the caller frees it). */
typedef struct ImageStream {
	uint8_t *buf;
	size_t len, cap;
} ImageStream;

/* Told after each MB written: 1 stops the decompression (the reader has what it wants), 0 goes on. */
typedef int (*ImageStop)(ImageStream *st, void *arg);

/* A compressor: its magic, and its decompressor of in[0..n) into st, asking stop (NULL: never stop) after
 * each MB; returns what stop last said. */
typedef struct ImageCodec {
	const char *magic;
	size_t n;
	int (*inflate)(const uint8_t *in, size_t n, ImageStream *st, ImageStop stop, void *arg);
} ImageCodec;

/* xz, gzip, zstd (6.12's images: CONFIG_KERNEL_ZSTD), in the order a bzImage's payload is looked for. */
extern const ImageCodec image_codecs[];
extern const size_t image_ncodecs;

/* A compressed module (.ko.xz, .ko.gz, .ko.zst) decompressed whole and read as ELF in memory: fn(elf, arg)
 * on it; -1 when it cannot be read or inflated. */
int image_with_packed_module(const char *path, void (*fn)(Elf *elf, void *arg), void *arg);

#endif
