/* source.c - finds the target kernel's BTF: /sys/kernel/btf/vmlinux for the running kernel, else the
 * .BTF section of a vmlinux, else the one inside the compressed /boot/vmlinuz-KVER (xz, gzip, zstd; cached). Used by bind.c, providers/dwarf.c. */
#include "btf.h"
#include "../dwarf/dwarf.h"
#include "../dwarf/elffile.h"
#include "../filecache.h"
#include "../session.h"
#include "../util.h"

#include <lzma.h>
#include <zstd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* The .BTF section of an ELF vmlinux, copied; NULL when it has none. */
static void *btf_from_elf(const char *path, size_t *size, char *build_id)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd;
	void *copy = NULL;

	if (elffile_open(path, 0, &fd, &elf) != ELFFILE_OK)
		return NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *data;
			if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".BTF"))
				continue;
			if ((data = elf_getdata(scn, NULL)) && data->d_size) {
				copy = xmalloc(data->d_size);
				memcpy(copy, data->d_buf, data->d_size);
				*size = data->d_size;
			}
			break;
		}
	}
	if (copy)
		dwarf_elf_build_id(elf, build_id, 41);
	elffile_close(elf, fd);
	return copy;
}

/* ---- the BTF inside a compressed kernel image ---- */

/* Output of a decompressor, scanned for a BTF blob as it grows: .BTF is a third of the way into
 * vmlinux, so decompression stops there. */
typedef struct Scan {
	uint8_t *buf;
	size_t len, cap;
	size_t scanned;          /* no blob starts before this */
	size_t start, need;      /* a candidate: its offset and total size (need 0: none yet) */
	char build_id[41];       /* the last GNU build id note before the blob (.notes precedes .BTF) */
} Scan;

/* The kernel's build id: the last NT_GNU_BUILD_ID note (namesz 4, descsz 20, "GNU") before the blob. */
static void scan_build_id(Scan *sc)
{
	static const char note[] = "\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU";
	const uint8_t *p = sc->buf, *last = NULL;
	size_t n = sc->start;

	while ((p = memmem(p, n - (size_t)(p - sc->buf), note, sizeof note)) && (size_t)(p - sc->buf) + 36 <= n)
		last = p++;
	if (last)
		dwarf_build_id_in_notes(last, 36, sc->build_id, sizeof sc->build_id);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Looks for the next candidate header (magic, version 1, 24-byte header, strings right after the
 * types, as pahole writes it). */
static void scan_candidates(Scan *sc)
{
	while (!sc->need && sc->scanned + 24 <= sc->len) {
		const uint8_t *p = memmem(sc->buf + sc->scanned, sc->len - sc->scanned, "\x9f\xeb\x01\x00\x18\x00\x00\x00", 8);
		size_t at;
		if (!p) {
			sc->scanned = sc->len > 8 ? sc->len - 8 : 0;
			return;
		}
		at = (size_t)(p - sc->buf);
		if (at + 24 > sc->len) {
			sc->scanned = at;
			return;
		}
		if (le32(p + 8) == 0 && le32(p + 16) == le32(p + 12) && le32(p + 20) && le32(p + 12) < (256u << 20) &&
		    le32(p + 20) < (256u << 20)) {
			sc->start = at;
			sc->need = 24 + (size_t)le32(p + 12) + le32(p + 20);
		}
		sc->scanned = at + 1;
	}
}

/* A complete candidate that parses: moved into *blob. 1 done, 0 go on. */
static int scan_complete(Scan *sc, void **blob, size_t *size)
{
	for (;;) {
		scan_candidates(sc);
		if (!sc->need || sc->len < sc->start + sc->need)
			return 0;
		char *err = NULL;
		Btf *b = btf_parse(sc->buf + sc->start, sc->need, &err);
		if (b) {
			btf_free(b);
			*blob = xmalloc(sc->need);
			memcpy(*blob, sc->buf + sc->start, sc->need);
			*size = sc->need;
			scan_build_id(sc);
			return 1;
		}
		free(err);
		sc->need = 0;   /* a false match: look further */
	}
}

static uint8_t *scan_room(Scan *sc, size_t *avail)
{
	if (sc->cap - sc->len < (1u << 20)) {
		sc->cap = sc->cap ? sc->cap * 2 : (32u << 20);
		sc->buf = xrealloc(sc->buf, sc->cap);
	}
	*avail = sc->cap - sc->len;
	return sc->buf + sc->len;
}

static int unxz(const uint8_t *in, size_t n, Scan *sc, void **blob, size_t *size)
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
		z.next_out = scan_room(sc, &avail);
		z.avail_out = avail < (1u << 20) ? avail : (1u << 20);   /* scan every MB */
		avail = z.avail_out;
		r = lzma_code(&z, LZMA_RUN);
		sc->len += avail - z.avail_out;
		done = scan_complete(sc, blob, size);
		if (r != LZMA_OK)
			break;
	}
	lzma_end(&z);
	return done;
}

static int gunzip(const uint8_t *in, size_t n, Scan *sc, void **blob, size_t *size)
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
		z.next_out = scan_room(sc, &avail);
		z.avail_out = avail < (1u << 20) ? (uInt)avail : (1u << 20);
		avail = z.avail_out;
		r = inflate(&z, Z_NO_FLUSH);
		sc->len += avail - z.avail_out;
		done = scan_complete(sc, blob, size);
		if (r != Z_OK)
			break;
	}
	inflateEnd(&z);
	return done;
}

/* 6.12's images (CONFIG_KERNEL_ZSTD) */
static int unzstd(const uint8_t *in, size_t n, Scan *sc, void **blob, size_t *size)
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
		ZSTD_outBuffer out = { scan_room(sc, &avail), 0, 0 };
		out.size = avail < (1u << 20) ? avail : (1u << 20);   /* scan every MB */
		r = ZSTD_decompressStream(z, &out, &zin);
		sc->len += out.pos;
		done = scan_complete(sc, blob, size);
		if (ZSTD_isError(r) || (out.pos == 0 && zin.pos == zin.size) || r == 0)
			break;
	}
	ZSTD_freeDStream(z);
	return done;
}

/* The BTF of a bzImage: its payload found by the compressor's magic (as the kernel's
 * scripts/extract-vmlinux does), decompressed until the blob is whole. xz, gzip and zstd. */
static void *btf_from_image(const char *path, size_t *size, char *build_id)
{
	static const struct {
		const char *magic;
		size_t n;
		int (*inflate)(const uint8_t *in, size_t n, Scan *sc, void **blob, size_t *size);
	} kinds[] = {
		{ "\xfd" "7zXZ\0", 6, unxz }, { "\x1f\x8b\x08", 3, gunzip }, { "\x28\xb5\x2f\xfd", 4, unzstd },
	};
	size_t n;
	uint8_t *img = (uint8_t *)read_file(path, &n);
	void *blob = NULL;

	if (!img)
		return NULL;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && !blob; k++) {
		const uint8_t *p = img;
		while (!blob && (p = memmem(p, n - (size_t)(p - img), kinds[k].magic, kinds[k].n))) {
			Scan sc = { 0 };
			kinds[k].inflate(p, n - (size_t)(p - img), &sc, &blob, size);
			if (blob)
				memcpy(build_id, sc.build_id, sizeof sc.build_id);
			free(sc.buf);
			p++;
		}
	}
	free(img);
	return blob;
}

/* The image's BTF through the cache: btf/HASH (of the image's path, size and mtime) holds the
 * blob, btf/HASH.id the build id. */
static void *btf_from_image_cached(Session *s, const char *path, size_t *size, char *build_id, int *from_cache)
{
	char name[64], *cache, *id_path = NULL, *id;
	size_t idlen;
	void *blob;

	snprintf(name, sizeof name, "btf/%016llx", filecache_hash_stat(FILECACHE_HASH_INIT, path));
	cache = filecache_path(s, name);
	if (cache)
		id_path = xasprintf("%s.id", cache);
	if (cache && (id = filecache_read(id_path, &idlen)) && (blob = filecache_read(cache, size))) {
		snprintf(build_id, 41, "%s", id);
		free(id);
		*from_cache = 1;
		free(cache);
		free(id_path);
		return blob;
	}
	blob = btf_from_image(path, size, build_id);
	if (blob && cache && filecache_write(cache, blob, *size) == 0)
		filecache_write(id_path, build_id, strlen(build_id));
	free(cache);
	free(id_path);
	return blob;
}

Btf *btf_kernel(Session *s, const char **err)
{
	char *paths[4], *origin = NULL;
	void *blob = NULL;
	size_t size = 0;
	int n, from_cache = 0;
	double t0 = now_ms();
	char *why = NULL, build_id[41] = "";

	if (s->btf || s->btf_error) {
		*err = s->btf_error;
		return s->btf;
	}
	if (s->target_is_running && access("/sys/kernel/btf/vmlinux", R_OK) == 0 &&
	    (blob = read_file("/sys/kernel/btf/vmlinux", &size))) {
		origin = xstrdup("/sys/kernel/btf/vmlinux");
		dwarf_file_build_id("/sys/kernel/notes", build_id, sizeof build_id);
	}
	n = dwarf_kernel_paths(s, paths);
	for (int i = 0; i < n; i++) {
		if (!blob && (blob = btf_from_elf(paths[i], &size, build_id)))
			origin = xstrdup(paths[i]);
		free(paths[i]);
	}
	if (!blob) {
		char *image = xasprintf("/boot/vmlinuz-%s", s->kver);
		if ((blob = btf_from_image_cached(s, image, &size, build_id, &from_cache)))
			origin = image;
		else
			free(image);
	}
	if (!blob) {
		s->btf_error = xasprintf("no BTF for kernel %s (looked in /sys/kernel/btf/vmlinux for the running "
					 "kernel, the vmlinux files, /boot/vmlinuz-%s)", s->kver, s->kver);
	} else if (!(s->btf = btf_parse(blob, size, &why))) {
		s->btf_error = xasprintf("the BTF of %s is unreadable: %s", origin, why);
		free(why);
		free(blob);
		free(origin);
	} else {
		s->btf->owned = blob;
		s->btf->origin = origin;
		memcpy(s->btf->build_id, build_id, sizeof build_id);
		if (s->verbose >= 2)
			fprintf(stderr, "Kernel BTF: %s%s (%u types, build id %s) read in %.1f ms\n", origin,
				from_cache ? " (cached)" : "", s->btf->ntypes, build_id[0] ? build_id : "unknown",
				now_ms() - t0);
	}
	*err = s->btf_error;
	return s->btf;
}

const char *btf_kernel_build_id(Session *s)
{
	return s->btf ? s->btf->build_id : "";
}
