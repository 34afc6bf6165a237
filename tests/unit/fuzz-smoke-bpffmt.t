# fuzz-smoke-bpffmt - builds the libFuzzer target of stapio's printf formats of a BPF object (build/fuzz/bpffmt_fuzz), fuzzes a fixed number of inputs; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=400
cost_s=15

run() {
    command -v clang >/dev/null || { echo "FAIL: clang not found (make deps)"; return 1; }
    source "$TOP/tests/lib/fuzz-smoke.sh"
    fuzz_smoke bpffmt make-bpffmt-corpus.sh 100000 -max_len=4096
}
