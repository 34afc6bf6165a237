# script-groups - which script cases share a module (tests/lib/script-groups.sh): who may join, a member's globals renamed (script-rename.awk: not in strings, comments or after @), a function clash going to another group, the group building, the files kept when unchanged.
# Used by tests/run (unit/script-groups). The guest runs every real group's members (runtime/*), each comparing its own output.
asan_rerun=0

run() {
    source "$TOP/tests/lib/script-groups.sh"
    mkdir -p s gen
    # a: a global read and written, its name in a string, a comment and after @ (a statistic's extractor)
    cat >s/a.stp <<'EOF'
global n, count   # n counts
function bump() { n++; count <<< n }
probe begin { bump(); bump(); printf("n=%d count=%d\n", n, @count(count)) }
probe end { println("a end ", n) }
EOF
    # b: a local named n (must not become a's global) and a function of its own
    cat >s/b.stp <<'EOF'
function twice(x) { return 2 * x }
probe begin { n = 5; println("b ", twice(n)) }
EOF
    # c: a function named as b's: another group
    cat >s/c.stp <<'EOF'
function twice(x) { return x + x }
probe begin { println("c ", twice(3)) }
EOF
    # d: a global written and never read (printed at the end of the run): not grouped
    cat >s/d.stp <<'EOF'
global w
probe begin { w = 1 }
EOF
    # e: an expected error (e.err): not grouped; f: a kernel probe: not grouped
    printf 'probe begin { println(1 / 0) }\n' >s/e.stp
    : >s/e.err
    printf 'probe kernel.function("ksys_read") { }\n' >s/f.stp
    # g: a global declared over two lines: not grouped
    printf 'global p,\n  q\nprobe begin { p = q; println(p) }\n' >s/g.stp
    script_groups gen s/a.stp s/b.stp s/c.stp s/d.stp s/e.stp s/f.stp s/g.stp >list
    cat list
    printf '%s\n' "a 0 1" "b 0 2" "c 1 1" | diff - list
    # a's globals renamed in its declaration and uses only
    grep -qxF 'global rt1_n, rt1_count   # n counts' gen/rt_g0.stp
    grep -qxF 'function bump() { rt1_n++; rt1_count <<< rt1_n }' gen/rt_g0.stp
    grep -qxF 'probe begin { if (rt_sel != 1) next; bump(); bump(); printf("n=%d count=%d\n", rt1_n, @count(rt1_count)) }' gen/rt_g0.stp
    grep -qxF 'probe begin { if (rt_sel != 2) next; n = 5; println("b ", twice(n)) }' gen/rt_g0.stp
    # the group builds (pass 4: its C compiles against the kernel's headers)
    $STAP -r "$KVER" -p4 -m rt_g0 gen/rt_g0.stp >/dev/null
    [[ -s rt_g0.ko ]]
    # the same groups again: the files are left as they were (a rerun's module cache still hits)
    local before
    before=$(stat -c %Y gen/rt_g0.stp)
    sleep 1
    script_groups gen s/a.stp s/b.stp s/c.stp s/d.stp s/e.stp s/f.stp s/g.stp | diff - list
    [[ $(stat -c %Y gen/rt_g0.stp) == "$before" ]]
}
