# stapio's pacing of trace rounds (stapio/pace.c): 10 ms, less when the busiest ring fills so fast that a
# round would find it more than a quarter full; shrinks at once, grows at most twofold, within 1..10 ms. Driver
# tests/unit/pace-driver.c. Used by tests/run.

# RING_BYTES, then the rounds ("NOW MOST" per line), then the waits expected after each
check() {
    local ring=$1 rounds=$2 want=$3 got
    got=$(printf '%s\n' "$rounds" | ./driver "$ring" | sed 1d | awk '{print $2}' | paste -sd' ')
    if [[ $got != "$want" ]]; then
        echo "ring $ring, rounds: $(paste -sd, <<<"$rounds")"
        echo "  waits: $got"
        echo "  want:  $want"
        return 1
    fi
}

run() {
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g "${san[@]}" -I"$TOP/stapio" -I"$TOP/runtime" \
        -I"$TOP/runtime/transport" "$TOP/tests/unit/pace-driver.c" "$TOP/stapio/pace.c" -o driver || return 1
    # before any round: due at once
    [[ $(./driver </dev/null) == "due 0" ]] || { echo "first round not due at once"; return 1; }
    # idle: 10 ms
    check 0 $'0 0\n10 0\n20 0' "10 10 10" || return 1
    # 760 KB in 10 ms (a tight loop of printf): 3 ms; a whole ring in 3 ms: the 1 ms floor
    check 0 $'0 0\n10 778240\n13 1048576' "10 3 1" || return 1
    # twice the rate that fills a quarter of a 1 MiB ring in 10 ms: 5 ms, held while the rate is
    check $((1 << 20)) $'0 0\n10 524288\n15 262144\n20 262144' "10 5 5 5" || return 1
    # the rate falls: back to 10 ms twofold a round
    check 0 $'0 1048576\n1 0\n3 0\n7 0\n15 0' "2 4 8 10 10" || return 1
    # the ring's size counts: 1 MiB in 10 ms is 2 ms for a 1 MiB ring (the default, when the module
    # does not say: 0), 5 ms for a 2 MiB ring, 10 ms for a 16 MiB one (staprun -b 16)
    check $((1 << 20)) $'0 0\n10 1048576' "10 2" || return 1
    check 0 $'0 0\n10 1048576' "10 2" || return 1
    check $((2 << 20)) $'0 0\n10 1048576' "10 5" || return 1
    check $((16 << 20)) $'0 0\n10 1048576' "10 10" || return 1
    # due: the next round comes wait ms after the last one started
    [[ $(printf '100 262144\n' | ./driver 0 | sed -n 2p) == "wait 10 due 10" ]] || {
        echo "due after a round: $(printf '100 262144\n' | ./driver 0 | sed -n 2p)"; return 1; }
}
