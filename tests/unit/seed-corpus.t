# the shared seed corpus parses: every complete script, one-liner, tapset and generated file passes -p1
# Used by tests/run. The corpus lives beside the repository (../shared/seed-scripts, INDEX.md describes
# it); without it the case is skipped. Fragments (partial code) are not run.
timeout_s=300

# Files INDEX.md records as failing SystemTap's pass 1 that must parse here anyway: 001 calls the
# historic string(N) conversion function, which this toolchain accepts as a function call.
MUST_PARSE=" 001_trace-io.stp "

# recorded_failures INDEX: the files whose "stap -p1" column starts with FAIL, one per line.
recorded_failures() {
    local line file result
    local -a cells
    while IFS= read -r line; do
        [[ $line == '| '[0-9]* ]] || continue
        line=${line//\\|/}                  # escaped pipes inside cells
        IFS='|' read -r -a cells <<<"$line"
        file=${cells[2]-} result=${cells[10]-}
        [[ $file =~ \`([0-9]+_[^\`]*\.stp)\` ]] || continue
        file=${BASH_REMATCH[1]}
        result=${result#"${result%%[! ]*}"}
        [[ $result == FAIL* ]] && echo "$file"
    done <"$1"
    return 0
}

run() {
    local dir=$TOP/../shared/seed-scripts f name kind line rc first checked=0 failed=0
    if [[ ! -d $dir ]]; then
        echo "no seed corpus at $dir"
        exit 77
    fi
    [[ -f $dir/INDEX.md ]] || { echo "no $dir/INDEX.md"; return 1; }
    local recorded
    recorded=" $(recorded_failures "$dir/INDEX.md" | tr '\n' ' ') "
    for f in "$dir"/*.stp; do
        name=${f##*/} kind=
        while IFS= read -r line; do
            if [[ $line == '# kind: '* ]]; then
                kind=${line#'# kind: '}
                kind=${kind%%[ (]*}
                break
            fi
        done <"$f"
        case $kind in
            script | one-liner | tapset | generated) ;;
            fragment) continue ;;
            *) echo "FAIL $name: no known '# kind:' header line (saw '$kind')"; failed=$((failed + 1)); continue ;;
        esac
        checked=$((checked + 1))
        rc=0
        "$STAP" -p1 "$f" 1 2 >out 2>err || rc=$?
        first=$(head -n 1 err)
        if [[ $recorded == *" $name "* && $MUST_PARSE != *" $name "* ]]; then
            # SystemTap rejects it (INDEX.md): so must this toolchain, with a parse error
            if (( rc != 1 )) || [[ $first != *": parse error: "* ]]; then
                echo "FAIL $name ($kind): INDEX.md records a parse error, got exit $rc: ${first:-(nothing)}"
                failed=$((failed + 1))
            fi
        elif (( rc != 0 )); then
            echo "FAIL $name ($kind): exit $rc: ${first#"$f:"}"
            failed=$((failed + 1))
        fi
    done
    echo "$checked files run, $failed failed"
    (( checked > 0 && failed == 0 ))
}
