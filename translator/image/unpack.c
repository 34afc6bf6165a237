/* unpack.c - compressed kernel files decompressed: a stream of xz, gzip or zstd grown a MB at a time, its
 * reader told after each; a compressed module whole, read as ELF in memory. Used by btf/source.c, buildid.c. */
#include "image/unpack.h"
#include "lib/util.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static uint8_t *stream_room(ImageStream *sc, size_t *avail)
{
	if (sc->cap - sc->len < (1u << 20)) {
		sc->cap = sc->cap ? sc->cap * 2 : (32u << 20);
		sc->buf = xrealloc(sc->buf, sc->cap);
	}
	*avail = sc->cap - sc->len;
	return sc->buf + sc->len;
}

static int unxz(const uint8_t *in, size_t n, ImageStream *sc, ImageStop stop, void *arg)
{
	lzma_stream z = LZMA_STREAM_INIT;
	int done = 0;

	if (lzma_stream_decoder(&z, UINT64_MAX, 0) != LZMA_OK)
		return 0;
	z.next_in = in;
	z.avail_in = n;
	while (!done) {
		size_t avail;
		lzma_ret r;
		z.next_out = stream_room(sc, &avail);
		z.avail_out = avail < (1u << 20) ? avail : (1u << 20);   /* scan every MB */
		avail = z.avail_out;
		r = lzma_code(&z, LZMA_RUN);
		sc->len += avail - z.avail_out;
		done = stop ? stop(sc, arg) : 0;
		if (r != LZMA_OK)
			break;
	}
	lzma_end(&z);
	return done;
}

static int gunzip(const uint8_t *in, size_t n, ImageStream *sc, ImageStop stop, void *arg)
{
	z_stream z = { 0 };
	int done = 0;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return 0;
	z.next_in = (Bytef *)in;
	z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	while (!done) {
		size_t avail;
		int r;
		z.next_out = stream_room(sc, &avail);
		z.avail_out = avail < (1u << 20) ? (uInt)avail : (1u << 20);
		avail = z.avail_out;
		r = inflate(&z, Z_NO_FLUSH);
		sc->len += avail - z.avail_out;
		done = stop ? stop(sc, arg) : 0;
		if (r != Z_OK)
			break;
	}
	inflateEnd(&z);
	return done;
}

/* 6.12's images (CONFIG_KERNEL_ZSTD) */
static int unzstd(const uint8_t *in, size_t n, ImageStream *sc, ImageStop stop, void *arg)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer zin = { in, n, 0 };
	int done = 0;

	if (!z || ZSTD_isError(ZSTD_initDStream(z))) {
		ZSTD_freeDStream(z);
		return 0;
	}
	while (!done) {
		size_t avail, r;
		ZSTD_outBuffer out = { stream_room(sc, &avail), 0, 0 };
		out.size = avail < (1u << 20) ? avail : (1u << 20);   /* scan every MB */
		r = ZSTD_decompressStream(z, &out, &zin);
		sc->len += out.pos;
		done = stop ? stop(sc, arg) : 0;
		if (ZSTD_isError(r) || (out.pos == 0 && zin.pos == zin.size) || r == 0)
			break;
	}
	ZSTD_freeDStream(z);
	return done;
}

const ImageCodec image_codecs[] = {
	{ "\xfd" "7zXZ\0", 6, unxz }, { "\x1f\x8b\x08", 3, gunzip }, { "\x28\xb5\x2f\xfd", 4, unzstd },
};
const size_t image_ncodecs = sizeof image_codecs / sizeof image_codecs[0];

/* A compressed module (.ko.xz, .ko.gz, .ko.zst) decompressed whole and read as ELF in memory: fn(elf, arg)
 * on it; -1 when it cannot be read or inflated. */
int image_with_packed_module(const char *path, void (*fn)(Elf *elf, void *arg), void *arg)
{
	size_t n;
	uint8_t *packed = (uint8_t *)read_file(path, &n);
	ImageStream sc = { 0 };
	int rc = -1;

	if (!packed)
		return -1;
	for (size_t k = 0; k < image_ncodecs; k++) {
		if (n >= image_codecs[k].n && !memcmp(packed, image_codecs[k].magic, image_codecs[k].n)) {
			image_codecs[k].inflate(packed, n, &sc, NULL, NULL);
			break;
		}
	}
	free(packed);
	if (sc.len) {
		Elf *elf;
		elf_version(EV_CURRENT);
		if ((elf = elf_memory((char *)sc.buf, sc.len))) {
			fn(elf, arg);
			elf_end(elf);
			rc = 0;
		}
	}
	free(sc.buf);
	return rc;
}
