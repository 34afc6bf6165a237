# pass 2 diagnostics: unknown probe points, types, functions, arrays, formats, loops; exit 1
# Used by tests/run (issue 2).

run() {
    source "$TOP/tests/lib/assert.sh"
    expect_error "<input>:1:7: semantic error" "unknown probe point 'foo.bar'" -p2 -e 'probe foo.bar { }'
    expect_error "<input>:1:24: semantic error" "type mismatch: variable 'x' is long, assigned string" \
        -p2 -e 'probe begin { x = 1; x = "a" }'
    expect_error "<input>:1:15: semantic error" "unresolved function 'foo'" -p2 -e 'probe begin { foo(1) }'
    expect_error "<input>:1:42: semantic error" "function 'f' takes 1 argument, called with 2" \
        -p2 -e 'function f(a) { return a } probe begin { f(1, 2) }'
    expect_error "<input>:1:35: semantic error" "'a' is an array, used here as a scalar" \
        -p2 -e 'global a; probe begin { a[1] = 1; a = 2 }'
    expect_error "<input>:1:15: semantic error" "unknown array 'b'" -p2 -e 'probe begin { b[1] = 1 }'
    expect_error "<input>:1:13: semantic error" "timer.s needs a positive number" -p2 -e 'probe timer.s(0) { }'
    expect_error "<input>:1:13: semantic error" "timer period too short" -p2 -e 'probe timer.us(5) { }'
    expect_error "<input>:1:28: semantic error" "unknown probe point component 'foo'" \
        -p2 -e 'probe kprobe.function("x").foo { }'
    expect_error "<input>:1:30: semantic error" "type mismatch: this format argument must be long, not string" \
        -p2 -e 'probe begin { printf("%d\n", "s") }'
    expect_error "<input>:1:15: semantic error" "format has 2 conversions but 1 argument is given" \
        -p2 -e 'probe begin { printf("%d %d\n", 1) }'
    expect_error "<input>:1:22: semantic error" "printf needs a literal format string" \
        -p2 -e 'probe begin { printf(x) }'
    expect_error "<input>:1:15: semantic error" "'break' outside a loop" -p2 -e 'probe begin { break }'
    expect_error "<input>:1:42: semantic error" "array 'a' is modified inside a foreach over it" \
        -p2 -e 'global a; probe begin { foreach (k in a) a[k] = 1 }'
    # also through a chain of function calls (the runtime iterates the array in place)
    expect_error "<input>:1:91: semantic error" "array 'a' is modified inside a foreach over it (by function 'g')" \
        -p2 -e 'global a; function f() { delete a } function g() { f() } probe begin { foreach (k in a) { g() } }'
    expect_error "<input>:1:19: parse error" "'return' is only allowed in a function" \
        -p2 -e 'probe begin { x=1 return }'
    expect_error "<input>:1:10: semantic error" "cannot infer the return type of function 'f'" \
        -p2 -e 'function f(n) { return f(n + 1) } probe begin { println(f(0)) }'
    # every error of a run is reported, not just the first
    "$STAP" -p2 -e 'probe begin { foo() bar() }' 2>stderr && return 1
    [[ $(grep -c 'unresolved function' stderr) == 2 ]]
}
