# stapio's standard input forwarding (stapio/stdin.c) when stdin is at EOF from the start: the reading
# thread ends at once and frees its state, which the starting thread must not read after (ASan). Driver
# tests/unit/stdin-driver.c. Used by tests/run.

run() {
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -pthread "${san[@]}" -I"$TOP/stapio" -I"$TOP/runtime/transport" \
        "$TOP/tests/unit/stdin-driver.c" "$TOP/stapio/stdin.c" "$TOP/common/log.c" -o driver || return 1
    mkdir -p mod
    # a script that reads lines and chars: each of 300 starts on an empty stdin ends with an "end of input"
    : >mod/__stdin_line; : >mod/__stdin
    ./driver mod 300 </dev/null 2>err || { echo "driver failed:"; head -20 err; return 1; }
    # (counted as strings: the threads' notes may interleave their prefix and text on a line)
    [[ $(grep -o 'stdin: forwarded to mod (__stdin __stdin_line)' err | wc -l) == 300 ]] || { head -20 err; return 1; }
    [[ $(grep -o 'stdin: end of input' err | wc -l) == 300 ]] || { grep -v forwarded err | head; return 1; }
    # the control: input reaches the files, each line whole
    rm mod/__stdin; : >mod/__stdin_line
    printf 'one\ntwo' | ./driver mod 2>err || { cat err; return 1; }
    [[ $(cat mod/__stdin_line) == $'one\ntwo' ]] || { echo "lines: $(od -c mod/__stdin_line)"; return 1; }
    grep -qx 'stapio: stdin: forwarded to mod (__stdin_line)' err || { cat err; return 1; }
}
