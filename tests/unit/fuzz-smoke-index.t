# fuzz-smoke-index - builds the DWARF index reader's libFuzzer target (build/fuzz/index_fuzz), replays its regressions, fuzzes 20 s; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=200

run() {
    source "$TOP/tests/lib/fuzz-smoke.sh"
    fuzz_smoke index make-index-corpus.sh -max_len=65536
}
