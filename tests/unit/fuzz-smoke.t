# fuzz-smoke - builds the libFuzzer target of pass 1 (make build/fuzz/parse_fuzz) and fuzzes a fixed number of inputs from the seed corpus; any crash fails.
# Used by tests/run (unit/ only: the fuzzer is ASan/UBSan-built); see tests/fuzz/README.md.

# no ASan rerun: the fuzzer is built with ASan and UBSan already
asan_rerun=0
timeout_s=400
cost_s=40

run() {
    source "$TOP/tests/lib/fuzz-smoke.sh"
    # every input leaks its syntax tree (kept until exit by design): ~17 KB each, 1.3 GB after 20 s at
    # 4,400 exec/s, so the RSS limit is 4 GB; one allocation over 2 GB still counts as a failure
    # 3000 inputs: 2,000 inputs past the 1,200 seeds: about 8 s at 360 exec/s on this machine (make fuzz runs it for as long as asked)
    ASAN_OPTIONS=detect_leaks=0 fuzz_smoke parse make-corpus.sh 3000 -detect_leaks=0 -max_len=4096 \
        -rss_limit_mb=4096 -malloc_limit_mb=2048 -dict="$TOP/tests/fuzz/stap.dict"
}
