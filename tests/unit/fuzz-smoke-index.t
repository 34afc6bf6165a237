# fuzz-smoke-index - builds the DWARF index reader's libFuzzer target (build/fuzz/index_fuzz), replays its regressions, fuzzes a fixed number of inputs; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=400
cost_s=30

run() {
    source "$TOP/tests/lib/fuzz-smoke.sh"
    # 80000 inputs: about 4 s at 18,000 exec/s on this machine (make fuzz runs it for as long as asked)
    fuzz_smoke index make-index-corpus.sh 80000 -max_len=65536
}
