# fuzz-smoke.sh - fuzz_smoke TARGET CORPUS_SCRIPT RUNS [FUZZER OPTION...]: builds build/fuzz/TARGET_fuzz, replays
# tests/fuzz/regressions/TARGET (index, record) and fuzzes RUNS inputs from CORPUS_SCRIPT's seeds; any crash fails.
# Bounded by count, not time: the same work on a busy machine as on a quiet one (make fuzz does the long runs).
# The first case to run in a fresh tree builds the translator's objects for clang (about 100 s of CPU, under the
# lock the others wait on): so each case's timeout_s is 400, for that build beside the rest of make check.
# Sourced by tests/unit/fuzz-smoke*.t (run() functions, cwd = the case's directory); see tests/fuzz/README.md.

fuzz_smoke() {
    local target=$1 corpus=$2 runs=$3 fuzzer=$TOP/build/fuzz/$1_fuzz cc=clang-14 rt rc=0 f
    shift 3
    # no clang or no libFuzzer is a failure, not a skip: the fuzzers are part of the test suite
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
        make -C "$TOP" --no-print-directory -j"$(nproc)" "build/fuzz/${target}_fuzz" >build.log 2>&1
    ) 8>"$TOP/build/fuzz/.build.lock" || { echo "FAIL: make build/fuzz/${target}_fuzz:"; tail -n 40 build.log; return 1; }

    # the regressions, once each (the parse target's are replayed by fuzz-regressions.t through stap -p1)
    if [[ $target != parse ]]; then
        local inputs=("$TOP/tests/fuzz/regressions/$target"/*)
        if [[ -e ${inputs[0]} ]]; then
            "$fuzzer" "$@" "${inputs[@]}" >replay.log 2>&1 ||
                { echo "FAIL: a regression input of $target crashes again:"; tail -n 30 replay.log; return 1; }
            echo "${#inputs[@]} regression input(s) of $target replayed"
        fi
    fi

    "$TOP/tests/fuzz/$corpus" "$PWD/corpus"
    mkdir -p work crashes
    UBSAN_OPTIONS=print_stacktrace=1 timeout -k 5 120 "$fuzzer" "$@" -runs="$runs" -timeout=10 \
        -artifact_prefix="$PWD/crashes/" -print_final_stats=1 work corpus >fuzz.log 2>&1 || rc=$?
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
        echo "keep each artifact as a regression: cp ARTIFACT $TOP/tests/fuzz/regressions/${target/#parse/}"
        return 1
    fi
}
