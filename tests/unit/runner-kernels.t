# runner-kernels - tests/run's other kernels (TESTS_KERNELS, extra_run): a case run there is reported as NAME@KVER, counted once more, a '$' filter matching only the name's end.
# Used by tests/run (unit/runner-kernels); make check runs tests/kernels-short.list this way on every other installed kernel.
asan_rerun=0
timeout_s=300

run() {
    local other log
    other=$("$TOP/scripts/guest-kver.sh" --all | grep -vxF -- "$KVER" | head -n 1 || true)
    if [[ -z $other ]]; then
        echo "no other kernel installed (make deps-kernels)"
        exit 77
    fi
    log=$PWD/run.log
    # runner-env, here and on the other kernel; the '$' keeps unit/runner-env-anything out
    TESTS_OUT=$PWD/out TESTS_KERNELS="$other" TESTS_ASAN=0 "$TOP/tests/run" 'unit/runner-env$' >"$log" 2>&1
    cat "$log"
    grep -qx "PASS unit/runner-env" "$log"
    grep -qxF "PASS unit/runner-env@$other" "$log"
    [[ $(grep -c '^PASS ' "$log") == 2 ]]
    [[ $(tail -n 1 "$log") == "2 passed, 0 failed" ]]
    # the other kernel's run kept its own tree and log
    [[ -s $PWD/out/kernels/$other.log && -d $PWD/out/kernels/$other/unit/runner-env ]]
    # without '$' a filter is a substring: the same name with a suffix matches
    TESTS_OUT=$PWD/out2 TESTS_KERNELS=none TESTS_ASAN=0 "$TOP/tests/run" 'unit/runner-en' >"$log" 2>&1
    grep -qx "PASS unit/runner-env" "$log"
    not grep -q "@" "$log"
    TESTS_OUT=$PWD/out3 TESTS_KERNELS=none TESTS_ASAN=0 "$TOP/tests/run" 'unit/runner-en$' >"$log" 2>&1
    [[ $(tail -n 1 "$log") == "0 passed, 0 failed" ]]
}
