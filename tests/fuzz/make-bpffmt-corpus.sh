#!/usr/bin/env bash
# make-bpffmt-corpus.sh - writes bpffmt_fuzz's seeds: the printf formats section of real BPF objects (stap
# --runtime=bpf -p4, objcopy) and records for it. Used by tests/fuzz/run.sh (make fuzz) and tests/unit/fuzz-smoke-bpffmt.t:
# make-bpffmt-corpus.sh [OUTDIR] (default build/fuzz/bpffmt/corpus). Also adds regressions/bpffmt/*.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$TOP/build/fuzz/bpffmt/corpus}
rm -rf "$OUT"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export SYSTEMTAP_DIR=$TMP/sd

# le BYTES VALUE: VALUE as BYTES little-endian bytes on stdout
le() {
    local i
    for (( i = 0; i < $1; i++ )); do
        # shellcheck disable=SC2059  # the format is the escape
        printf "\\x$(printf %02x $(( ($2 >> (8 * i)) & 255 )))"
    done
}
# rec < BYTES: one record of the input
rec() { cat >"$TMP/r"; le 2 "$(stat -c %s "$TMP/r")"; cat "$TMP/r"; }

# an object's section, from the script on stdin
section() {
    cat >"$TMP/s.stp"
    (cd "$TMP" && "$TOP/build/bin/stap" --runtime=bpf -p4 -m seed s.stp >/dev/null)
    objcopy -I elf64-little -O binary --only-section=.rodata.stp_fmt "$TMP/seed.bo" "$TMP/sec"
}
# seed NAME: the section, then the records on stdin
seed() { le 2 "$(stat -c %s "$TMP/sec")" >"$OUT/$1"; cat "$TMP/sec" >>"$OUT/$1"; cat >>"$OUT/$1"; }

section <<'SEOF'
probe begin { printf("%d %s|%-6s|%5d|%x %#o %p %c %*d %.*s %b\n", 1, "a", "b", 2, 3, 4, 5, 65, 4, 6, 2, "xyz", 7) exit() }
SEOF
{
    { le 4 0; le 8 42; printf 'world\0ab\0'; le 8 -7; le 8 255; le 8 8; le 8 4096; le 8 65; le 8 4; le 8 3; le 8 2; printf 'xyz\0'; le 8 65; } | rec
    { le 4 0; le 8 1; printf 'cut'; } | rec
    { le 4 9; } | rec
} | seed one-format

section <<'SEOF'
probe begin { printf("[%s]\n", execname()) printf("%*d|%-*s|\n", -1000, 5, 900, "w") printf("%02b%04b%08b", 1, 2, 3) exit() }
SEOF
{
    { le 4 0; printf 'stapio\0'; } | rec
    { le 4 1; le 8 -1000; le 8 5; le 8 900; printf 'w\0'; } | rec
    { le 4 2; le 8 1; le 8 2; le 8 3; } | rec
} | seed three-formats

for f in "$TOP/tests/fuzz/regressions/bpffmt"/*; do
    [[ -e $f ]] && cp "$f" "$OUT/"
done
exit 0
