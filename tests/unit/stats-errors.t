# pass-3 checks of statistics: one histogram shape per global, @variance bit shifts, @hist_linear
# parameters; each a located semantic error, exit 1. Used by tests/run (statistics).

run() {
    source "$TOP/tests/lib/assert.sh"
    expect_error "<input>:1:61: semantic error" "multiple histogram types declared on 's'" \
        -p3 -r "$KVER" -e 'global s; probe begin { s <<< 1; print(@hist_log(s)); print(@hist_linear(s, 0, 10, 1)) }'
    expect_error "<input>:1:74: semantic error" "multiple histogram types declared on 's'" \
        -p3 -r "$KVER" -e 'global s; probe begin { s <<< 1; print(@hist_linear(s, 0, 10, 1)); print(@hist_linear(s, 0, 20, 1)) }'
    # the same shape twice is fine, in any function or probe
    expect_ok -p3 -r "$KVER" -e 'global s; function f() { return @hist_log(s)[3] } probe begin { s <<< 1; print(@hist_log(s)); println(f()) }'
    expect_error "<input>:1:59: semantic error" "conflicting bit shifts declared (previously 3)" \
        -p3 -r "$KVER" -e 'global u; probe begin { u <<< 1; println(@variance(u, 3), @variance(u, 4)) }'
    expect_error "<input>:1:55: semantic error" "bit shift (63) out of range <0..62>" \
        -p3 -r "$KVER" -e 'global u; probe begin { u <<< 1; println(@variance(u, 63)) }'
    expect_error "<input>:1:62: semantic error" "@variance takes a literal number for the bit shift" \
        -p3 -r "$KVER" -e 'global u; probe begin { u <<< 1; x = 2; println(@variance(u, x)) }'
    expect_error "<input>:1:63: semantic error" "@hist_linear: the bucket width must be positive, not 0" \
        -p3 -r "$KVER" -e 'global v; probe begin { v <<< 1; print(@hist_linear(v, 0, 10, 0)) }'
    expect_error "<input>:1:60: semantic error" "@hist_linear: the high end (0) must be above the low end (10)" \
        -p3 -r "$KVER" -e 'global v; probe begin { v <<< 1; print(@hist_linear(v, 10, 0, 1)) }'
    expect_error "<input>:1:40: semantic error" "@hist_linear: 1001 buckets between low and high, at most 126" \
        -p3 -r "$KVER" -e 'global v; probe begin { v <<< 1; print(@hist_linear(v, 0, 1000, 1)) }'
    # every conflict is reported
    "$STAP" -p3 -r "$KVER" -e 'global s, t; probe begin { s <<< 1; t <<< 1; print(@hist_log(s)); print(@hist_log(t)); print(@hist_linear(s, 0, 9, 1)); print(@hist_linear(t, 0, 9, 1)) }' 2>stderr && return 1
    [[ $(grep -c 'multiple histogram types' stderr) == 2 ]]
}
