#!/usr/bin/env bash
# run.sh - runs the pass-1 fuzzer (BUILD/parse_fuzz) for FUZZ_SECONDS on FUZZ_JOBS workers and sums it up.
# Used by `make fuzz` (tests/fuzz/run.sh build/fuzz after building the target); see tests/fuzz/README.md.
#
# Layout under BUILD (default build/fuzz): corpus/ the seeds (remade each run by make-corpus.sh),
# work/ the inputs the fuzzer found (kept between runs, so coverage accumulates), crashes/ the
# artifacts (crash-*, timeout-*, oom-*, slow-unit-*), fuzz.log the fuzzer's whole output.
# libFuzzer's fork mode runs the workers (-fork=FUZZ_JOBS): each child fuzzes for a while (1 s for
# the first, up to 300 s later) and exits, the parent merges what it found and goes on after crashes,
# timeouts and OOMs. RSS of the fuzzer processes is sampled every 2 s (peak per process).
# Exit status: 0 when no new artifact appeared, 1 otherwise (each is listed with how to reproduce it).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$TOP/build/fuzz}" && pwd)
SECONDS_WANTED=${FUZZ_SECONDS:-600}
JOBS=${FUZZ_JOBS:-2}
FUZZER=$BUILD/parse_fuzz
LOG=$BUILD/fuzz.log

die() { echo "fuzz: $*" >&2; exit 2; }
[[ -x $FUZZER ]] || die "$FUZZER missing: make $FUZZER (needs clang-14 and libclang-rt-14-dev: make deps)"

"$TOP/tests/fuzz/make-corpus.sh" "$BUILD/corpus"
mkdir -p "$BUILD/work" "$BUILD/crashes"
before=$(find "$BUILD/crashes" -type f | sort)

# rss_sampler: the peak RSS (MB) of any one fuzzer process and of all of them together, every 2 s
rss_sampler() {
    local peak1=0 peakall=0 line
    while sleep 2; do
        line=$(ps -eo rss=,args= | awk -v bin="$FUZZER" '$2 == bin { n++; s += $1; if ($1 > m) m = $1 }
            END { printf "%d %d %d\n", m / 1024, s / 1024, n }')
        read -r one all n <<<"$line"
        (( one > peak1 )) && peak1=$one
        (( all > peakall )) && peakall=$all
        echo "$peak1 $peakall" >"$BUILD/rss.peak"
        echo "rss $(date +%s) one=${one}MB all=${all}MB procs=$n" >>"$BUILD/rss.log"
    done
}
rm -f "$BUILD/rss.peak" "$BUILD/rss.log"
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
# -detect_leaks=0: the translator keeps its tree until exit, so every input leaks it by design
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$FUZZER" -fork="$JOBS" -ignore_crashes=1 -detect_leaks=0 -timeout=10 -max_len=4096 \
    -dict="$TOP/tests/fuzz/stap.dict" -artifact_prefix="$BUILD/crashes/" \
    -max_total_time="$SECONDS_WANTED" -print_final_stats=1 \
    "$BUILD/work" "$BUILD/corpus" >"$LOG" 2>&1 &
fuzzer=$!
# progress: the parent's status lines
tail -n +1 -f --pid="$fuzzer" "$LOG" 2>/dev/null | grep --line-buffered -E '^#[0-9]+:|^INFO: (exiting|fuzzed)|ERROR' || true
wait "$fuzzer" || rc=$?
kill "$sampler" 2>/dev/null || true

last=$(grep -E '^#[0-9]+:' "$LOG" | tail -n 1 || true)
execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")
secs=$(sed -n 's/.* time: \([0-9]*\)s.*/\1/p' <<<"$last")
counts=$(sed -n 's|.*oom/timeout/crash: \([0-9/]*\).*|\1|p' <<<"$last")
read -r peak1 peakall <"$BUILD/rss.peak" 2>/dev/null || { peak1='?'; peakall='?'; }
echo
echo "fuzz: summary (fuzzer exit status $rc)"
echo "  executions:          ${execs:-?} in ${secs:-?} s = $(awk -v n="${execs:-0}" -v s="${secs:-0}" 'BEGIN { print s ? int(n / s) : "?" }') exec/s over $JOBS worker(s)"
echo "  corpus:              $(find "$BUILD/work" -type f | wc -l) inputs, $(du -sk "$BUILD/work" | cut -f1) KB in $BUILD/work (seeds: $(find "$BUILD/corpus" -type f | wc -l))"
echo "  coverage:            $(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' <<<"$last")"
echo "  peak RSS:            ${peak1} MB for one process, ${peakall} MB for all (sampled every 2 s; log $BUILD/rss.log)"
echo "  oom/timeout/crash:   ${counts:-?}"
new=$(comm -13 <(echo "$before") <(find "$BUILD/crashes" -type f | sort) | sed '/^$/d')
if [[ -z $new ]]; then
    echo "  new artifacts:       none"
    exit 0
fi
echo "  new artifacts in $BUILD/crashes: $(wc -l <<<"$new")"
head -n 20 <<<"$new" | while IFS= read -r f; do
    echo "    $(basename "$f") ($(wc -c <"$f") bytes)"
done
(( $(wc -l <<<"$new") <= 20 )) || echo "    ... and $(( $(wc -l <<<"$new") - 20 )) more"
echo "  distinct reports (count, sanitizer/libFuzzer summary line):"
grep -E '^SUMMARY: |^==[0-9]+== ?ERROR: |^[^ ]+:[0-9]+:[0-9]+: runtime error: ' "$LOG" |
    sed -E 's/^==[0-9]+== ?//; s/ on (unknown )?address .*//; s/ \(BuildId: [0-9a-f]+\)//; s/\+0x[0-9a-f]+\)/)/g' |
    sort | uniq -c | sort -rn | head -n 20 | sed 's/^/    /' || true
echo "    (the reports themselves: $LOG)"
echo "  reproduce one:  STAP_FUZZ_STDERR=1 $FUZZER ARTIFACT;  and: timeout 10 build/bin/stap -p1 ARTIFACT"
echo "  keep each as a regression: cp ARTIFACT tests/fuzz/regressions/NAME (tests/unit/fuzz-regressions.t)"
exit 1
