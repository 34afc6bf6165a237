# printf's plain %d and %u (runtime/output/decimal.h, the compiled printf's straight-line conversion), built for
# userspace, against glibc: the edges of every digit count, INT64_MIN/MAX, random values of every length. Driver
# tests/unit/decimal-driver.c. Used by tests/run.

run() {
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g "${san[@]}" "$TOP/tests/unit/decimal-driver.c" -o driver ||
        return 1
    ./driver "$([[ ${#san[@]} == 0 ]] && echo 1000000 || echo 100000)" >driver.out || { cat driver.out; return 1; }
    tail -n 1 driver.out
    grep -q ', 0 failures$' driver.out
}
