# The kernel's soft float (runtime/core/softfloat.h, for tapset/floatingpoint.stp's fp_*) against the host FPU:
# add, sub, mul, div, sqrt, the IEEE remainder (x87 FPREM1), comparisons, the conversions from int64 and
# float and to int64 in the six rounding modes (fenv + llrint, llround), and printf's "%.*f", bit for bit,
# on edge cases and random inputs of several shapes (tests/unit/softfloat-driver.c). Used by tests/run.

run() {
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g "${san[@]}" \
        "$TOP/tests/unit/softfloat-driver.c" -lm -o driver
    # 2,000,000 random rounds, each about 75 comparisons (200,000 under ASan)
    ./driver "$([[ ${#san[@]} == 0 ]] && echo 2000000 || echo 200000)" >driver.out || { cat driver.out; return 1; }
    tail -n 1 driver.out
    grep -q ', 0 failures$' driver.out
}
