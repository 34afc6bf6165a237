# fuzz-smoke-record - builds the libFuzzer target of stapio's record and control-line parsing (build/fuzz/record_fuzz), replays its regressions, fuzzes a fixed number of inputs; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=400
cost_s=15

run() {
    source "$TOP/tests/lib/fuzz-smoke.sh"
    # 2000 inputs: about 6 s at 350 exec/s on this machine (make fuzz runs it for as long as asked)
    fuzz_smoke record make-record-corpus.sh 2000 -max_len=16384
}
