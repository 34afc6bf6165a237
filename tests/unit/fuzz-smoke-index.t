# fuzz-smoke-index - builds the DWARF index reader's libFuzzer target (build/fuzz/index_fuzz), replays its regressions, fuzzes 20 s; any crash fails.
# Used by tests/run (unit/ and asan/: the fuzzer is ASan/UBSan-built either way); see tests/fuzz/README.md.
timeout_s=200

run() {
    source "$TOP/tests/lib/fuzz-smoke.sh"
    fuzz_smoke index make-index-corpus.sh -max_len=65536
}
