# pass-1 corpus: tests/parse/ok/*.stp parse and print a fixed point, tests/parse/ko/*.stp fail as expected
# Used by tests/run. The case format is described in tests/parse/README.md; one line per failing case.
timeout_s=600
cost_s=50

# directives CASEFILE: sets ARGS (array), EXPECT, EFILE, COUNT and SAME from the file's "# NAME: VALUE" lines.
directives() {
    local line words
    ARGS=() EXPECT= EFILE= COUNT= SAME=
    while IFS= read -r line || [[ -n $line ]]; do
        case $line in
            '# args: '*) read -r -a words <<<"${line#'# args: '}"; ARGS+=("${words[@]}") ;;
            '# arg:'*) words=${line#'# arg:'}; ARGS+=("${words# }") ;;
            '# expect-file: '*) EFILE=${line#'# expect-file: '} ;;
            '# expect: '*) EXPECT=${line#'# expect: '} ;;
            '# expect-count: '*) COUNT=${line#'# expect-count: '} ;;
            '# same-as: '*) SAME=${line#'# same-as: '} ;;
        esac
    done <"$1"
}

# slurp FILE VAR: the whole content of FILE into VAR (no subprocess).
slurp() { IFS= read -r -d '' "$2" <"$1" || true; }

# first_line FILE: the first line of FILE, shown on one line.
first_line() {
    local l=
    IFS= read -r l <"$1" || true
    echo "${l:-(nothing)}"
}

# first_diff A B: "line N: 'x' / 'y'", the first line where the texts A and B differ.
first_diff() {
    local -a a b
    local i
    mapfile -t a <<<"$1"
    mapfile -t b <<<"$2"
    for ((i = 0; i < ${#a[@]} || i < ${#b[@]}; i++)); do
        if [[ ${a[i]-} != "${b[i]-}" ]]; then
            echo "line $((i + 1)): '${a[i]-(end)}' then '${b[i]-(end)}'"
            return
        fi
    done
}

# ok_case FILE: exit 0 from -p1, and -p1 of the printed program prints it again unchanged.
ok_case() {
    local f=$1 rc=0 once twice same
    "$STAP" -p1 "$f" "${ARGS[@]}" >once.stp 2>err || rc=$?
    if (( rc != 0 )); then
        echo "expected exit 0, got $rc: $(first_line err)"
        return 1
    fi
    rc=0
    "$STAP" -p1 once.stp "${ARGS[@]}" >twice.stp 2>err || rc=$?
    if (( rc != 0 )); then
        echo "the printed program does not parse (exit $rc): $(first_line err)"
        return 1
    fi
    slurp once.stp once
    slurp twice.stp twice
    if [[ $once != "$twice" ]]; then
        echo "the printed program prints differently: $(first_diff "$once" "$twice")"
        return 1
    fi
    if [[ -n $SAME ]]; then
        rc=0
        "$STAP" -p1 -e "$SAME" "${ARGS[@]}" >same.stp 2>err || rc=$?
        if (( rc != 0 )); then
            echo "the same-as script fails (exit $rc): $(first_line err)"
            return 1
        fi
        slurp same.stp same
        if [[ $once != "$same" ]]; then
            echo "prints differently from the same-as script: $(first_diff "$once" "$same")"
            return 1
        fi
    fi
}

# ko_case FILE: exit 1, first line "FILE:LINE:COL: parse error: ...SUBSTRING...", the source line,
# a caret line, nothing on stdout, and with expect-count exactly that many parse errors.
ko_case() {
    local f=$1 rc=0 where want first caret n=0 line file=${EFILE:-$1}
    if [[ -z $EXPECT ]]; then
        echo "no '# expect: LINE:COL: parse error: MESSAGE' line"
        return 1
    fi
    where=${EXPECT%%: parse error: *}
    want=${EXPECT#*: parse error: }
    "$STAP" -p1 "$f" "${ARGS[@]}" >out 2>err || rc=$?
    first=$(first_line err)
    if (( rc != 1 )); then
        echo "expected exit 1 and $EXPECT, got exit $rc: $first"
        return 1
    fi
    if [[ -s out ]]; then
        echo "expected nothing on stdout, got: $(first_line out)"
        return 1
    fi
    if [[ $first != "$file:$where: parse error: "* || ${first#"$file:$where: parse error: "} != *"$want"* ]]; then
        echo "expected $file:$where: parse error: ...$want..., got: $first"
        return 1
    fi
    { IFS= read -r line; IFS= read -r line; IFS= read -r caret; } <err || true
    if [[ ! $caret =~ ^[[:space:]]*\^$ ]]; then
        echo "no caret line under the source line (third line: '${caret:-}')"
        return 1
    fi
    if [[ -n $COUNT ]]; then
        while IFS= read -r line; do
            [[ $line == *:*:*": parse error: "* ]] && n=$((n + 1))
        done <err
        if (( n != COUNT )); then
            echo "expected $COUNT parse errors, got $n"
            return 1
        fi
    fi
}

run() {
    local dir=$TOP/tests/parse kind f why total=0 failed=0
    for kind in ok ko; do
        for f in "$dir/$kind"/*.stp; do
            [[ -e $f ]] || continue
            total=$((total + 1))
            directives "$f"
            if ! why=$("${kind}_case" "$f"); then
                echo "FAIL $kind/${f##*/}: $why"
                failed=$((failed + 1))
            fi
        done
    done
    echo "$total cases, $failed failed"
    (( total > 0 && failed == 0 ))
}
