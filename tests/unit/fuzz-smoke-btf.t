# fuzz-smoke-btf - builds the BTF reader's libFuzzer target (build/fuzz/btf_fuzz), replays its regressions, fuzzes a fixed number of inputs; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=400
cost_s=40

run() {
    command -v pahole >/dev/null || { echo "FAIL: pahole not found (make deps: dwarves)"; return 1; }
    source "$TOP/tests/lib/fuzz-smoke.sh"
    # 100000 inputs: about 4 s at 24,000 exec/s on this machine (make fuzz runs it for as long as asked)
    fuzz_smoke btf make-btf-corpus.sh 100000 -max_len=4096
}
