# fuzz-smoke - builds the libFuzzer target of pass 1 (make build/fuzz/parse_fuzz) and fuzzes for 20 s from the seed corpus; any crash fails.
# Used by tests/run (as unit/fuzz-smoke and asan/fuzz-smoke: the fuzzer is ASan/UBSan-built either way); see tests/fuzz/README.md.
timeout_s=150

run() {
    local fuzzer=$TOP/build/fuzz/parse_fuzz cc=clang-14 rt rc=0
    # no clang or no libFuzzer is a failure, not a skip: the fuzzer is part of the test suite
    if ! command -v "$cc" >/dev/null; then
        echo "FAIL: $cc not found: install it with make deps (scripts/install-deps.sh: clang-14 libclang-rt-14-dev)"
        return 1
    fi
    rt=$("$cc" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a
    if [[ ! -f $rt ]]; then
        echo "FAIL: libFuzzer ($rt) not found: install libclang-rt-14-dev (make deps)"
        return 1
    fi
    # one build at a time in this tree (make fuzz or the other kind of this case may be building)
    mkdir -p "$TOP/build/fuzz"
    (
        flock 8
        make -C "$TOP" --no-print-directory -j"$(nproc)" build/fuzz/parse_fuzz >build.log 2>&1
    ) 8>"$TOP/build/fuzz/.build.lock" || { echo "FAIL: make build/fuzz/parse_fuzz:"; tail -n 40 build.log; return 1; }

    "$TOP/tests/fuzz/make-corpus.sh" "$PWD/corpus"
    mkdir -p work crashes
    # every input leaks its syntax tree (kept until exit by design): ~17 KB each, 1.3 GB after 20 s at
    # 4,400 exec/s, so the RSS limit is 4 GB; one allocation over 2 GB still counts as a failure
    ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
        timeout -k 5 60 "$fuzzer" -max_total_time=20 -detect_leaks=0 -timeout=10 -max_len=4096 \
        -rss_limit_mb=4096 -malloc_limit_mb=2048 \
        -dict="$TOP/tests/fuzz/stap.dict" -artifact_prefix="$PWD/crashes/" -print_final_stats=1 \
        work corpus >fuzz.log 2>&1 || rc=$?
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' fuzz.log || true
    if (( rc != 0 )) || [[ -n $(ls -A crashes) ]]; then
        echo "FAIL: the fuzzer exited with status $rc; artifacts:"
        for f in crashes/*; do
            [[ -e $f ]] || continue
            echo "--- $PWD/$f ($(wc -c <"$f") bytes), first bytes:"
            od -c "$f" | head -n 8
        done
        echo "--- the fuzzer's report (all of it: $PWD/fuzz.log):"
        if grep -q '^==[0-9]*==ERROR\|^[^ ]*: runtime error:\|ERROR: libFuzzer' fuzz.log; then
            sed -n '/^==[0-9]*==ERROR\|^[^ ]*: runtime error:\|ERROR: libFuzzer/,$p' fuzz.log | head -n 30
        else
            grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' fuzz.log | tail -n 30
        fi
        echo "keep each artifact as a regression: cp ARTIFACT $TOP/tests/fuzz/regressions/NAME"
        return 1
    fi
}
