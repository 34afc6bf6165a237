#!/usr/bin/env bash
# make-btf-corpus.sh - writes btf_fuzz's seeds: small BTF blobs pahole encodes from C (a base, and a module's split
# blob over it), damaged copies and hand-made cycles. Used by tests/fuzz/run.sh (make fuzz) and tests/unit/fuzz-smoke-btf.t:
# make-btf-corpus.sh [OUTDIR] (default build/fuzz/btf/corpus).
#
# An input is a little-endian u32 base length, the base blob, then the split blob (see btf_fuzz.c). The
# damaged copies change one header field (translator/btf/reader.c: magic 0, version 2, hdr_len 4, type_off 8,
# type_len 12, str_off 16, str_len 20) or the first record; the cycles are types that reach themselves through
# typedefs, qualifiers or array elements.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$TOP/build/fuzz/btf/corpus}
rm -rf "$OUT"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/base.c" <<'C'
struct list { struct list *next, *prev; };
typedef unsigned long ulong;
enum color { RED, GREEN = 5, BLUE = -1 };
union u { int i; char c[8]; float f; };
struct file { ulong pos; struct list l; unsigned int flags:3, mode:5; union u x; enum color c;
	const volatile char *name; struct { int a; } anon; int arr[4][2]; void (*op)(struct file *, int); };
int vfs_read(struct file *f, char *buf, ulong count, long long *pos) { return f->flags + (int)count + !!buf + !!pos; }
struct file g;
C
cat >"$TMP/mod.c" <<'C'
struct list { struct list *next, *prev; };
struct file;
struct mod_state { struct list l; struct file *f; long v[3]; };
long mod_fn(struct mod_state *s, int n) { return s->v[n & 1] + n; }
struct mod_state ms;
C
gcc -g -O1 -c "$TMP/base.c" -o "$TMP/base.o"
gcc -g -O1 -c "$TMP/mod.c" -o "$TMP/mod.o"
pahole --btf_encode_detached="$TMP/base.btf" "$TMP/base.o"
pahole --btf_base="$TMP/base.btf" --btf_encode_detached="$TMP/mod.btf" "$TMP/mod.o"

# le32 VALUE: 4 bytes, little-endian
le32() { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
# input NAME BASE [SPLIT]: writes an input
input() {
    { le32 "$(stat -c %s "$2")"; cat "$2"; [[ -z ${3:-} ]] || cat "$3"; } >"$OUT/$1"
}
# poke FILE OFFSET VALUE: a u32 written there
poke() { le32 "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

input base "$TMP/base.btf"
input split "$TMP/base.btf" "$TMP/mod.btf"
n=0
for f in "4 4096" "8 1" "12 100000" "16 4000" "20 0" "20 100000" "24 0xffffffff" "28 0x1f000000" "28 0x0000ffff"; do
    set -- $f
    cp "$TMP/base.btf" "$TMP/d.btf"
    poke "$TMP/d.btf" "$1" "$(($2))"
    input "damaged-base-$n" "$TMP/d.btf" "$TMP/mod.btf"
    cp "$TMP/mod.btf" "$TMP/d.btf"
    poke "$TMP/d.btf" "$1" "$(($2))"
    input "damaged-split-$n" "$TMP/base.btf" "$TMP/d.btf"
    n=$((n + 1))
done
head -c $(( $(stat -c %s "$TMP/base.btf") - 1 )) "$TMP/base.btf" >"$TMP/short.btf"
input truncated "$TMP/short.btf"

# blob TYPES_HEX...: a blob whose strings are "\0a\0b\0" and whose type section is the u32 words given
blob() {
    local words=("$@")
    { printf '\x9f\xeb\x01\x00'; le32 24; le32 0; le32 $(( ${#words[@]} * 4 )); le32 $(( ${#words[@]} * 4 )); le32 5
      for w in "${words[@]}"; do le32 $((w)); done
      printf '\0a\0b\0'; } >"$TMP/c.btf"
}
# kinds: 2 PTR, 3 ARRAY, 8 TYPEDEF, 9 VOLATILE, 10 CONST, 12 FUNC, 13 FUNC_PROTO
blob 1 0x08000000 2   3 0x08000000 1                       # typedef a -> b -> a
input cycle-typedef "$TMP/c.btf"
blob 0 0x0a000000 2   0 0x09000000 1                       # const -> volatile -> const
input cycle-qualifiers "$TMP/c.btf"
blob 0 0x03000000 0 1 1 2                                  # an array of itself
input cycle-array "$TMP/c.btf"
blob 1 0x0c000000 1                                        # a FUNC whose prototype is itself
input cycle-func "$TMP/c.btf"
blob 1 0x0d000002 1 1 1 3 2                                # a prototype returning itself, parameters of itself
input cycle-proto "$TMP/c.btf"

shopt -s nullglob
for f in "$TOP"/tests/fuzz/regressions/btf/*; do
    [[ -f $f && $(basename "$f") != README* ]] && cp "$f" "$OUT/regression-$(basename "$f")"
done
exit 0
