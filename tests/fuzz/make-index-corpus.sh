#!/usr/bin/env bash
# make-index-corpus.sh - writes index_fuzz's seeds: real DWARF index files (stap -p2 on the test modules) and damaged copies.
# Used by tests/fuzz/run.sh (make fuzz) and tests/unit/fuzz-smoke.t: make-index-corpus.sh [OUTDIR] (default build/fuzz/index/corpus).
#
# The real files are the cached indexes ($SYSTEMTAP_DIR/cache/dwarf/BUILDID.idx) of tests/kmod/testmod and
# tests/kmod/tpmod, built for KVER (default scripts/guest-kver.sh) into build/fuzz/kmod; a few KB each, so the
# fuzzer mutates them whole (the kernel's is 9 MB). Each damaged copy changes one header or entry field (the
# layout is translator/dwarf/indexbuild.h's IdxHeader and IdxEntry): offsets that wrap when added to a length, counts
# past the file, string offsets past the table, an unterminated table. Also adds regressions/index/*.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$TOP/build/fuzz/index/corpus}
STAP=${STAP:-$TOP/build/bin/stap}
KVER=${KVER:-$("$TOP/scripts/guest-kver.sh")}
rm -rf "$OUT"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=../lib/testmod.sh
source "$TOP/tests/lib/testmod.sh"
for mod in testmod tpmod; do
    ko=$(kmod_build "$mod" "$TOP/build/fuzz/kmod/$mod" 2>"$TMP/err") || { cat "$TMP/err" >&2; exit 1; }
    SYSTEMTAP_DIR=$TMP/sd "$STAP" -p2 -r "$KVER" -e "probe module(\"$ko\").function(\"*\") {}" \
        >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
done
n=0
for f in "$TMP"/sd/cache/dwarf/*.idx; do
    cp "$f" "$OUT/real-$n.idx"
    n=$((n + 1))
done
(( n == 2 )) || { echo "make-index-corpus: expected 2 index files, got $n" >&2; exit 1; }

# field FILE OFFSET BYTES: an unsigned field of FILE
field() { od -A n -t "u$3" -j "$2" -N "$3" "$1" | tr -d ' '; }
# poke FILE OFFSET BYTES VALUE: writes VALUE there, little-endian
poke() {
    local i bytes=
    for (( i = 0; i < $3; i++ )); do
        bytes+=$(printf '\\x%02x' $(( ($4 >> (8 * i)) & 255 )))
    done
    # shellcheck disable=SC2059  # the escapes are the point
    printf "$bytes" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
# damaged NAME OFFSET BYTES VALUE: a copy of the first real file with one field changed
damaged() { cp "$OUT/real-0.idx" "$OUT/$1.idx"; poke "$OUT/$1.idx" "$2" "$3" "$4"; }

# IdxHeader: magic 0, version 8, nentries 12, ncus 16, nfunctions 20, strings_off 24, strings_len 32,
# entries_off 40, cus_off 48, file_size 56, build_id 64..111; IdxEntry (40 bytes): name 0, cu 4, die 8,
# pc 16, file 24, line 28, tag 32, flags 34
f=$OUT/real-0.idx
entries=$(field "$f" 40 8) strings=$(field "$f" 24 8) slen=$(field "$f" 32 8)
damaged wrap-strings 24 8 $(( -8 ))                       # strings_off + strings_len wraps past 2^64
damaged wrap-entries 40 8 $(( -32 ))                      # entries_off + 1 entry wraps to 8
poke "$OUT/wrap-entries.idx" 12 4 1
damaged wrap-cus 48 8 $(( -16 ))                          # cus_off + 1 CU wraps to 0
poke "$OUT/wrap-cus.idx" 16 4 1
damaged many-entries 12 4 $(( 0xffffffff ))
damaged many-functions 20 4 $(( 0xffffffff ))
damaged long-strings 32 8 $(( 1 << 40 ))
damaged unterminated $(( strings + slen - 1 )) 1 0x41     # the table's final NUL
damaged entry-name "$entries" 4 $(( 0xffffffff ))
damaged entry-cu $(( entries + 4 )) 4 $(( 0xffffffff ))
damaged entry-file $(( entries + 24 )) 4 "$slen"
damaged unsorted "$entries" 4 "$(field "$f" $(( entries + 40 * 2 )) 4)"
poke "$OUT/unsorted.idx" $(( entries + 40 * 2 )) 4 "$(field "$f" "$entries" 4)"
damaged misaligned-entries 40 8 $(( entries + 1 ))
head -c 111 "$f" >"$OUT/short-header.idx"
head -c $(( $(stat -c %s "$f") - 1 )) "$f" >"$OUT/truncated.idx"

shopt -s nullglob
for f in "$TOP"/tests/fuzz/regressions/index/*; do
    [[ -f $f && $(basename "$f") != README* ]] && cp "$f" "$OUT/regression-$(basename "$f")"
done
exit 0
