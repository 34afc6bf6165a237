# stap -p1 prints the program back; printing the printed program again gives the same text
# Used by tests/run (issue 2).

run() {
    source "$TOP/tests/lib/assert.sh"
    cat >all.stp <<'STP'
#!/usr/bin/env stap
global a, b[100], c = 5, d = "x", e = -3
function f(x, y) { return x + y * 2 }
function g() { return "s" . "t" }
probe begin, end { a = 1; a += 2; a -= 1; a *= 3; a /= 2; a %= 7; a <<= 1; a >>= 1; a &= 3; a |= 4; a ^= 1 }
probe timer.ms(10), kprobe.function("vfs_read").return {
    if (a < 1 && b[1] >= 2 || !(c != 3)) next; else { delete b[1]; delete b }
    for (i = 0; i < 10; i++) { if (i == 3) continue; if (i > 5) break }
    while (i--) ;
    foreach (k in b) printf("%d %s\n", b[k], d . "y")
    x = a ? -c : ~c
    y = [1] in b
    z = 1 in b
    s = "tab\tquote\"backslash\\"
    println(f(1, 2), g())
    exit()
}
STP
    expect_ok -p1 all.stp
    cp stdout once.stp
    expect_ok -p1 once.stp
    diff -u once.stp stdout
    # the normalized text keeps the meaning: spot checks
    grep -q 'global b\[100\]' once.stp
    grep -q 'probe begin, end {' once.stp
    grep -q '"tab\\tquote\\"backslash\\\\"' once.stp
}
