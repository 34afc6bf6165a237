# SHA-256 of translator/lib/sha256.c (the module cache's hash): FIPS 180-4 vectors and sha256sum on messages
# of 0 to 200 bytes (every padding case) and one of 100,000. Driver tests/unit/sha256-driver.c. Used by tests/run.
cost_s=15

run() {
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g "${san[@]}" -iquote "$TOP/translator" \
        "$TOP/tests/unit/sha256-driver.c" "$TOP/translator/lib/sha256.c" -o driver
    ./driver >driver.out || { cat driver.out; return 1; }
    cat driver.out
    # every length around the 55/56/64-byte padding boundaries, fed in uneven pieces
    local n want got
    for n in $(seq 0 200) 100000; do
        head -c "$n" /dev/urandom >msg
        want=$(sha256sum <msg | cut -d' ' -f1)
        got=$(./driver - <msg)
        if [[ $got != "$want" ]]; then
            echo "length $n: got $got, sha256sum says $want"
            return 1
        fi
    done
}
