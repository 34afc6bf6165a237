# fuzz-smoke-apptrace - builds the libFuzzer target of app-trace-report's trace reading (build/fuzz/apptrace_fuzz), replays its regressions, fuzzes 20 s; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=150

run() {
    source "$TOP/tests/lib/fuzz-smoke.sh"
    fuzz_smoke apptrace make-apptrace-corpus.sh -max_len=16384
}
