# pass 1 diagnostics: file:line:col, "expected X, saw Y", the source line and a caret, exit 1
# Used by tests/run (issue 2); see tests/lib/assert.sh.

run() {
    source "$TOP/tests/lib/assert.sh"
    printf 'probe begin {\n  x = 1 +\n}\n' >bad.stp
    expect_error "bad.stp:3:1: parse error" "expected an expression, saw '}'" -p1 bad.stp
    expect_error "<input>:1:26: parse error" "expected ')', saw '}'" -p1 -e 'probe begin { printf("x" }'
    expect_error "<input>:1:15: parse error" "unterminated string literal" -p1 -e 'probe begin { "abc'
    expect_error "<input>:1:15: parse error" "unterminated comment" -p1 -e 'probe begin { /* abc'
    expect_error "<input>:1:19: parse error" "number out of range" -p1 -e 'probe begin { x = 99999999999999999999 }'
    expect_error "<input>:1:15: parse error" "unexpected character '@'" -p1 -e 'probe begin { @ }'
    expect_error "<input>:1:1: parse error" "expected 'probe', 'global', 'private', 'function' or embedded C, saw identifier 'prob'" \
        -p1 -e 'prob begin { }'
    expect_error "<input>:1:15: parse error" "expected a variable or array element on the left" \
        -p1 -e 'probe begin { 1 = 2 }'
    # the same errors through a pass that goes further
    expect_error "<input>:1:15: parse error" "unterminated string literal" -p4 -e 'probe begin { "abc'
    # a binary byte is named, not printed raw
    printf 'probe begin { \001 }' >bin.stp
    expect_error "bin.stp:1:15: parse error" "unexpected byte 0x01" -p1 bin.stp
    # a missing file
    expect_plain_error "cannot read script 'nonexistent.stp'" -p1 nonexistent.stp
}
