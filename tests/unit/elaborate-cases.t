# pass-2 corpus: tests/elab/ok/*.stp elaborate as expected, tests/elab/ko/*.stp fail as expected
# Used by tests/run. The case format is described in tests/elab/README.md; one line per failing case.
timeout_s=180
cost_s=50

# directives CASEFILE: sets OPTS, ARGS, CMD, PRERUN (arrays), HAVE_CMD, HAVE_PRERUN, STDOUT, NOSTDOUT,
# STDERR, NOSTDERR, WARNINGS (arrays), NOWARN, EXPECT, EXPECT_FILE and COUNT from its "# NAME: VALUE" lines.
directives() {
    local line words
    OPTS=() ARGS=() CMD=() PRERUN=() STDOUT=() NOSTDOUT=() STDERR=() NOSTDERR=() WARNINGS=()
    HAVE_CMD= HAVE_PRERUN= NOWARN= EXPECT= EXPECT_FILE= COUNT=
    while IFS= read -r line || [[ -n $line ]]; do
        case $line in
            '# options: '*) read -r -a words <<<"${line#'# options: '}"; OPTS+=("${words[@]}") ;;
            '# args: '*) read -r -a words <<<"${line#'# args: '}"; ARGS+=("${words[@]}") ;;
            '# arg:'*) words=${line#'# arg:'}; ARGS+=("${words# }") ;;
            '# command: '*) read -r -a CMD <<<"${line#'# command: '}"; HAVE_CMD=1 ;;
            '# prerun:'*) read -r -a PRERUN <<<"${line#'# prerun:'}"; HAVE_PRERUN=1 ;;
            '# stdout: '*) STDOUT+=("${line#'# stdout: '}") ;;
            '# no-stdout: '*) NOSTDOUT+=("${line#'# no-stdout: '}") ;;
            '# stderr: '*) STDERR+=("${line#'# stderr: '}") ;;
            '# no-stderr: '*) NOSTDERR+=("${line#'# no-stderr: '}") ;;
            '# warning: '*) WARNINGS+=("${line#'# warning: '}") ;;
            '# no-warnings'*) NOWARN=1 ;;
            '# expect: '*) EXPECT=${line#'# expect: '} ;;
            '# expect-file: '*) EXPECT_FILE=${line#'# expect-file: '} ;;
            '# expect-count: '*) COUNT=${line#'# expect-count: '} ;;
        esac
    done <"$1"
}

# first_line FILE: the first line of FILE, shown on one line.
first_line() {
    local l=
    IFS= read -r l <"$1" || true
    echo "${l:-(nothing)}"
}

# has_line FILE TEXT: some line of FILE is exactly TEXT.
has_line() {
    local l
    while IFS= read -r l; do
        [[ $l == "$2" ]] && return 0
    done <"$1"
    return 1
}

# has_text FILE TEXT: some line of FILE contains TEXT.
has_text() {
    local l
    while IFS= read -r l; do
        [[ $l == *"$2"* ]] && return 0
    done <"$1"
    return 1
}

# stap_run REL: runs stap for the case REL (relative to tests/elab, the current directory) with a
# fresh SYSTEMTAP_DIR, the prerun first when there is one (its options after the case's, so they win);
# stdout in $W/out, stderr in $W/err, status in RC.
stap_run() {
    local rel=$1 dir
    local -a what
    dir=$W/sysdir/${rel//\//_}
    rm -rf "$dir"
    mkdir -p "$dir"
    if [[ -n $HAVE_CMD ]]; then what=("${CMD[@]}"); else what=("$rel"); fi
    if [[ -n $HAVE_PRERUN ]]; then
        SYSTEMTAP_DIR=$dir "$STAP" -p2 "${OPTS[@]}" "${PRERUN[@]}" "${what[@]}" "${ARGS[@]}" >/dev/null 2>&1 || true
    fi
    RC=0
    SYSTEMTAP_DIR=$dir "$STAP" -p2 "${OPTS[@]}" "${what[@]}" "${ARGS[@]}" >"$W/out" 2>"$W/err" || RC=$?
}

# output_checks: the stdout/stderr directives shared by ok and ko cases.
output_checks() {
    local t
    for t in "${STDOUT[@]}"; do
        if ! has_line "$W/out" "$t"; then
            echo "no stdout line '$t' (stdout starts: $(first_line "$W/out"))"
            return 1
        fi
    done
    for t in "${NOSTDOUT[@]}"; do
        if has_line "$W/out" "$t"; then
            echo "unexpected stdout line '$t'"
            return 1
        fi
    done
    for t in "${STDERR[@]}"; do
        if ! has_text "$W/err" "$t"; then
            echo "no stderr line containing '$t' (stderr starts: $(first_line "$W/err"))"
            return 1
        fi
    done
    for t in "${NOSTDERR[@]}"; do
        if has_text "$W/err" "$t"; then
            echo "unexpected stderr line containing '$t'"
            return 1
        fi
    done
}

# ok_case REL: exit 0, then the stdout, stderr and warning directives.
ok_case() {
    local rel=$1 w where text l found
    stap_run "$rel"
    if (( RC != 0 )); then
        echo "expected exit 0, got $RC: $(first_line "$W/err")"
        return 1
    fi
    output_checks || return 1
    for w in "${WARNINGS[@]}"; do
        where=${w%%: *} text=${w#*: } found=
        while IFS= read -r l; do
            if [[ $l == "$rel:$where: warning: "* && ${l#"$rel:$where: warning: "} == *"$text"* ]]; then
                found=1
                break
            fi
        done <"$W/err"
        if [[ -z $found ]]; then
            echo "no warning '$where: ...$text...' (stderr starts: $(first_line "$W/err"))"
            return 1
        fi
    done
    if [[ -n $NOWARN && -s $W/err ]]; then
        echo "expected nothing on stderr, got: $(first_line "$W/err")"
        return 1
    fi
}

# ko_case REL: exit 1, nothing on stdout, the first diagnostic as in "# expect:" (in the case file or in
# EXPECT_FILE) with the source line and a caret line when it has a location, the error count.
ko_case() {
    local rel=$1 file kind where want first caret line n=0
    if [[ -z $EXPECT ]]; then
        echo "no '# expect: LINE:COL: semantic error: MESSAGE' line"
        return 1
    fi
    file=${EXPECT_FILE:-$rel}
    if [[ $EXPECT =~ ^([0-9]+:[0-9]+):\ ([a-z ]+\ error|warning):\ (.*)$ ]]; then
        where=${BASH_REMATCH[1]} kind=${BASH_REMATCH[2]} want=${BASH_REMATCH[3]}
    elif [[ $EXPECT =~ ^([a-z ]+\ error|warning):\ (.*)$ ]]; then
        where= kind=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
    else
        echo "bad '# expect:' line: $EXPECT"
        return 1
    fi
    stap_run "$rel"
    first=$(first_line "$W/err")
    if (( RC != 1 )); then
        echo "expected exit 1 and $EXPECT, got exit $RC: $first"
        return 1
    fi
    if [[ -s $W/out ]]; then
        echo "expected nothing on stdout, got: $(first_line "$W/out")"
        return 1
    fi
    if [[ -n $where ]]; then
        if [[ $first != "$file:$where: $kind: "* || ${first#"$file:$where: $kind: "} != *"$want"* ]]; then
            echo "expected $file:$where: $kind: ...$want..., got: $first"
            return 1
        fi
        { IFS= read -r line; IFS= read -r line; IFS= read -r caret; } <"$W/err" || true
        if [[ ! $caret =~ ^[[:space:]]*\^$ ]]; then
            echo "no caret line under the source line (third line: '${caret:-}')"
            return 1
        fi
    elif [[ $first != "stap: $kind: "* || ${first#"stap: $kind: "} != *"$want"* ]]; then
        echo "expected stap: $kind: ...$want..., got: $first"
        return 1
    fi
    if [[ -n $COUNT ]]; then
        while IFS= read -r line; do
            [[ $line != [[:space:]]* && $line == *": $kind: "* ]] && n=$((n + 1))
        done <"$W/err"
        if (( n != COUNT )); then
            echo "expected $COUNT ${kind}s, got $n"
            return 1
        fi
    fi
    output_checks
}

run() {
    local dir=$TOP/tests/elab kind f rel why total=0 failed=0
    W=$PWD
    mkdir -p "$W/home" "$W/no-tapset"
    # no case may write to ~/.systemtap, and the tree's tapset/ (changing with the library) stays out:
    # cases get their library from tests/elab/tapset through "-I tapset"
    export HOME=$W/home SYSTEMTAP_TAPSET=$W/no-tapset
    cd "$dir" || return 1
    for kind in ok ko; do
        for f in "$kind"/*.stp; do
            [[ -e $f ]] || continue
            total=$((total + 1))
            directives "$f"
            if ! why=$("${kind}_case" "$f"); then
                echo "FAIL $f: $why"
                failed=$((failed + 1))
            fi
        done
    done
    echo "$total cases, $failed failed"
    (( total > 0 && failed == 0 ))
}
