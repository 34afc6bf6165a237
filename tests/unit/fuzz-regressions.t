# fuzz-regressions - stap -p1 on every input in tests/fuzz/regressions/ ends within 10 s with status 0 or 1: no signal, no hang.
# Used by tests/run (unit/ with build/bin/stap, asan/ with the ASan/UBSan build); inputs come from make fuzz (tests/fuzz/README.md).
timeout_s=300

run() {
    local f rc bad=0 n=0
    for f in "$TOP"/tests/fuzz/regressions/*; do
        [[ -f $f && $(basename "$f") != README* ]] || continue
        n=$((n + 1))
        rc=0
        timeout -k 2 10 "$STAP" -p1 "$f" >stdout 2>stderr || rc=$?
        if (( rc != 0 && rc != 1 )); then
            bad=$((bad + 1))
            if (( rc == 124 || rc == 137 )); then
                echo "FAIL: $f: no result within 10 s (status $rc)"
            elif (( rc > 128 )); then
                echo "FAIL: $f: killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null || echo '?'))"
            else
                echo "FAIL: $f: exit status $rc"
            fi
            head -n 6 stderr | cut -c1-160   # the first diagnostic, if any
        fi
    done
    echo "$n regression input(s), $bad failed"
    (( bad == 0 ))
}
