# input: input.char and input.line (tapset/input.stp, stapio/stdin.c): what is piped into staprun reaches the running script, each byte and each line (newline included) in order; a line longer than a string comes in pieces; EOF ends nothing, a last line without a newline still comes
# Used by tests/run (issue 31).

build() {
    $STAP -p4 -m t_input -e '
global chars, text, n
probe input.char { chars++; text .= char }
probe input.line {
    printf("line %d: %s", ++n, line)
    if (line == "quit\n") exit()
}
probe end { printf("chars %d text %s", chars, text) }' >/dev/null
    # EOF ends nothing: the timer does, after it
    $STAP -p4 -m t_ineof -e '
global n, lines
probe input.char { n++ }
probe input.line { lines++; printf("[%s]\n", line) }
probe timer.s(2) { printf("after eof: chars %d lines %d\n", n, lines); exit() }' >/dev/null
    # a line of 2000 bytes: pieces of at most MAXSTRINGLEN - 1, the bytes all there
    $STAP -p4 -m t_inlong -e '
global pieces, total, nl
probe input.line { pieces++; total += strlen(line); if (substr(line, strlen(line) - 1, 1) == "\n") { nl++; exit() } }
probe end { printf("pieces %d total %d newlines %d\n", pieces > 1, total, nl) }' >/dev/null
}

guest() {
    printf 'hello\nworld\nquit\nnot read\n' | timeout 60 staprun t_input.ko >in.out 2>in.err
    printf 'x\ny' | timeout 60 staprun t_ineof.ko >eof.out 2>eof.err
    head -c 2000 /dev/zero | tr '\0' a | { cat; echo; } | timeout 60 staprun t_inlong.ko >long.out 2>long.err
}

check() {
    [[ $(cat rc) == 0 ]] || { cat err in.err eof.err long.err; return 1; }
    printf 'line 1: hello\nline 2: world\nline 3: quit\nchars 17 text hello\nworld\nquit\n' | diff - in.out
    printf '[x\n]\n[y]\nafter eof: chars 3 lines 2\n' | diff - eof.out
    echo 'pieces 1 total 2001 newlines 1' | diff - long.out
    [[ ! -s in.err && ! -s eof.err && ! -s long.err ]]
}
