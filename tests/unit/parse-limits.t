# pass 1 bounds what later passes must walk: deep nesting, long operator chains, huge lines
# Used by tests/run (issue 3): each input gets one clear error, never a crash or a hang.

# repeat N TEXT: TEXT N times
repeat() { local i; for ((i = 0; i < $1; i++)); do printf '%s' "$2"; done; }

run() {
    source "$TOP/tests/lib/assert.sh"
    { printf 'probe begin { x = 1'; repeat 200000 '+1'; echo ' }'; } >chain.stp
    expect_error "chain.stp:1:2020: parse error" "expression nested more than 1000 deep" -p1 chain.stp
    # the source line is cut to a window around the column
    [[ $(sed -n 2p stderr | wc -c) -lt 200 ]]
    { printf 'probe begin { x = '; repeat 20000 '('; printf 1; repeat 20000 ')'; echo ' }'; } >parens.stp
    expect_error "parens.stp:1:4010: parse error" "the program is nested too deeply" -p1 parens.stp
    { printf 'probe begin { '; repeat 20000 'if (1) '; echo 'x = 1 }'; } >ifs.stp
    expect_error "ifs.stp:1:7004: parse error" "the program is nested too deeply" -p1 ifs.stp
    # macros that double at every level are cut off, not expanded 2^40 times
    { echo '@define a %( 1 %)'; for i in $(seq 1 40); do echo "@define m$i %( @m$((i - 1)) + @m$((i - 1)) %)"; done
      echo 'probe begin { x = @m40 }'; } | sed 's/@m0/@a/g' >macros.stp
    timeout 20 "$STAP" -p1 macros.stp >stdout 2>stderr && return 1
    grep -q 'parse error: macro expansion produces more than 1000000 tokens' stderr
    # a macro that expands itself
    printf '@define loop %%( @loop %%)\nprobe begin { x = @loop }\n' >loop.stp
    timeout 20 "$STAP" -p1 loop.stp >stdout 2>stderr && return 1
    grep -q 'parse error: macro expansion nested more than 64 deep' stderr
}
