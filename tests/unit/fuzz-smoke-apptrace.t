# fuzz-smoke-apptrace - builds the libFuzzer target of app-trace-report's trace reading (build/fuzz/apptrace_fuzz), replays its regressions, fuzzes a fixed number of inputs; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=400
cost_s=25

run() {
    source "$TOP/tests/lib/fuzz-smoke.sh"
    # 50000 inputs: about 5 s at 11,000 exec/s on this machine (make fuzz runs it for as long as asked)
    fuzz_smoke apptrace make-apptrace-corpus.sh 50000 -max_len=16384
}
