#!/usr/bin/env bash
# run.sh - runs one libFuzzer target (BUILD/TARGET_fuzz) for FUZZ_SECONDS on FUZZ_JOBS workers and sums it up.
# Used by `make fuzz` (tests/fuzz/run.sh build/fuzz TARGET for each of FUZZ_TARGETS); see tests/fuzz/README.md.
# TARGET: parse (pass 1, the default), index (the DWARF index file reader), record (stapio's records and control lines),
# apptrace (app-trace-report's trace lines).
#
# Layout under BUILD (default build/fuzz) for parse, under BUILD/TARGET for the others: corpus/ the seeds (remade
# each run by make-corpus.sh, make-index-corpus.sh, make-record-corpus.sh, make-apptrace-corpus.sh or make-btf-corpus.sh), work/ the inputs the fuzzer found
# (kept between runs, so coverage accumulates), crashes/ the artifacts (crash-*, timeout-*, oom-*, slow-unit-*,
# leak-*), fuzz.log the fuzzer's whole output.
# libFuzzer's fork mode runs the workers (-fork=FUZZ_JOBS): each child fuzzes for a while (1 s for
# the first, up to 300 s later) and exits, the parent merges what it found and goes on after crashes,
# timeouts and OOMs. RSS of the fuzzer processes is sampled every 2 s (peak per process).
# Exit status: 0 when no new artifact appeared, 1 otherwise (each is listed with how to reproduce it).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build/fuzz}" && pwd)
TARGET=${2:-parse}
SECONDS_WANTED=${FUZZ_SECONDS:-600}
JOBS=${FUZZ_JOBS:-2}
FUZZER=$BUILD/${TARGET}_fuzz

die() { echo "fuzz: $*" >&2; exit 2; }
# per target: where it works, its seeds, the longest input, a dictionary, leak detection, how to replay an input
case $TARGET in
parse)
    # the translator keeps its tree until exit, so every input leaks it by design: no leak detection
    DIR=$BUILD CORPUS=make-corpus.sh MAX_LEN=4096 DICT=(-dict="$TOP/tests/fuzz/stap.dict") LEAKS=0
    REGRESSIONS=tests/fuzz/regressions
    REPLAY="timeout 10 build/bin/stap -p1 ARTIFACT" ;;
index)
    DIR=$BUILD/index CORPUS=make-index-corpus.sh MAX_LEN=65536 DICT=() LEAKS=1
    REGRESSIONS=tests/fuzz/regressions/index
    REPLAY="copy it over a cached index (\$SYSTEMTAP_DIR/cache/dwarf/BUILDID.idx) and run stap -v -p2" ;;
record)
    DIR=$BUILD/record CORPUS=make-record-corpus.sh MAX_LEN=16384 DICT=() LEAKS=1
    REGRESSIONS=tests/fuzz/regressions/record
    REPLAY="the input format is in tests/fuzz/record_fuzz.c" ;;
apptrace)
    DIR=$BUILD/apptrace CORPUS=make-apptrace-corpus.sh MAX_LEN=16384 DICT=() LEAKS=1
    REGRESSIONS=tests/fuzz/regressions/apptrace
    REPLAY="build/bin/app-trace-report on the artifact without its first byte: tail -c +2 ARTIFACT >h-app-trace.out" ;;
btf)
    DIR=$BUILD/btf CORPUS=make-btf-corpus.sh MAX_LEN=4096 DICT=() LEAKS=1
    REGRESSIONS=tests/fuzz/regressions/btf
    REPLAY="tail -c +5 ARTIFACT is the base blob (the first 4 bytes: its length, then a split blob): build/fuzz/btf_fuzz ARTIFACT" ;;
*) die "unknown target $TARGET (parse, index, record, apptrace or btf)" ;;
esac
LOG=$DIR/fuzz.log
[[ -x $FUZZER ]] || die "$FUZZER missing: make $FUZZER (needs clang-14 and libclang-rt-14-dev: make deps)"

mkdir -p "$DIR"
"$TOP/tests/fuzz/$CORPUS" "$DIR/corpus"
mkdir -p "$DIR/work" "$DIR/crashes"
before=$(find "$DIR/crashes" -type f | sort)

# rss_sampler: the peak RSS (MB) of any one fuzzer process and of all of them together, every 2 s
rss_sampler() {
    local peak1=0 peakall=0 line
    while sleep 2; do
        line=$(ps -eo rss=,args= | awk -v bin="$FUZZER" '$2 == bin { n++; s += $1; if ($1 > m) m = $1 }
            END { printf "%d %d %d\n", m / 1024, s / 1024, n }')
        read -r one all n <<<"$line"
        (( one > peak1 )) && peak1=$one
        (( all > peakall )) && peakall=$all
        echo "$peak1 $peakall" >"$DIR/rss.peak"
        echo "rss $(date +%s) one=${one}MB all=${all}MB procs=$n" >>"$DIR/rss.log"
    done
}
rm -f "$DIR/rss.peak" "$DIR/rss.log"
rss_sampler &
sampler=$!
fuzzer=
# on exit or ^C: stop the sampler, and the fuzzer if it still runs (SIGINT: libFuzzer stops its children)
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    kill "$sampler" 2>/dev/null || true
    if [[ -n $fuzzer ]] && kill -0 "$fuzzer" 2>/dev/null; then
        kill -INT "$fuzzer" 2>/dev/null || true
        wait "$fuzzer" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "fuzz: $FUZZER for ${SECONDS_WANTED}s on $JOBS worker(s); log $LOG"
rc=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=$LEAKS} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$FUZZER" -fork="$JOBS" -ignore_crashes=1 -detect_leaks="$LEAKS" -timeout=10 -max_len="$MAX_LEN" \
    "${DICT[@]}" -artifact_prefix="$DIR/crashes/" \
    -max_total_time="$SECONDS_WANTED" -print_final_stats=1 \
    "$DIR/work" "$DIR/corpus" >"$LOG" 2>&1 &
fuzzer=$!
# progress: the parent's status lines
tail -n +1 -f --pid="$fuzzer" "$LOG" 2>/dev/null | grep --line-buffered -E '^#[0-9]+:|^INFO: (exiting|fuzzed)|ERROR' || true
wait "$fuzzer" || rc=$?
kill "$sampler" 2>/dev/null || true

last=$(grep -E '^#[0-9]+:' "$LOG" | tail -n 1 || true)
execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")
secs=$(sed -n 's/.* time: \([0-9]*\)s.*/\1/p' <<<"$last")
counts=$(sed -n 's|.*oom/timeout/crash: \([0-9/]*\).*|\1|p' <<<"$last")
read -r peak1 peakall <"$DIR/rss.peak" 2>/dev/null || { peak1='?'; peakall='?'; }
echo
echo "fuzz: $TARGET summary (fuzzer exit status $rc)"
echo "  executions:          ${execs:-?} in ${secs:-?} s = $(awk -v n="${execs:-0}" -v s="${secs:-0}" 'BEGIN { print s ? int(n / s) : "?" }') exec/s over $JOBS worker(s)"
echo "  corpus:              $(find "$DIR/work" -type f | wc -l) inputs, $(du -sk "$DIR/work" | cut -f1) KB in $DIR/work (seeds: $(find "$DIR/corpus" -type f | wc -l))"
echo "  coverage:            $(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' <<<"$last")"
echo "  peak RSS:            ${peak1} MB for one process, ${peakall} MB for all (sampled every 2 s; log $DIR/rss.log)"
echo "  oom/timeout/crash:   ${counts:-?}"
new=$(comm -13 <(echo "$before") <(find "$DIR/crashes" -type f | sort) | sed '/^$/d')
if [[ -z $new ]]; then
    echo "  new artifacts:       none"
    exit 0
fi
echo "  new artifacts in $DIR/crashes: $(wc -l <<<"$new")"
head -n 20 <<<"$new" | while IFS= read -r f; do
    echo "    $(basename "$f") ($(wc -c <"$f") bytes)"
done
(( $(wc -l <<<"$new") <= 20 )) || echo "    ... and $(( $(wc -l <<<"$new") - 20 )) more"
echo "  distinct reports (count, sanitizer/libFuzzer summary line):"
grep -E '^SUMMARY: |^==[0-9]+== ?ERROR: |^[^ ]+:[0-9]+:[0-9]+: runtime error: ' "$LOG" |
    sed -E 's/^==[0-9]+== ?//; s/ on (unknown )?address .*//; s/ \(BuildId: [0-9a-f]+\)//; s/\+0x[0-9a-f]+\)/)/g' |
    sort | uniq -c | sort -rn | head -n 20 | sed 's/^/    /' || true
echo "    (the reports themselves: $LOG)"
echo "  reproduce one:  STAP_FUZZ_STDERR=1 $FUZZER ARTIFACT;  and: $REPLAY"
echo "  keep each as a regression: cp ARTIFACT $REGRESSIONS/NAME (tests/unit/fuzz-regressions.t)"
exit 1
