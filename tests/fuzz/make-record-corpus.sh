#!/usr/bin/env bash
# make-record-corpus.sh - writes record_fuzz's seeds: valid trace record and control line sequences in its input format.
# Used by tests/fuzz/run.sh (make fuzz) and tests/unit/fuzz-smoke.t: make-record-corpus.sh [OUTDIR] (default build/fuzz/record/corpus).
#
# The format is record_fuzz.c's (its header comment): a mode byte, a floor byte, then chunks [target][u16 len][bytes];
# a trace chunk holds whole records (struct stp_record_header of runtime/transport/protocol.h: u32 len, u16 cpu,
# u16 flags, u64 seq, little-endian, then len payload bytes). Also adds regressions/record/*.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$TOP/build/fuzz/record/corpus}
rm -rf "$OUT"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# le BYTES VALUE: VALUE as BYTES little-endian bytes on stdout
le() {
    local i
    for (( i = 0; i < $1; i++ )); do
        # shellcheck disable=SC2059  # the format is the escape
        printf "\\x$(printf %02x $(( ($2 >> (8 * i)) & 255 )))"
    done
}
# rec CPU FLAGS SEQ PAYLOAD: one record
rec() { le 4 ${#4}; le 2 "$1"; le 2 "$2"; le 8 "$3"; printf '%s' "$4"; }
# chunk TARGET < BYTES: one chunk of the input
chunk() { cat >"$TMP/c"; le 1 "$1"; le 2 "$(stat -c %s "$TMP/c")"; cat "$TMP/c"; }
# seed NAME MODE FLOOR: starts a seed file; the chunks are appended by the caller
seed() { le 1 "$2" >"$OUT/$1"; le 1 "$3" >>"$OUT/$1"; }

# one trace file, three records in one read
seed one-cpu 0 0
{ rec 0 0 1 'hello'; rec 0 0 2 $'world\n'; rec 0 0 3 ''; } | chunk 0 >>"$OUT/one-cpu"
# two CPUs interleaved by seq, a hole waited for (50 ms per chunk) and filled
seed two-cpus $(( 1 | 3 << 5 )) 0
{ rec 0 0 1 'a'; rec 0 0 3 'c'; } | chunk 0 >>"$OUT/two-cpus"
{ rec 1 0 2 'b'; rec 1 0 4 'd'; } | chunk 1 >>"$OUT/two-cpus"
rec 0 0 5 'e' | chunk 0 >>"$OUT/two-cpus"
# a hole that outlives the wait (1000 ms per chunk): emitted past, the missing record comes late
seed late $(( 1 | 7 << 5 )) 0
rec 0 0 2 'two' | chunk 0 >>"$OUT/late"
rec 0 0 3 'three' | chunk 0 >>"$OUT/late"
rec 1 0 1 'one' | chunk 1 >>"$OUT/late"
# stderr, switch_file() and system() records beside output
seed kinds 1 0
{ rec 0 0 1 'out'; rec 0 1 2 $'WARNING: x\n'; rec 0 2 3 ''; rec 0 4 5 'echo hi'; } | chunk 0 >>"$OUT/kinds"
rec 1 0 4 'more' | chunk 1 >>"$OUT/kinds"
# bulk mode (stap -b): four files, each in its own order
seed bulk $(( 3 | 8 )) 0
for cpu in 0 1 2 3; do
    { rec $cpu 0 $(( cpu + 1 )) "cpu$cpu"; rec $cpu 0 $(( cpu + 5 )) "again$cpu"; } | chunk $cpu >>"$OUT/bulk"
done
# an attached flight recorder run: seqs up to the floor (7) are gone
seed flight $(( 1 | 16 )) 7
{ rec 0 0 9 'nine'; rec 0 0 10 'ten'; } | chunk 0 >>"$OUT/flight"
rec 1 0 8 'eight' | chunk 1 >>"$OUT/flight"
# the control file's lines (target 2 with two trace files), then records
seed control 1 0
printf 'started\nlost 3 120\n' | chunk 2 >>"$OUT/control"
rec 0 0 1 'x' | chunk 0 >>"$OUT/control"
printf 'exit\nstopped 0 0 0 0\nerror some text\nattached 5\n' | chunk 2 >>"$OUT/control"
# the largest payload the core flushes in one record (8192 bytes)
seed big 0 0
rec 0 0 1 "$(head -c 8192 /dev/zero | tr '\0' 'x')" | chunk 0 >>"$OUT/big"
# malformed: a header cut short, and a length past the read
seed short-header 0 0
rec 0 0 1 'abc' >"$TMP/r"
head -c 10 "$TMP/r" | chunk 0 >>"$OUT/short-header"
seed long-length 0 0
{ le 4 100; le 2 0; le 2 0; le 8 1; printf 'abc'; } | chunk 0 >>"$OUT/long-length"

shopt -s nullglob
for f in "$TOP"/tests/fuzz/regressions/record/*; do
    [[ -f $f && $(basename "$f") != README* ]] && cp "$f" "$OUT/regression-$(basename "$f")"
done
exit 0
