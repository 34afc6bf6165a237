#!/usr/bin/env bash
# examples.sh - SystemTap's published example scripts (Debian's systemtap-doc) run through pass 2 and pass 4
# by our stap and by Debian's SystemTap 4.8 side by side. Used by bench/run examples; also runs alone.
#
# Each `test_check:` line of /usr/share/systemtap/examples/*/*.meta (the command SystemTap's own test
# suite uses: options, the script, its arguments) is run from the example's directory with `stap`
# replaced by ours or by BENCH_SYSTEMTAP, with -r KVER and -p4 turned into -pN; an empty SYSTEMTAP_DIR
# per tool. Each row: the example, ours and SystemTap's exit status; then the counts, and for each of
# ours that failed its first error line (the reason), in build/bench/examples/PASS-TOOL/ per example.
#
# Environment: BENCH_EXAMPLES_PASSES (default "2"; "2 4" builds modules too, about a minute each),
# BENCH_SYSTEMTAP (default /usr/bin/stap; "none" skips it), BENCH_EXAMPLES_ONLY (a pattern of
# dir/name rows to run, e.g. "general/*"), KVER (default: scripts/guest-kver.sh), BENCH_EXAMPLES_RUNTIME ("bpf": ours
# with --runtime=bpf, its results as tool "ours-bpf"; SystemTap 4.8 is not run then: its stapbpf is not compared).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/build/bench/examples
EX=/usr/share/systemtap/examples
STAP=$TOP/build/bin/stap
SYSTEMTAP=${BENCH_SYSTEMTAP:-/usr/bin/stap}
PASSES=${BENCH_EXAMPLES_PASSES:-2}
RUNTIME=${BENCH_EXAMPLES_RUNTIME:-kernel}
OURS=ours
if [[ $RUNTIME == bpf ]]; then
    OURS=ours-bpf SYSTEMTAP=none
fi
ONLY=${BENCH_EXAMPLES_ONLY:-*}
KVER=${KVER:-$("$TOP/scripts/guest-kver.sh")}

if [[ ! -d $EX ]]; then
    echo "examples: no $EX (apt-get install systemtap-doc)" >&2
    exit 1
fi

# stap ARGS...: the example's command with the tool under test (TOOL_BIN), -r KVER and pass PASS
stap() {
    local a=() x
    for x in "$@"; do
        case $x in
            -p4) a+=("-p$PASS") ;;
            -[a-zA-Z]*p4) a+=("${x%p4}p$PASS") ;;   # -gp4, -wp4: bundled flags
            *) a+=("$x") ;;
        esac
    done
    [[ $TOOL != ours-bpf ]] || a=(--runtime=bpf "${a[@]}")
    SYSTEMTAP_DIR=$OUT/sysdir-$TOOL timeout 600 "$TOOL_BIN" -r "$KVER" "${a[@]}"
}

# run_tool TOOL BIN PASS: every example once; DIR/results has "rc dir/name" lines
run_tool() {
    TOOL=$1 TOOL_BIN=$2 PASS=$3
    local dir=$OUT/p$PASS-$TOOL meta line cmd name rc
    rm -rf "$dir" && mkdir -p "$dir"
    for meta in "$EX"/*/*.meta; do
        name=$(basename "$(dirname "$meta")")/$(basename "$meta" .meta)
        # shellcheck disable=SC2053
        [[ $name == $ONLY ]] || continue
        while IFS= read -r line; do
            cmd=${line#test_check: }
            rc=0
            (cd "$(dirname "$meta")" && eval "$cmd") >"$dir/${name//\//_}.out" 2>"$dir/${name//\//_}.err" \
                </dev/null || rc=$?
            echo "$rc $name"
        done < <(grep '^test_check:' "$meta") >>"$dir/results"
    done
}

# first_error FILE: the first line of an error message, shortened
first_error() {
    grep -m1 -E 'error|ERROR|not supported|No such' "$1" | cut -c1-160 || head -n1 "$1" | cut -c1-160
}

for pass in $PASSES; do
    run_tool "$OURS" "$STAP" "$pass"
    [[ $SYSTEMTAP == none ]] || run_tool systemtap "$SYSTEMTAP" "$pass"
    echo "== pass $pass: SystemTap's examples (test_check lines), -r $KVER"
    printf '%-40s %6s %10s\n' example ours systemtap
    while read -r rc name; do
        theirs=-
        [[ $SYSTEMTAP == none ]] || theirs=$(awk -v n="$name" '$2 == n { print $1; exit }' "$OUT/p$pass-systemtap/results")
        printf '%-40s %6s %10s\n' "$name" "$([[ $rc == 0 ]] && echo ok || echo "FAIL")" \
            "$([[ $theirs == 0 ]] && echo ok || { [[ $theirs == - ]] && echo - || echo FAIL; })"
    done <"$OUT/p$pass-$OURS/results"
    total=$(wc -l <"$OUT/p$pass-$OURS/results")
    ours_ok=$(awk '$1 == 0' "$OUT/p$pass-$OURS/results" | wc -l)
    line="pass $pass: ours $ours_ok of $total"
    if [[ $SYSTEMTAP != none ]]; then
        theirs_ok=$(awk '$1 == 0' "$OUT/p$pass-systemtap/results" | wc -l)
        line+=", SystemTap $($SYSTEMTAP --version 2>&1 | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -n1) $theirs_ok of $total"
    fi
    echo "$line"
    echo "== why ours failed (pass $pass)"
    while read -r rc name; do
        [[ $rc == 0 ]] && continue
        echo "$name: $(first_error "$OUT/p$pass-$OURS/${name//\//_}.err")"
    done <"$OUT/p$pass-$OURS/results"
done
