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
    cp "$log" run1.log
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
    # the first run ended with where its time went, before the last line: the phases (the other kernel's as one),
    # the slowest cases (the other kernel's among them), and only one report
    log=$PWD/run1.log
    grep -qE '^time: [0-9]+s in all; phases' "$log"
    grep -qE '^time: +unit cases +[0-9]+:[0-9]{2} to +[0-9]+:[0-9]{2} +[0-9]+s  idle +([0-9]+%|\?)$' "$log"
    grep -qE "^time: +kernel $other +[0-9]+:[0-9]{2} to " "$log"
    grep -qE '^time: +[0-9]+\.[0-9]s  unit/runner-env \(CPU [0-9]+\.[0-9]s\)$' "$log"
    grep -qF "s  unit/runner-env@$other" "$log"
    [[ $(grep -c 'in all; phases' "$log") == 1 ]]
    [[ $(tail -n 2 "$log" | head -n 1) == "time: "* ]]

    kernels_plan
}

# kernels_plan: tests/run --kernels-plan puts each line of tests/kernels-short.list on the kernels its class names
# (every: each other kernel; release: one kernel per other release, not an -rt one when its plain flavour is there;
# rt: each PREEMPT_RT kernel), whatever kernels are installed
kernels_plan() {
    local plan=$PWD/plan filter class k rel n default
    "$TOP/tests/run" --kernels-plan >"$plan"
    cat "$plan"
    default=$KVER
    release_of() { local v=${1%%[-+]*}; v=${v#*.}; echo "${1%%.*}.${v%%.*}"; }
    while read -r filter class; do
        [[ -n $filter && $filter != '#'* ]] || continue
        case ${class:-every} in
        every)
            [[ $(grep -cF " $filter " "$plan") == $(wc -l <"$plan") ]] || { echo "$filter: not on every kernel"; return 1; } ;;
        rt)
            while IFS=: read -r k rest; do
                if KVER=$k kernel_is_rt; then
                    [[ " $rest " == *" $filter "* ]] || { echo "$filter: not on $k"; return 1; }
                elif [[ " $rest " == *" $filter "* ]]; then
                    echo "$filter: on $k, which is no PREEMPT_RT kernel"; return 1
                fi
            done <"$plan" ;;
        release)
            # once per release other than the default's, never on a kernel of the default's release
            for rel in $(cut -d: -f1 "$plan" | while read -r k; do release_of "$k"; done | sort -u); do
                n=$(while IFS=: read -r k rest; do
                        if [[ $(release_of "$k") == "$rel" && " $rest " == *" $filter "* ]]; then echo "$k"; fi
                    done <"$plan" | wc -l)
                if [[ $rel == "$(release_of "$default")" ]]; then (( n == 0 )); else (( n == 1 )); fi ||
                    { echo "$filter: on $n kernel(s) of $rel"; return 1; }
            done ;;
        *) echo "$filter: unknown class $class"; return 1 ;;
        esac
    done < <(sed 's/#.*//' "$TOP/tests/kernels-short.list")
}
